extension OperationRequest {
  /// Marks the operation as one that never uses the network.
  ///
  /// Use it for work that is entirely local, such as a database query or an on-device
  /// computation. When `isOffline` is `true`, the modifier writes to the context:
  /// - ``OperationContext/satisfiedConnectionStatus`` = ``NetworkConnectionStatus/disconnected``,
  ///   so ``NetworkConnectionRunSpecification`` always holds;
  /// - ``OperationContext/operationMaxRetries`` = 0, since retrying does not help local work;
  /// - ``OperationContext/operationBackoffFunction`` = ``OperationBackoffFunction/noBackoff``.
  ///
  /// When `isOffline` is `false`, it changes nothing. Like other context modifiers, the innermost
  /// one wins, so it overrides a client's default `retry`.
  ///
  /// ```swift
  /// let query = LocalNotesQuery().completelyOffline()
  /// ```
  ///
  /// > Warning: Only use it for operations that never touch the network; otherwise they lose
  /// > their retries and run while the device is offline.
  ///
  /// - Parameter isOffline: Whether the operation is completely offline; `true` by default.
  /// - Returns: The modified operation.
  public func completelyOffline(
    _ isOffline: Bool = true
  ) -> ModifiedOperation<Self, _CompletelyOfflineModifier<Self>> {
    self.modifier(_CompletelyOfflineModifier(isOffline: isOffline))
  }
}

/// The modifier behind ``OperationRequest/completelyOffline(_:)``.
public struct _CompletelyOfflineModifier<
  Operation: OperationRequest
>: _ContextUpdatingOperationModifier {
  let isOffline: Bool

  /// Lowers the satisfied connection status and removes retries and backoff when offline.
  public func setup(context: inout OperationContext) {
    guard self.isOffline else { return }
    context.satisfiedConnectionStatus = .disconnected
    context.operationMaxRetries = 0
    context.operationBackoffFunction = .noBackoff
  }
}
