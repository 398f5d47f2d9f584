import Foundation
import OperationSynchronization

/// A ``ConcurrentOperation`` that runs an `OperationRequest` (or a store's operation): the bridge
/// from this package's requests to `OperationQueue` code.
///
/// ```swift
/// let fetch = RequestOperation(UserRequest(id: 1).retry(limit: 3))
/// let show = BlockMapOperation<User, String> { result in result.map(\.name) }
/// fetch.passesResult(to: show).enqueue(on: queue)
/// ```
///
/// It produces the request's result as its ``output`` (PeakOperation's `ProducesResult`), and
/// a failure is also its ``ConcurrentOperation/errors`` (Operations' convention), so
/// `NoFailedDependenciesCondition` and ``Foundation/Operation/untilFinished()`` see it.
/// Cancelling the operation cancels the request's task; the output is then
/// `.failure(CancellationError())` and the operation finishes cancelled, without an error.
///
/// The request runs with the operation's ``ConcurrentOperation/context`` (set it before the
/// queue starts the operation) and without an actor of its own, which is why it must be
/// `Sendable`. Run it through a store (``init(store:)``) to share the store's state, cache and
/// deduplication with the rest of the app.
public final class RequestOperation<Value: Sendable>: ConcurrentOperation, ProducesResult,
  @unchecked Sendable
{
  // NB: `@unchecked Sendable` restates the superclass's conformance; `body` is a `let` of a
  // `Sendable` closure, and `state` is read and written only inside `withLock`.
  private let body: @Sendable (OperationContext) async throws -> Value
  private let state = Lock(State())

  private struct State {
    var output: Result<Value, any Error> = .failure(ResultError.noResult)
    var task: Task<Void, Never>?
  }

  /// Creates an operation that runs a request.
  ///
  /// - Parameter request: The request.
  public init<Request: OperationRequest & Sendable>(_ request: Request)
  where Request.Value == Value {
    self.body = { context in
      try await request.run(
        isolation: nil,
        in: context,
        with: OperationContinuation { _, _ in }
      )
    }
    super.init()
    self.name = request._debugTypeName
  }

  /// Creates an operation that runs a store's operation, sharing its state, deduplication and
  /// cache.
  ///
  /// - Parameter store: The store.
  public init<State: OperationState>(store: OperationStore<State>)
  where State.OperationValue == Value {
    self.body = { _ in try await store.run() }
    super.init()
    self.name = "\(store.path)"
  }

  /// The request's result: `.failure(ResultError.noResult)` until it returns.
  public var output: Result<Value, any Error> {
    get { self.state.withLock { $0.output } }
    set { self.state.withLock { $0.output = newValue } }
  }

  /// Runs the request in a task; finishes when it returns.
  public override func execute() {
    let context = self.context
    let body = self.body
    self.state.withLock { state in
      state.task = Task {
        let result = await Result { try await body(context) }
        self.output = result
        switch result {
        case .success:
          self.finish()
        case .failure(let error):
          self.finish(self.isCancelled && error is CancellationError ? [] : [error])
        }
      }
    }
  }

  /// Cancels the operation and the request's task.
  public override func cancel() {
    super.cancel()
    self.state.withLock { $0.task }?.cancel()
  }
}

extension Result where Failure == any Error {
  /// Catches an async body's error.
  fileprivate init(catching body: () async throws -> Success) async {
    do {
      self = .success(try await body())
    } catch {
      self = .failure(error)
    }
  }
}
