extension OperationRequest {
  /// Sets the delayer that retries wait with between attempts.
  ///
  /// - Parameter delayer: The delayer; `.noDelay` in tests.
  /// - Returns: The modified operation.
  public func delayer(
    _ delayer: some OperationDelayer & Sendable
  ) -> ModifiedOperation<Self, _DelayerModifier<Self>> {
    self.modifier(_DelayerModifier(delayer: delayer))
  }

  /// Sets the clock that time-stamps results and decides staleness.
  ///
  /// - Parameter clock: The clock; `.timeFreeze(date)` in tests.
  /// - Returns: The modified operation.
  public func clock(
    _ clock: some OperationClock & Sendable
  ) -> ModifiedOperation<Self, _OperationClockModifier<Self>> {
    self.modifier(_OperationClockModifier(clock: clock))
  }
}

/// The modifier behind ``OperationRequest/delayer(_:)``.
public struct _DelayerModifier<Operation: OperationRequest>: _ContextUpdatingOperationModifier {
  let delayer: any OperationDelayer & Sendable

  /// Writes the delayer to ``OperationContext/operationDelayer``.
  public func setup(context: inout OperationContext) {
    context.operationDelayer = self.delayer
  }
}

/// The modifier behind ``OperationRequest/clock(_:)``.
public struct _OperationClockModifier<Operation: OperationRequest>:
  _ContextUpdatingOperationModifier
{
  let clock: any OperationClock & Sendable

  /// Writes the clock to ``OperationContext/operationClock``.
  public func setup(context: inout OperationContext) {
    context.operationClock = self.clock
  }
}
