/// A description of a piece of asynchronous work: a value, not a running task.
///
/// Conform to a refinement such as ``QueryRequest`` to let a store manage the work's state, or to
/// `OperationRequest` itself for stateless work that you run with an ``OperationRunner``. Add
/// behaviour with modifiers:
///
/// ```swift
/// let request = SendEmail(to: address)
///   .retry(limit: 3)
///   .backoff(.exponential(.seconds(1)))
/// try await OperationRunner(operation: request).run()
/// ```
public protocol OperationRequest<Value, Failure> {
  /// The type of value the work produces.
  associatedtype Value

  /// The type of error the work throws.
  associatedtype Failure: Error

  /// The name of the request's type, used in diagnostics such as duration logs.
  var _debugTypeName: String { get }

  /// Prepares the context once, when a store or runner is created for this request.
  ///
  /// Modifiers use this to seed context values. The default does nothing.
  ///
  /// - Parameter context: The context to prepare.
  func setup(context: inout OperationContext)

  /// Runs the work.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this run.
  ///   - continuation: Receives intermediate results.
  /// - Returns: The value of the work.
  /// - Throws: The error of the work.
  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Value, Failure>
  ) async throws(Failure) -> Value
}

extension OperationRequest {
  /// Does nothing.
  ///
  /// - Parameter context: The context to prepare.
  public func setup(context: inout OperationContext) {}

  /// The name of the request's type without module prefixes, such as `PostQuery`.
  public var _debugTypeName: String {
    typeName(Self.self)
  }
}

// MARK: - StatefulOperationRequest

/// An operation whose state an ``OperationStore`` manages, found in a client by its ``path``.
///
/// The default path of a `Hashable & Sendable` request is `[self]`, and that of an `Identifiable`
/// request with a `Sendable` id is `[id]`. Write a path yourself to group requests for prefix
/// matching:
///
/// ```swift
/// var path: OperationPath { ["user-friends", self.userId] }
/// ```
public protocol StatefulOperationRequest<State>: OperationRequest
where Value: Sendable, State.OperationValue == Value, State.Failure == Failure {
  /// The type of state a store keeps for this operation.
  associatedtype State: OperationState

  /// The path that identifies this operation's store in an ``OperationClient``.
  var path: OperationPath { get }
}

extension StatefulOperationRequest where Self: Hashable & Sendable {
  /// A path whose only element is the request itself.
  public var path: OperationPath {
    OperationPath(self)
  }
}

extension StatefulOperationRequest where Self: Identifiable, ID: Sendable {
  /// A path whose only element is the request's `id`.
  public var path: OperationPath {
    OperationPath(self.id)
  }
}

extension StatefulOperationRequest where Self: Hashable & Sendable & Identifiable, ID: Sendable {
  /// A path whose only element is the request's `id`, which takes precedence over the request.
  public var path: OperationPath {
    OperationPath(self.id)
  }
}
