import OperationCore

extension OperationRequest {
  /// Throws this request's value away and keeps only whether it succeeded.
  ///
  /// This is PeakOperation's `GroupChainOperation`: a chain wrapped in a group ends with the
  /// success or failure of its last step and no value, so chains whose value types do not fit
  /// together can be joined. Nothing is aggregated: an earlier failure shows only if the chain
  /// passes it on (as `then(_:)` does).
  ///
  /// ```swift
  /// let prepare = DownloadAssets().then(UnpackAssets()).group()
  /// let launch = LoadSettings().map { settings in settings.theme }.group()
  /// let startUp = prepare.then(launch)  // launch's chain never starts if prepare failed
  /// ```
  ///
  /// A group whose input failed skips its children: join groups with `then(_:)`, which does
  /// not start the next group after a failure and ends with that failure instead. To run a
  /// group after a failure too, use `then(always:)`.
  ///
  /// Progress: a group is one step of an enclosing chain, and the chain inside it shares the
  /// group's units among its own steps, so the group's progress is its chain's progress (what
  /// PeakOperation calls collating). The group is a `QueryRequest` when the wrapped request is
  /// stateful, with the wrapped request's path followed by a
  /// ``OperationChainPathMarker/Kind/group`` marker.
  ///
  /// Cancellation: cancelling the group's task cancels the step that is running; the steps
  /// that finished keep their results, and the ones after it do not start (see `then(_:)`).
  ///
  /// - Returns: A request with no value and this request's failure.
  public func group() -> _GroupOperation<Self> {
    _GroupOperation(base: self)
  }
}

/// The request behind `group()`.
public struct _GroupOperation<Base: OperationRequest>: OperationRequest {
  /// No value: only success counts.
  public typealias Value = Void

  /// The wrapped request's failure.
  public typealias Failure = Base.Failure

  /// The wrapped request, usually the last step of a chain.
  public let base: Base

  init(base: Base) {
    self.base = base
  }

  /// Prepares the context with the wrapped request's setup.
  ///
  /// - Parameter context: The context to prepare.
  public func setup(context: inout OperationContext) {
    self.base.setup(context: &context)
  }

  /// Runs the wrapped request and throws its value away.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on; the wrapped request runs on it.
  ///   - context: The context of this run.
  ///   - continuation: Receives nothing: what the wrapped request yields is dropped.
  /// - Throws: The wrapped request's failure.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Void, Failure>
  ) async throws(Failure) {
    _ = try await self.base.runAsOnlyPart(isolation: isolation, in: context, with: .ignoring)
  }
}

extension _GroupOperation: StatefulOperationRequest, QueryRequest, _CombinedQueryRequest
where Base: StatefulOperationRequest {
  /// A query state with no value and the wrapped request's failure.
  public typealias State = QueryState<Void, Base.Failure>

  /// The wrapped request's path, then a ``OperationChainPathMarker/Kind/group`` marker.
  public var path: OperationPath {
    self.base.path.appendingChain(OperationChainPathMarker(.group))
  }
}

extension _GroupOperation: Sendable where Base: Sendable {}
