import OperationCore

extension OperationRequest {
  /// Runs a fallback request, made from this request's failure, when this request fails.
  ///
  /// This is PeakOperation's error passing: the failure goes to the next request, which decides
  /// what to do with it. A success passes through unchanged and the fallback is not made.
  ///
  /// ```swift
  /// let feed = LiveFeedQuery().catch { error in CachedFeedQuery(reason: error) }
  /// ```
  ///
  /// The chain's failure is the fallback's. When both requests are
  /// `StatefulOperationRequest`s the result is a `QueryRequest` whose path is this request's
  /// path followed by a ``OperationChainPathMarker`` that holds the place where `catch` was
  /// called.
  ///
  /// The fallback counts as one step for progress; when it is not needed, its share is counted
  /// as done. Values that this request yields are forwarded, its yielded errors are dropped, and
  /// what the fallback yields is forwarded. Context works as for `then(_:)`.
  ///
  /// Cancellation: when the task is cancelled as this request fails, the chain throws
  /// `CancellationError` instead of running the fallback, when `Fallback.Failure` can hold it.
  ///
  /// - Parameters:
  ///   - fileID: The file of the call, which identifies the closure in the path.
  ///   - line: The line of the call.
  ///   - column: The column of the call.
  ///   - makeFallback: Makes the request to run from this request's failure.
  /// - Returns: A request with this request's value and the fallback's failure.
  public func `catch`<Fallback: OperationRequest>(
    fileID: StaticString = #fileID,
    line: UInt = #line,
    column: UInt = #column,
    _ makeFallback: @escaping @Sendable (Failure) -> Fallback
  ) -> _CatchOperation<Self, Fallback> where Fallback.Value == Value {
    _CatchOperation(
      base: self,
      callSite: ChainCallSite(fileID, line, column),
      makeFallback: makeFallback
    )
  }

  /// Replaces this request's failure with a value made from it.
  ///
  /// The recovery's thrown error type becomes the request's failure, so a recovery that does
  /// not throw makes a request that never fails:
  ///
  /// ```swift
  /// let posts = PostsQuery().catch { _ in [] }  // Failure == Never
  /// ```
  ///
  /// This is `mapResult(_:)` that only sees failures: the recovery runs on
  /// the caller's isolation, even when the task is cancelled, and what the request yields is
  /// dropped. The path's ``OperationChainPathMarker`` has the kind
  /// ``OperationChainPathMarker/Kind/catch``.
  ///
  /// - Parameters:
  ///   - fileID: The file of the call, which identifies the closure in the path.
  ///   - line: The line of the call.
  ///   - column: The column of the call.
  ///   - recover: Makes a value from this request's failure.
  /// - Returns: A request with this request's value and the recovery's failure.
  public func `catch`<NewFailure: Error>(
    fileID: StaticString = #fileID,
    line: UInt = #line,
    column: UInt = #column,
    _ recover: @escaping @Sendable (Failure) async throws(NewFailure) -> Value
  ) -> _MapResultOperation<Self, Value, NewFailure> where Value: Sendable {
    _MapResultOperation(
      base: self,
      marker: ChainCallSite(fileID, line, column)
        .marker(.catch, for: _MapResultOperation<Self, Value, NewFailure>.self),
      transform: { result throws(NewFailure) in
        switch result {
        case .success(let value): return value
        case .failure(let error): return try await recover(error)
        }
      }
    )
  }
}

/// The request behind `catch(_:)` with a fallback request.
public struct _CatchOperation<Base: OperationRequest, Fallback: OperationRequest>: OperationRequest
where Base.Value == Fallback.Value {
  /// The value of both requests.
  public typealias Value = Base.Value

  /// The fallback's failure.
  public typealias Failure = Fallback.Failure

  /// The request whose failure makes the fallback.
  public let base: Base

  let makeFallback: @Sendable (Base.Failure) -> Fallback
  let marker: OperationChainPathMarker

  init(
    base: Base,
    callSite: ChainCallSite,
    makeFallback: @escaping @Sendable (Base.Failure) -> Fallback
  ) {
    self.base = base
    self.makeFallback = makeFallback
    self.marker = callSite.marker(.catch, for: Self.self)
  }

  /// Prepares the context with the base request's setup; the fallback's setup runs when it is
  /// made.
  ///
  /// - Parameter context: The context to prepare.
  public func setup(context: inout OperationContext) {
    self.base.setup(context: &context)
  }

  /// Runs the base request, then, if it failed, the fallback made from its failure.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on; both requests run on it.
  ///   - context: The context of this run.
  ///   - continuation: Receives the base request's yielded values and what the fallback yields.
  /// - Returns: The value of the base request or of the fallback.
  /// - Throws: The fallback's failure.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, Failure>
  ) async throws(Failure) -> Value {
    let progress = ChainProgress(context, stepCounts: [self.base.chainStepCount, 1])
    let failure: Base.Failure
    do {
      let value = try await self.base.runAsPart(
        0,
        of: progress,
        isolation: isolation,
        in: context,
        with: OperationContinuation { result, context in
          if case .success(let value) = result {
            continuation.yield(value, using: context)
          }
        }
      )
      progress?.skip(parts: 1..<2)
      return value
    } catch {
      failure = error
    }
    do {
      try throwIfCancelled(as: Failure.self)
    } catch {
      progress?.skip(parts: 1..<2)
      throw error
    }
    return try await self.makeFallback(failure).runAsPart(
      1,
      of: progress,
      isolation: isolation,
      in: context,
      with: continuation
    )
  }
}

extension _CatchOperation: ChainStepCounting {
  var chainStepCount: Int {
    self.base.chainStepCount + 1
  }
}

extension _CatchOperation: StatefulOperationRequest, QueryRequest, _CombinedQueryRequest
where Base: StatefulOperationRequest, Fallback: StatefulOperationRequest {
  /// A query state with the value of both requests and the fallback's failure.
  public typealias State = QueryState<Base.Value, Fallback.Failure>

  /// The base request's path, then a ``OperationChainPathMarker/Kind/catch`` marker with the
  /// place of the call.
  public var path: OperationPath {
    self.base.path.appendingChain(self.marker)
  }
}

extension _CatchOperation: Sendable where Base: Sendable {}
