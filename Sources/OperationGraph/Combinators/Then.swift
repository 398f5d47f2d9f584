import OperationCore

extension OperationRequest {
  /// Runs `next` after this request succeeds; this request's value is ignored.
  ///
  /// A failure of this request ends the chain with that failure, and `next` never runs. To run
  /// `next` whatever happens, use `then(always:)`.
  ///
  /// ```swift
  /// let signIn = Authenticate(credentials).then(FetchProfile())
  /// let profile = try await client.store(for: signIn).fetch()
  /// ```
  ///
  /// When both requests are `StatefulOperationRequest`s the chain is a `QueryRequest` whose
  /// path is this request's path, a ``OperationChainPathMarker`` and `next`'s path, so equal
  /// chains share a store.
  ///
  /// - Context: the chain's `OperationRequest/setup(context:)` prepares one context with the
  ///   setup of each part, in order, as if their modifiers were applied to the chain. While a
  ///   part runs, its own setup is applied again to a copy of the run's context, so a part's
  ///   context-writing modifiers (`retry(limit:)`, `delayer(_:)`, `backoff(_:)`) are in force for
  ///   that part only and win over the chain's and the client's. An entry that only one part
  ///   writes is still visible to the other parts: put such a modifier on each part that needs a
  ///   different value, or on the chain. A part's `deduplicated()` shares nothing across runs
  ///   of the chain (each run prepares it again); deduplicate the chain instead.
  /// - Progress: with a ``OperationContext/progressReporter``, the chain's units are shared
  ///   evenly over the flattened steps of both parts (`a.then(b).then(c)` is three steps), and
  ///   each part reports to a child that is completed when the part ends; the share of a part
  ///   that is skipped is counted as done, so a finished chain is at 1.
  /// - Yields: what `next` yields is forwarded; what this request yields is dropped.
  /// - Cancellation: the chain checks for cancellation after this request succeeds and throws
  ///   `CancellationError` instead of starting `next` when `Failure` can hold it; with a typed
  ///   `Failure` that cannot, `next` runs and handles the cancelled task itself.
  ///
  /// - Parameter next: The request to run after this one succeeds.
  /// - Returns: A request whose value and failure are those of the chain.
  public func then<Next: OperationRequest>(
    _ next: Next
  ) -> _ThenOperation<Self, Next> where Next.Failure == Failure {
    _ThenOperation(first: self, second: next, afterFailure: .stop { $0 })
  }

  /// Runs `next` after this request succeeds, for requests whose failure types differ.
  ///
  /// This is `then(_:)` with both failures widened to `any Error`.
  ///
  /// - Parameter next: The request to run after this one succeeds.
  /// - Returns: A request that throws the failure of either part as `any Error`.
  @_disfavoredOverload
  public func then<Next: OperationRequest>(
    _ next: Next
  ) -> _ThenOperation<_AnyErrorOperation<Self>, _AnyErrorOperation<Next>> {
    _ThenOperation(
      first: _AnyErrorOperation(self),
      second: _AnyErrorOperation(next),
      afterFailure: .stop { $0 }
    )
  }
}

/// The request behind `then(_:)` and `then(always:)`:
/// `first`, then `second`, unless `first` failed and the chain stops at failures.
public struct _ThenOperation<First: OperationRequest, Second: OperationRequest>: OperationRequest {
  /// The value of the second request.
  public typealias Value = Second.Value

  /// The failure of the second request, which `then(_:)` shares with the first.
  public typealias Failure = Second.Failure

  /// What a chain does when its first request fails.
  enum AfterFailure: Sendable {
    /// Ends the chain with the first request's failure, as the chain's failure type.
    case stop(@Sendable (First.Failure) -> Second.Failure)
    /// Runs the second request anyway.
    case runSecond
  }

  /// The request that runs first.
  public let first: First

  /// The request that runs after `first`.
  public let second: Second

  let afterFailure: AfterFailure

  init(first: First, second: Second, afterFailure: AfterFailure) {
    self.first = first
    self.second = second
    self.afterFailure = afterFailure
  }

  /// Prepares the context with `first`'s setup, then `second`'s.
  ///
  /// - Parameter context: The context to prepare.
  public func setup(context: inout OperationContext) {
    self.first.setup(context: &context)
    self.second.setup(context: &context)
  }

  /// Runs `first`, then `second`, unless `first` failed and the chain stops at failures.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on; both parts run on it.
  ///   - context: The context of this run.
  ///   - continuation: Receives what `second` yields.
  /// - Returns: The value of `second`.
  /// - Throws: The failure of `first` (when the chain stops at failures) or of `second`.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, Failure>
  ) async throws(Failure) -> Value {
    let progress = ChainProgress(context, stepCounts: self.stepCounts)
    do {
      _ = try await self.first.runAsPart(
        0,
        of: progress,
        isolation: isolation,
        in: context,
        with: .ignoring
      )
    } catch {
      if case .stop(let convert) = self.afterFailure {
        progress?.skip(parts: 1..<2)
        throw convert(error)
      }
    }
    do {
      try throwIfCancelled(as: Failure.self)
    } catch {
      progress?.skip(parts: 1..<2)
      throw error
    }
    return try await self.second.runAsPart(
      1,
      of: progress,
      isolation: isolation,
      in: context,
      with: continuation
    )
  }

  private var stepCounts: [Int] {
    [self.first.chainStepCount, self.second.chainStepCount]
  }
}

extension _ThenOperation: ChainStepCounting {
  var chainStepCount: Int {
    self.stepCounts.reduce(0, +)
  }
}

extension _ThenOperation: StatefulOperationRequest, QueryRequest, _CombinedQueryRequest
where First: StatefulOperationRequest, Second: StatefulOperationRequest {
  /// A query state with the second request's value and failure.
  public typealias State = QueryState<Second.Value, Second.Failure>

  /// `first`'s path, a ``OperationChainPathMarker/Kind/then`` (or
  /// ``OperationChainPathMarker/Kind/thenAlways``) marker, then `second`'s path as one element.
  public var path: OperationPath {
    let kind: OperationChainPathMarker.Kind =
      switch self.afterFailure {
      case .stop: .then
      case .runSecond: .thenAlways
      }
    return self.first.path.appendingChain(OperationChainPathMarker(kind), rest: self.second.path)
  }
}

extension _ThenOperation: Sendable where First: Sendable, Second: Sendable {}
