public import OperationCore

/// A request made from a closure.
///
/// This is danthorpe/Operations' `BlockOperation` and PeakOperation's `BlockResultOperation`: a
/// piece of work that needs no type of its own, for a graph node, a chain step or a test. The
/// closure receives the run's context and returns the value; it can throw, with a typed error:
///
/// ```swift
/// let cleanUp = BlockRequest { context in
///   try await cache.removeExpired(before: context.operationClock.now())
/// }
/// let answer = BlockRequest { 42 }
/// let nothing = BlockRequest()  // finishes at once
/// ```
///
/// It is an ``OperationRequest`` like any other, so every modifier works on it. It has no path,
/// so a store cannot hold it as it is; run it with an ``OperationRunner`` or in a graph.
public struct BlockRequest<Value, Failure: Error>: OperationRequest, Sendable {
  private let body: @Sendable (OperationContext) async throws(Failure) -> Value

  /// Creates a request that runs a closure with the run's context.
  ///
  /// - Parameter body: The work; it receives the run's context.
  public init(_ body: @escaping @Sendable (OperationContext) async throws(Failure) -> Value) {
    self.body = body
  }

  /// Creates a request that runs a closure.
  ///
  /// - Parameter body: The work.
  public init(_ body: @escaping @Sendable () async throws(Failure) -> Value) {
    self.body = { _ throws(Failure) in try await body() }
  }

  /// Runs the closure.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this run, passed to the closure.
  ///   - continuation: Unused: a block yields nothing.
  /// - Returns: What the closure returns.
  /// - Throws: What the closure throws.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, Failure>
  ) async throws(Failure) -> Value {
    try await self.body(context)
  }
}

extension BlockRequest where Value == Void, Failure == Never {
  /// Creates a request with no work, which finishes at once.
  ///
  /// Use it as a placeholder, or as a node that only joins other nodes in a graph.
  public init() {
    self.init { () async -> Void in }
  }
}
