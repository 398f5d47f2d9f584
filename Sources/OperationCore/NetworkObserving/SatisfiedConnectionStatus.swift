// MARK: - Modifier

extension OperationRequest {
  /// Sets the lowest network status at which ``NetworkConnectionRunSpecification`` holds for this
  /// operation.
  ///
  /// ```swift
  /// // Runs automatically even when a connection must first be established.
  /// let query = PostQuery(id: 1).satisfiedConnectionStatus(.requiresConnection)
  /// ```
  ///
  /// Like other context modifiers, the innermost one wins.
  ///
  /// - Parameter status: The lowest satisfying status.
  /// - Returns: The modified operation.
  public func satisfiedConnectionStatus(
    _ status: NetworkConnectionStatus
  ) -> ModifiedOperation<Self, _SatisfiedConnectionStatusModifier<Self>> {
    self.modifier(_SatisfiedConnectionStatusModifier(status: status))
  }
}

/// The modifier behind ``OperationRequest/satisfiedConnectionStatus(_:)``.
public struct _SatisfiedConnectionStatusModifier<
  Operation: OperationRequest
>: _ContextUpdatingOperationModifier {
  let status: NetworkConnectionStatus

  /// Writes the status to ``OperationContext/satisfiedConnectionStatus``.
  public func setup(context: inout OperationContext) {
    context.satisfiedConnectionStatus = self.status
  }
}

// MARK: - Context

extension OperationContext {
  /// The lowest network status at which ``NetworkConnectionRunSpecification`` holds.
  ///
  /// The default is ``NetworkConnectionStatus/connected``. Setting it to
  /// ``NetworkConnectionStatus/disconnected`` makes the specification always hold.
  public var satisfiedConnectionStatus: NetworkConnectionStatus {
    get { self[SatisfiedConnectionStatusKey.self] }
    set { self[SatisfiedConnectionStatusKey.self] = newValue }
  }

  private enum SatisfiedConnectionStatusKey: Key {
    static let defaultValue = NetworkConnectionStatus.connected
  }
}
