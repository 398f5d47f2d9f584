import OperationCore

/// A request whose failure is widened to `any Error`, so that parts with different failure
/// types can be combined.
///
/// The combinators return it from their overloads for parts whose `Failure` types differ:
///
/// ```swift
/// let chain = TypedFailureQuery().then(UntypedQuery())
/// // _ThenOperation<_AnyErrorOperation<TypedFailureQuery>, _AnyErrorOperation<UntypedQuery>>
/// ```
///
/// It runs the base request unchanged, yields what the base yields, and has the base's path and
/// progress steps, so a chain of such parts finds the same store as it would with typed parts.
public struct _AnyErrorOperation<Base: OperationRequest>: OperationRequest {
  /// The base request's value.
  public typealias Value = Base.Value

  /// Any error.
  public typealias Failure = any Error

  /// The request whose failure is widened.
  public let base: Base

  init(_ base: Base) {
    self.base = base
  }

  /// The name of the base request's type.
  public var _debugTypeName: String {
    self.base._debugTypeName
  }

  /// Prepares the context with the base request.
  ///
  /// - Parameter context: The context to prepare.
  public func setup(context: inout OperationContext) {
    self.base.setup(context: &context)
  }

  /// Runs the base request and throws its error as `any Error`.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this run.
  ///   - continuation: Receives what the base request yields.
  /// - Returns: The base request's value.
  /// - Throws: The base request's error.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, any Error>
  ) async throws -> Value {
    try await self.base.run(
      isolation: isolation,
      in: context,
      with: OperationContinuation { result, context in
        continuation.yield(with: result.mapError { $0 }, using: context)
      }
    )
  }
}

extension _AnyErrorOperation: ChainStepCounting {
  var chainStepCount: Int {
    self.base.chainStepCount
  }
}

extension _AnyErrorOperation: StatefulOperationRequest, QueryRequest, _CombinedQueryRequest
where Base: StatefulOperationRequest {
  /// A query state with the base's value and any error.
  public typealias State = QueryState<Base.Value, any Error>

  /// The base request's path, so widening the failure does not change the store a part finds.
  public var path: OperationPath {
    self.base.path
  }

}

extension _AnyErrorOperation: Sendable where Base: Sendable {}
