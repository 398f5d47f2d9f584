import OperationCore

extension OperationRequest {
  /// Transforms this request's failure; a success passes through unchanged.
  ///
  /// ```swift
  /// let feed = FeedQuery().mapError { error in FeedError.unavailable(underlying: error) }
  /// ```
  ///
  /// What the request yields is forwarded, with yielded errors transformed too. Paths, context
  /// and progress work as for `map(_:)`.
  ///
  /// - Parameters:
  ///   - fileID: The file of the call, which identifies the transform in the path.
  ///   - line: The line of the call.
  ///   - column: The column of the call.
  ///   - transform: Makes the new error from the request's failure.
  /// - Returns: A request that throws the transformed error.
  public func mapError<NewFailure: Error>(
    fileID: StaticString = #fileID,
    line: UInt = #line,
    column: UInt = #column,
    _ transform: @escaping @Sendable (Failure) -> NewFailure
  ) -> _MapErrorOperation<Self, NewFailure> {
    _MapErrorOperation(
      base: self,
      callSite: ChainCallSite(fileID, line, column),
      transform: transform
    )
  }
}

/// The request behind `mapError(_:)`.
public struct _MapErrorOperation<Base: OperationRequest, NewFailure: Error>: OperationRequest {
  /// The base request's value.
  public typealias Value = Base.Value

  /// The transformed failure.
  public typealias Failure = NewFailure

  /// The request whose failure is transformed.
  public let base: Base

  let transform: @Sendable (Base.Failure) -> NewFailure
  let marker: OperationChainPathMarker

  init(
    base: Base,
    callSite: ChainCallSite,
    transform: @escaping @Sendable (Base.Failure) -> NewFailure
  ) {
    self.base = base
    self.transform = transform
    self.marker = callSite.marker(.mapError, for: Self.self)
  }

  /// Prepares the context with the base request's setup.
  ///
  /// - Parameter context: The context to prepare.
  public func setup(context: inout OperationContext) {
    self.base.setup(context: &context)
  }

  /// Runs the base request and transforms its failure.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on; the request runs on it.
  ///   - context: The context of this run.
  ///   - continuation: Receives what the base yields, errors transformed.
  /// - Returns: The base request's value.
  /// - Throws: The transformed failure.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, Failure>
  ) async throws(Failure) -> Value {
    let transform = self.transform
    do {
      return try await self.base.runAsOnlyPart(
        isolation: isolation,
        in: context,
        with: OperationContinuation { result, context in
          continuation.yield(with: result.mapError(transform), using: context)
        }
      )
    } catch {
      throw self.transform(error)
    }
  }
}

extension _MapErrorOperation: ChainStepCounting {
  var chainStepCount: Int {
    self.base.chainStepCount
  }
}

extension _MapErrorOperation: StatefulOperationRequest, QueryRequest, _CombinedQueryRequest
where Base: StatefulOperationRequest {
  /// A query state with the base's value and the transformed failure.
  public typealias State = QueryState<Base.Value, NewFailure>

  /// The base request's path, then a ``OperationChainPathMarker/Kind/mapError`` marker with the
  /// place of the call.
  public var path: OperationPath {
    self.base.path.appendingChain(self.marker)
  }
}

extension _MapErrorOperation: Sendable where Base: Sendable {}
