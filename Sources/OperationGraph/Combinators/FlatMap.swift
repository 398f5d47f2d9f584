import OperationCore

extension OperationRequest {
  /// Runs the request that a closure makes from this request's value.
  ///
  /// A failure of this request ends the chain with that failure, and the closure is not called.
  ///
  /// ```swift
  /// let avatar = UserQuery(id: id).flatMap { user in ImageQuery(url: user.avatarURL) }
  /// ```
  ///
  /// When both requests are `StatefulOperationRequest`s the result is a `QueryRequest`. The
  /// next request is only known at run time, so the path is this request's path followed by a
  /// ``OperationChainPathMarker`` that holds the place where `flatMap` was called.
  ///
  /// The next request counts as one step for progress, and its setup prepares a copy of the
  /// context before it runs. What it yields is forwarded; what this request yields is dropped.
  /// Context, progress and cancellation otherwise work as for `then(_:)`.
  ///
  /// - Parameters:
  ///   - fileID: The file of the call, which identifies the closure in the path.
  ///   - line: The line of the call.
  ///   - column: The column of the call.
  ///   - makeNext: Makes the request to run from this request's value.
  /// - Returns: A request with the next request's value.
  public func flatMap<Next: OperationRequest>(
    fileID: StaticString = #fileID,
    line: UInt = #line,
    column: UInt = #column,
    _ makeNext: @escaping @Sendable (Value) -> Next
  ) -> _FlatMapOperation<Self, Next> where Next.Failure == Failure {
    _FlatMapOperation(
      base: self,
      callSite: ChainCallSite(fileID, line, column),
      makeNext: makeNext
    )
  }

  /// Runs the request that a closure makes from this request's value, for requests whose
  /// failure types differ.
  ///
  /// This is `flatMap(_:)` with both failures widened to `any Error`.
  ///
  /// - Parameters:
  ///   - fileID: The file of the call, which identifies the closure in the path.
  ///   - line: The line of the call.
  ///   - column: The column of the call.
  ///   - makeNext: Makes the request to run from this request's value.
  /// - Returns: A request with the next request's value that throws `any Error`.
  @_disfavoredOverload
  public func flatMap<Next: OperationRequest>(
    fileID: StaticString = #fileID,
    line: UInt = #line,
    column: UInt = #column,
    _ makeNext: @escaping @Sendable (Value) -> Next
  ) -> _FlatMapOperation<_AnyErrorOperation<Self>, _AnyErrorOperation<Next>>
  where Next: SendableMetatype {
    // NB: The closure that widens the next request's failure makes an `_AnyErrorOperation<Next>`
    // wherever it runs, so it captures `Next`'s metatype.
    return _FlatMapOperation(
      base: _AnyErrorOperation(self),
      callSite: ChainCallSite(fileID, line, column),
      makeNext: { _AnyErrorOperation(makeNext($0)) }
    )
  }
}

/// The request behind `flatMap(_:)`.
public struct _FlatMapOperation<Base: OperationRequest, Next: OperationRequest>: OperationRequest
where Base.Failure == Next.Failure {
  /// The next request's value.
  public typealias Value = Next.Value

  /// The failure both requests share.
  public typealias Failure = Next.Failure

  /// The request whose value makes the next request.
  public let base: Base

  let makeNext: @Sendable (Base.Value) -> Next
  let marker: OperationChainPathMarker

  init(base: Base, callSite: ChainCallSite, makeNext: @escaping @Sendable (Base.Value) -> Next) {
    self.base = base
    self.makeNext = makeNext
    self.marker = callSite.marker(.flatMap, for: Self.self)
  }

  /// Prepares the context with the base request's setup; the next request's setup runs when it
  /// is made.
  ///
  /// - Parameter context: The context to prepare.
  public func setup(context: inout OperationContext) {
    self.base.setup(context: &context)
  }

  /// Runs the base request, then the request made from its value.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on; both requests run on it.
  ///   - context: The context of this run.
  ///   - continuation: Receives what the next request yields.
  /// - Returns: The next request's value.
  /// - Throws: The failure of either request.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, Failure>
  ) async throws(Failure) -> Value {
    let progress = ChainProgress(context, stepCounts: [self.base.chainStepCount, 1])
    let value = try await self.base.runAsLeadingPart(
      of: progress,
      isolation: isolation,
      in: context
    )
    return try await self.makeNext(value).runAsPart(
      1,
      of: progress,
      isolation: isolation,
      in: context,
      with: continuation
    )
  }
}

extension _FlatMapOperation: ChainStepCounting {
  var chainStepCount: Int {
    self.base.chainStepCount + 1
  }
}

extension _FlatMapOperation: StatefulOperationRequest, QueryRequest, _CombinedQueryRequest
where Base: StatefulOperationRequest, Next: StatefulOperationRequest {
  /// A query state with the next request's value.
  public typealias State = QueryState<Next.Value, Next.Failure>

  /// The base request's path, then a ``OperationChainPathMarker/Kind/flatMap`` marker with the
  /// place of the call.
  public var path: OperationPath {
    self.base.path.appendingChain(self.marker)
  }
}

extension _FlatMapOperation: Sendable where Base: Sendable {}
