// MARK: - Modifier

extension OperationRequest {
  /// Stops ``ApplicationIsActiveRunSpecification`` from holding for this operation, so it does not
  /// rerun when the application becomes active again.
  ///
  /// ```swift
  /// let query = ExpensiveReportQuery().disableApplicationActiveRerunning()
  /// ```
  ///
  /// Like other context modifiers, the innermost one wins.
  ///
  /// - Parameter isDisabled: Whether rerunning on activation is disabled; `true` by default.
  /// - Returns: The modified operation.
  public func disableApplicationActiveRerunning(
    _ isDisabled: Bool = true
  ) -> ModifiedOperation<Self, _DisableApplicationActiveReRunningModifier<Self>> {
    self.modifier(_DisableApplicationActiveReRunningModifier(isDisabled: isDisabled))
  }
}

/// The modifier behind ``OperationRequest/disableApplicationActiveRerunning(_:)``.
public struct _DisableApplicationActiveReRunningModifier<
  Operation: OperationRequest
>: _ContextUpdatingOperationModifier {
  let isDisabled: Bool

  /// Writes `!isDisabled` to ``OperationContext/isApplicationActiveRerunningEnabled``.
  public func setup(context: inout OperationContext) {
    context.isApplicationActiveRerunningEnabled = !self.isDisabled
  }
}

// MARK: - Context

extension OperationContext {
  /// Whether ``ApplicationIsActiveRunSpecification`` may hold for the operation; `true` by
  /// default.
  public var isApplicationActiveRerunningEnabled: Bool {
    get { self[IsApplicationActiveRerunningEnabledKey.self] }
    set { self[IsApplicationActiveRerunningEnabledKey.self] = newValue }
  }

  private enum IsApplicationActiveRerunningEnabledKey: Key {
    static let defaultValue = true
  }
}
