import OperationCore

extension OperationRequest {
  /// Transforms this request's value when it succeeds.
  ///
  /// A failure passes through unchanged and the transform is not called (PeakOperation's
  /// `MapOperation` with a value map). To see failures too, use
  /// `mapResult(_:)`.
  ///
  /// ```swift
  /// let names = UsersQuery().map { users in users.map(\.name) }
  /// ```
  ///
  /// The new value must be `Sendable`, so that a store can keep it: when this request is a
  /// `StatefulOperationRequest`, the mapped request is a `QueryRequest`. Closures cannot be compared, so its path is this
  /// request's path followed by a ``OperationChainPathMarker`` that holds the place where `map`
  /// was called: the same `map` at the same place shares a store.
  ///
  /// The transform runs on the caller's isolation after the request; it is not a step of its
  /// own for progress. What the request yields is dropped, since the transform is asynchronous.
  /// Context and progress otherwise work as for `then(_:)`.
  ///
  /// Cancellation: after the request succeeds, the map throws `CancellationError` instead of
  /// calling the transform when the task is cancelled and `Failure` can hold it.
  ///
  /// - Parameters:
  ///   - fileID: The file of the call, which identifies the transform in the path.
  ///   - line: The line of the call.
  ///   - column: The column of the call.
  ///   - transform: Makes the new value; it may throw this request's failure type.
  /// - Returns: A request with the transformed value.
  public func map<NewValue: Sendable>(
    fileID: StaticString = #fileID,
    line: UInt = #line,
    column: UInt = #column,
    _ transform: @escaping @Sendable (Value) async throws(Failure) -> NewValue
  ) -> _MapOperation<Self, NewValue> {
    _MapOperation(base: self, callSite: ChainCallSite(fileID, line, column), transform: transform)
  }

  /// Transforms this request's value with a transform that throws any error.
  ///
  /// This is `map(_:)` with the failure widened to `any Error`.
  ///
  /// - Parameters:
  ///   - fileID: The file of the call, which identifies the transform in the path.
  ///   - line: The line of the call.
  ///   - column: The column of the call.
  ///   - transform: Makes the new value.
  /// - Returns: A request with the transformed value that throws `any Error`.
  @_disfavoredOverload
  public func map<NewValue: Sendable>(
    fileID: StaticString = #fileID,
    line: UInt = #line,
    column: UInt = #column,
    _ transform: @escaping @Sendable (Value) async throws -> NewValue
  ) -> _MapOperation<_AnyErrorOperation<Self>, NewValue> {
    _MapOperation(
      base: _AnyErrorOperation(self),
      callSite: ChainCallSite(fileID, line, column),
      transform: transform
    )
  }
}

// NB: `NewValue` is `Sendable` for every use, not only stateful ones, because a conditional
// conformance to `QueryRequest` cannot depend on a `Sendable` conformance, and a query state
// needs a `Sendable` value.
/// The request behind `map(_:)`.
public struct _MapOperation<Base: OperationRequest, NewValue: Sendable>: OperationRequest {
  /// The transformed value.
  public typealias Value = NewValue

  /// The base request's failure.
  public typealias Failure = Base.Failure

  /// The request whose value is transformed.
  public let base: Base

  let transform: @Sendable (Base.Value) async throws(Base.Failure) -> NewValue
  let marker: OperationChainPathMarker

  init(
    base: Base,
    callSite: ChainCallSite,
    transform: @escaping @Sendable (Base.Value) async throws(Base.Failure) -> NewValue
  ) {
    self.base = base
    self.transform = transform
    self.marker = callSite.marker(.map, for: Self.self)
  }

  /// Prepares the context with the base request's setup.
  ///
  /// - Parameter context: The context to prepare.
  public func setup(context: inout OperationContext) {
    self.base.setup(context: &context)
  }

  /// Runs the base request and transforms its value.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on; the request and the transform run on it.
  ///   - context: The context of this run.
  ///   - continuation: Receives nothing: what the base yields is dropped.
  /// - Returns: The transformed value.
  /// - Throws: The base request's failure, or the transform's.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, Failure>
  ) async throws(Failure) -> Value {
    let value = try await self.base.runAsOnlyPart(
      isolation: isolation,
      in: context,
      with: .ignoring
    )
    try throwIfCancelled(as: Failure.self)
    return try await self.transform(value)
  }
}

extension _MapOperation: ChainStepCounting {
  var chainStepCount: Int {
    self.base.chainStepCount
  }
}

extension _MapOperation: StatefulOperationRequest, QueryRequest, _CombinedQueryRequest
where Base: StatefulOperationRequest {
  /// A query state with the transformed value.
  public typealias State = QueryState<NewValue, Base.Failure>

  /// The base request's path, then a ``OperationChainPathMarker/Kind/map`` marker with the place
  /// of the call.
  public var path: OperationPath {
    self.base.path.appendingChain(self.marker)
  }
}

extension _MapOperation: Sendable where Base: Sendable {}
