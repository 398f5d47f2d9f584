public import OperationCore

extension OperationRequest {
  /// Runs the request only when a gate is open; otherwise succeeds with `nil` without running it.
  ///
  /// This is danthorpe/Operations' `GatedOperation`. Before each run the modifier asks the gate,
  /// which reads the run's context (a feature flag, the network status, …). An open gate (`true`)
  /// runs the request and returns its value; a closed gate (`false`) returns `nil` at once. A
  /// closed gate is not a failure and does not cancel anything: the request simply does not run.
  ///
  /// ```swift
  /// let sync = SyncContacts()
  ///   .gated { context in context.isContactSyncEnabled }
  /// let contacts = try await OperationRunner(operation: sync).run()  // nil when disabled
  /// ```
  ///
  /// The value becomes optional, so the gated request is a plain ``OperationRequest``, not a query
  /// of the same state. To keep the value type (and with it `QueryRequest` conformance, so that a
  /// store can hold the gated request), give the value of a closed gate with
  /// `gated(otherwise:_:)`.
  ///
  /// Yields of the request reach the continuation as optional values. The gate is asked again on
  /// every run, so a store that refetches sees the gate's latest answer.
  ///
  /// - Parameter gate: Whether to run the request; it receives the run's context.
  /// - Returns: The modified request.
  public func gated(
    _ gate: @escaping @Sendable (OperationContext) async -> Bool
  ) -> ModifiedOperation<Self, _GatedModifier<Self, Value?>> {
    self.modifier(_GatedModifier(gate: gate, closed: { nil }, open: { .some($0) }))
  }

  /// Runs the request only when a gate that ignores the context is open; otherwise succeeds with
  /// `nil` without running it.
  ///
  /// This is the context-reading `gated(_:)` for a gate such as `{ featureFlags.isOn }`.
  ///
  /// ```swift
  /// let request = Backfill().gated { await featureFlags.isEnabled(.backfill) }
  /// ```
  ///
  /// - Parameter gate: Whether to run the request.
  /// - Returns: The modified request.
  public func gated(
    _ gate: @escaping @Sendable () async -> Bool
  ) -> ModifiedOperation<Self, _GatedModifier<Self, Value?>> {
    self.gated { _ in await gate() }
  }
}

extension OperationRequest where Value: Sendable {
  /// Runs the request only when a gate is open; otherwise succeeds with a given value without
  /// running it.
  ///
  /// This is the context-reading `gated(_:)` without the optional: the value type stays
  /// the same, so a gated query is still a query for a store. For a `Void` request, pass `()`.
  ///
  /// ```swift
  /// let query = Recommendations(for: user)
  ///   .gated(otherwise: []) { context in context.isRecommendationsEnabled }
  /// let store = client.store(for: query)
  /// ```
  ///
  /// - Parameters:
  ///   - value: The value of a run whose gate is closed.
  ///   - gate: Whether to run the request; it receives the run's context.
  /// - Returns: The modified request.
  public func gated(
    otherwise value: Value,
    _ gate: @escaping @Sendable (OperationContext) async -> Bool
  ) -> ModifiedOperation<Self, _GatedModifier<Self, Value>> {
    self.modifier(_GatedModifier(gate: gate, closed: { value }, open: { $0 }))
  }

  /// Runs the request only when a gate that ignores the context is open; otherwise succeeds with
  /// a given value without running it.
  ///
  /// - Parameters:
  ///   - value: The value of a run whose gate is closed.
  ///   - gate: Whether to run the request.
  /// - Returns: The modified request.
  public func gated(
    otherwise value: Value,
    _ gate: @escaping @Sendable () async -> Bool
  ) -> ModifiedOperation<Self, _GatedModifier<Self, Value>> {
    self.gated(otherwise: value) { _ in await gate() }
  }
}

/// The modifier behind `OperationRequest.gated(_:)` and
/// `OperationRequest.gated(otherwise:_:)`.
public struct _GatedModifier<Operation: OperationRequest, Value>: OperationModifier, Sendable {
  /// The type of error the gated request throws: the wrapped request's.
  public typealias Failure = Operation.Failure

  let gate: @Sendable (OperationContext) async -> Bool
  let closed: @Sendable () -> Value
  let open: @Sendable (Operation.Value) -> Value

  /// Asks the gate, then runs the request or returns the closed gate's value.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this run.
  ///   - operation: The wrapped request.
  ///   - continuation: Receives the request's yields.
  /// - Returns: The request's value, or the closed gate's value.
  /// - Throws: The request's error.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Value, Operation.Failure>
  ) async throws(Operation.Failure) -> Value {
    guard await self.gate(context) else {
      return self.closed()
    }
    let value = try await operation.run(
      isolation: isolation,
      in: context,
      with: continuation.receivingTransformed(by: self.open)
    )
    return self.open(value)
  }
}
