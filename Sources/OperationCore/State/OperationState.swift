#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// The state of an operation, which an ``OperationStore`` keeps and updates.
///
/// A state says what the operation's current value is, whether it is loading, and the last error,
/// with counters and dates for both. The store calls the mutating requirements, in this order for
/// every run:
///
/// 1. ``scheduleFetchTask(_:)`` when the run is created (the state may edit the task, for example
///    to make it wait for others);
/// 2. ``update(with:for:)`` for each yielded result and for the final result;
/// 3. ``finishFetchTask(_:)`` when the run is over.
///
/// ``update(with:using:)`` handles values set directly on the store, and ``reset(using:)``
/// returns the state to its initial values.
///
/// Dates come from ``OperationContext/operationClock``.
public protocol OperationState<StateValue, OperationValue, Failure> {
  /// What ``reset(using:)`` asks the store to do.
  typealias ResetEffect = OperationStateResetEffect<Self>

  /// The type of value that observers see, such as `Value?` for a query.
  associatedtype StateValue: Sendable

  /// The type of value a successful run returns.
  associatedtype OperationValue: Sendable

  /// The type of the successful value in the state's ``OperationStatus``.
  associatedtype StatusValue: Sendable

  /// The type of error a run throws.
  associatedtype Failure: Error

  /// The value observers see now.
  var currentValue: StateValue { get }

  /// The value the state started with.
  var initialValue: StateValue { get }

  /// How many times the value was updated.
  var valueUpdateCount: Int { get }

  /// When the value was last updated.
  var valueLastUpdatedAt: Date? { get }

  /// Whether a run is scheduled or running, even one that has not started yet.
  var isLoading: Bool { get }

  /// The last error, cleared by the next success.
  var error: Failure? { get }

  /// How many times an error was received; clearing the error does not count.
  var errorUpdateCount: Int { get }

  /// When an error was last received.
  var errorLastUpdatedAt: Date? { get }

  /// Records a task that the store is about to run.
  ///
  /// - Parameter task: The task; the state may edit its context or dependencies.
  mutating func scheduleFetchTask(_ task: inout OperationTask<OperationValue, Failure>)

  /// Restores the initial values.
  ///
  /// - Parameter context: The context of the reset.
  /// - Returns: The tasks for the store to cancel; the state must not cancel them itself.
  mutating func reset(using context: OperationContext) -> ResetEffect

  /// Applies a result set directly on the store, for example through its `currentValue`.
  ///
  /// - Parameters:
  ///   - result: The value or error.
  ///   - context: The context of the update.
  mutating func update(with result: Result<StateValue, Failure>, using context: OperationContext)

  /// Applies a result of a run, yielded or final.
  ///
  /// - Parameters:
  ///   - result: The value or error.
  ///   - task: The running task; its context holds
  ///     ``OperationContext/operationResultUpdateReason``.
  mutating func update(
    with result: Result<OperationValue, Failure>,
    for task: OperationTask<OperationValue, Failure>
  )

  /// Removes a task whose run is over.
  ///
  /// - Parameter task: The task.
  mutating func finishFetchTask(_ task: OperationTask<OperationValue, Failure>)
}

/// What an ``OperationState`` asks its store to do after a reset.
public struct OperationStateResetEffect<State: OperationState>: Sendable {
  /// Cancels the tasks that were in flight when the state was reset.
  public let tasksCancellable: OperationSubscription

  /// Creates an effect from a subscription whose cancellation cancels the tasks.
  ///
  /// - Parameter tasksCancellable: The subscription.
  public init(tasksCancellable: OperationSubscription) {
    self.tasksCancellable = tasksCancellable
  }

  /// Creates an effect that cancels the given tasks.
  ///
  /// - Parameter tasksToCancel: The tasks.
  public init(tasksToCancel: some Sequence<OperationTask<State.OperationValue, State.Failure>>) {
    let tasks = Array(tasksToCancel)
    self.tasksCancellable = OperationSubscription {
      for task in tasks {
        task.cancel()
      }
    }
  }
}
