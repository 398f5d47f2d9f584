extension OperationRequest {
  /// Sets the delayer that retries wait with between attempts.
  ///
  /// - Parameter delayer: The delayer; `.noDelay` in tests.
  /// - Returns: The modified operation.
  public func delayer<Delayer: OperationDelayer & Sendable>(
    _ delayer: Delayer
  ) -> ModifiedOperation<Self, _DelayerModifier<Self, Delayer>> {
    self.modifier(_DelayerModifier(delayer: delayer))
  }

  /// Sets the clock that time-stamps results and decides staleness.
  ///
  /// - Parameter clock: The clock; `.timeFreeze(date)` in tests.
  /// - Returns: The modified operation.
  public func clock<C: OperationClock & Sendable>(
    _ clock: C
  ) -> ModifiedOperation<Self, _OperationClockModifier<Self, C>> {
    self.modifier(_OperationClockModifier(clock: clock))
  }
}

/// The modifier behind ``OperationRequest/delayer(_:)``.
public struct _DelayerModifier<
  Operation: OperationRequest,
  Delayer: OperationDelayer & Sendable
>: _ContextUpdatingOperationModifier {
  let delayer: Delayer

  /// Writes the delayer to ``OperationContext/operationDelayer``.
  public func setup(context: inout OperationContext) {
    context.operationDelayer = self.delayer
  }
}

/// The modifier behind ``OperationRequest/clock(_:)``.
public struct _OperationClockModifier<
  Operation: OperationRequest,
  C: OperationClock & Sendable
>: _ContextUpdatingOperationModifier {
  let clock: C

  /// Writes the clock to ``OperationContext/operationClock``.
  public func setup(context: inout OperationContext) {
    context.operationClock = self.clock
  }
}
