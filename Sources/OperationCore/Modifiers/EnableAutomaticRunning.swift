// MARK: - Modifiers

extension StatefulOperationRequest {
  /// Lets stores run this operation by themselves while a specification holds.
  ///
  /// Automatic running covers the run that a stale store starts for its first subscriber.
  ///
  /// - Parameter specification: When automatic running is allowed.
  /// - Returns: The modified operation.
  public func enableAutomaticRunning<Specification: OperationRunSpecification & Sendable>(
    onlyWhen specification: Specification
  ) -> ModifiedOperation<Self, _EnableAutomaticFetchingModifier<Self, Specification>> {
    self.modifier(_EnableAutomaticFetchingModifier(specification: specification))
  }

  /// Stops stores from running this operation by themselves.
  ///
  /// - Parameter isDisabled: Whether automatic running is disabled.
  /// - Returns: The modified operation.
  public func disableAutomaticRunning(
    _ isDisabled: Bool = true
  ) -> ModifiedOperation<Self, _EnableAutomaticFetchingModifier<Self, AlwaysRunSpecification>> {
    self.enableAutomaticRunning(onlyWhen: .always(!isDisabled))
  }
}

/// The modifier behind ``StatefulOperationRequest/enableAutomaticRunning(onlyWhen:)``.
public struct _EnableAutomaticFetchingModifier<
  Operation: OperationRequest,
  Specification: OperationRunSpecification & Sendable
>: _ContextUpdatingOperationModifier {
  let specification: Specification

  /// Writes the specification to ``OperationContext/automaticRunningSpecification``.
  public func setup(context: inout OperationContext) {
    context.automaticRunningSpecification = self.specification
  }
}
