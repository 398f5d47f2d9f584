import OperationCore

extension OperationRequest {
  /// Passes this request's result, success or failure, to a transform that always runs.
  ///
  /// This is PeakOperation's result passing, in which a failure is passed along as a value and
  /// the next operation still runs:
  ///
  /// ```swift
  /// let status = UploadQuery(file).mapResult { result in
  ///   switch result {
  ///   case .success: "Uploaded"
  ///   case .failure(let error): "Failed: \(error)"
  ///   }
  /// }
  /// ```
  ///
  /// The new value must be `Sendable`, so that a store can keep it. The transform's thrown error
  /// type becomes the request's failure: `Never` for a transform
  /// that does not throw, `any Error` for one that throws untyped errors.
  ///
  /// A cancelled request passes its `CancellationError` (or whatever it threw) to the transform,
  /// which runs anyway. Paths, context, progress and yields work as for
  /// `map(_:)`.
  ///
  /// - Parameters:
  ///   - fileID: The file of the call, which identifies the transform in the path.
  ///   - line: The line of the call.
  ///   - column: The column of the call.
  ///   - transform: Makes the new value from the result.
  /// - Returns: A request with the transform's value and failure.
  public func mapResult<NewValue: Sendable, NewFailure: Error>(
    fileID: StaticString = #fileID,
    line: UInt = #line,
    column: UInt = #column,
    _ transform: @escaping @Sendable (Result<Value, Failure>) async throws(NewFailure) -> NewValue
  ) -> _MapResultOperation<Self, NewValue, NewFailure> {
    _MapResultOperation(
      base: self,
      marker: ChainCallSite(fileID, line, column)
        .marker(.mapResult, for: _MapResultOperation<Self, NewValue, NewFailure>.self),
      transform: transform
    )
  }
}

// NB: `NewValue` is `Sendable` for every use, not only stateful ones, because a conditional
// conformance to `QueryRequest` cannot depend on a `Sendable` conformance, and a query state
// needs a `Sendable` value.
/// The request behind `mapResult(_:)` and the value form
/// of `catch`.
public struct _MapResultOperation<Base: OperationRequest, NewValue: Sendable, NewFailure: Error>:
  OperationRequest
{
  /// The transformed value.
  public typealias Value = NewValue

  /// The transform's failure.
  public typealias Failure = NewFailure

  /// The request whose result is transformed.
  public let base: Base

  let marker: OperationChainPathMarker
  let transform: @Sendable (Result<Base.Value, Base.Failure>) async throws(NewFailure) -> NewValue

  init(
    base: Base,
    marker: OperationChainPathMarker,
    transform:
      @escaping @Sendable (Result<Base.Value, Base.Failure>) async throws(NewFailure) ->
      NewValue
  ) {
    self.base = base
    self.marker = marker
    self.transform = transform
  }

  /// Prepares the context with the base request's setup.
  ///
  /// - Parameter context: The context to prepare.
  public func setup(context: inout OperationContext) {
    self.base.setup(context: &context)
  }

  /// Runs the base request and transforms its result.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on; the request and the transform run on it.
  ///   - context: The context of this run.
  ///   - continuation: Receives nothing: what the base yields is dropped.
  /// - Returns: The transformed value.
  /// - Throws: The transform's failure.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, Failure>
  ) async throws(Failure) -> Value {
    let result: Result<Base.Value, Base.Failure>
    do {
      result = .success(
        try await self.base.runAsOnlyPart(isolation: isolation, in: context, with: .ignoring)
      )
    } catch {
      result = .failure(error)
    }
    return try await self.transform(result)
  }
}

extension _MapResultOperation: ChainStepCounting {
  var chainStepCount: Int {
    self.base.chainStepCount
  }
}

extension _MapResultOperation: StatefulOperationRequest, QueryRequest, _CombinedQueryRequest
where Base: StatefulOperationRequest {
  /// A query state with the transformed value and failure.
  public typealias State = QueryState<NewValue, NewFailure>

  /// The base request's path, then a marker with the place of the call.
  public var path: OperationPath {
    self.base.path.appendingChain(self.marker)
  }
}

extension _MapResultOperation: Sendable where Base: Sendable {}
