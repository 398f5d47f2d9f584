public import IdentifiedCollections

#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// The state of a query: its current value, its last error, and the fetches in flight.
///
/// Each yielded or returned value replaces ``currentValue`` at once and clears ``error``.
/// ``isLoading`` is `true` while any fetch is scheduled or running.
public struct QueryState<Value: Sendable, Failure: Error>: Sendable {
  /// The current value; `nil` until the first value arrives, unless an initial value was given.
  public private(set) var currentValue: Value?

  /// The value the state started with.
  public let initialValue: Value?

  /// How many times the value was updated.
  public private(set) var valueUpdateCount = 0

  /// When the value was last updated.
  public private(set) var valueLastUpdatedAt: Date?

  /// The last error, cleared by the next value.
  public private(set) var error: Failure?

  /// How many times an error was received.
  public private(set) var errorUpdateCount = 0

  /// When an error was last received.
  public private(set) var errorLastUpdatedAt: Date?

  /// The fetches that are scheduled or running, oldest first.
  public var activeTasks: IdentifiedArrayOf<OperationTask<Value, Failure>> {
    IdentifiedArray(uniqueElements: self.tasks.entries(of: self.taskIndex))
  }

  // NB: Every fetch adds its task here and removes it when it ends. Plain arrays make that cheap
  // in the store's generic code, where an `IdentifiedArray` costs several metadata lookups per
  // call; `activeTasks` builds the `IdentifiedArray` when asked. `taskIndex` holds the ids of
  // `tasks`, so that finding a task compares integers instead of copying generic values, and
  // keeps it O(1) with thousands of fetches in flight (callers of one deduplicated run, each with
  // a fetch of its own). Ids are unique (see `scheduleFetchTask(_:)`).
  @usableFromInline var tasks = ContiguousArray<OperationTask<Value, Failure>>()
  @usableFromInline var taskIndex = TaskIndex()

  /// Creates a state.
  ///
  /// - Parameter initialValue: The value to start with.
  public init(initialValue: Value?) {
    self.currentValue = initialValue
    self.initialValue = initialValue
  }
}

// MARK: - _QueryStateProtocol

/// The state of a query; lets ``OperationStore`` offer `fetch` for queries and their wrappers.
public protocol _QueryStateProtocol<Value, Failure>: OperationState
where OperationValue == Value, StatusValue == Value {
  /// The type of value the query fetches.
  associatedtype Value: Sendable

  /// The fetches that are scheduled or running.
  var activeTasks: IdentifiedArrayOf<OperationTask<Value, Failure>> { get }
}

extension QueryState: _QueryStateProtocol {
  /// The type of value observers see: optional, since a query may have no value yet.
  public typealias StateValue = Value?
  /// The type of value a fetch returns.
  public typealias OperationValue = Value
  /// The type of value of a successful status.
  public typealias StatusValue = Value

  /// Whether a fetch is scheduled or running.
  public var isLoading: Bool {
    !self.taskIndex.isEmpty
  }

  /// Adds a fetch to ``activeTasks``.
  ///
  /// - Parameter task: The fetch.
  @inlinable
  public mutating func scheduleFetchTask(_ task: inout OperationTask<Value, Failure>) {
    guard self.taskIndex.append(task.id) else { return }
    self.tasks.append(task)
  }

  /// Restores the initial value and clears the error, the counters and the dates.
  ///
  /// - Parameter context: The context of the reset.
  /// - Returns: An effect that cancels the fetches that were active.
  public mutating func reset(using context: OperationContext) -> ResetEffect {
    let tasks = self.tasks.entries(of: self.taskIndex)
    self = QueryState(initialValue: self.initialValue)
    return ResetEffect(tasksToCancel: tasks)
  }

  /// Records a value or an error, time-stamped by the context's clock.
  ///
  /// A value replaces ``currentValue`` and clears ``error``; an error replaces ``error`` and keeps
  /// the current value.
  ///
  /// - Parameters:
  ///   - result: The value or error.
  ///   - context: The context of the update.
  public mutating func update(with result: Result<Value?, Failure>, using context: OperationContext)
  {
    switch result {
    case .success(let value): self.record(value, using: context)
    case .failure(let error): self.record(error, using: context)
    }
  }

  /// Records a result of a fetch, time-stamped by the clock of the task's context.
  ///
  /// - Parameters:
  ///   - result: The value or error.
  ///   - task: The fetch that produced the result.
  @inlinable
  public mutating func update(
    with result: Result<Value, Failure>,
    for task: OperationTask<Value, Failure>
  ) {
    // NB: Records the value or error itself rather than through `update(with:using:)`, whose
    // `Result<Value?, Failure>` would cost each fetch's result a few more metadata lookups in
    // the store's generic code.
    switch result {
    case .success(let value): self.record(value, using: task.context)
    case .failure(let error): self.record(error, using: task.context)
    }
  }

  @usableFromInline
  mutating func record(_ value: Value?, using context: OperationContext) {
    self.currentValue = value
    self.valueUpdateCount += 1
    self.valueLastUpdatedAt = context.operationClock.now()
    self.error = nil
  }

  @usableFromInline
  mutating func record(_ error: Failure, using context: OperationContext) {
    self.error = error
    self.errorUpdateCount += 1
    self.errorLastUpdatedAt = context.operationClock.now()
  }

  /// Removes a finished fetch from ``activeTasks``.
  ///
  /// - Parameter task: The fetch.
  @inlinable
  public mutating func finishFetchTask(_ task: OperationTask<Value, Failure>) {
    self.tasks.apply(self.taskIndex.remove(task.id))
  }
}

extension QueryState: DefaultableOperationState {
  /// The type of value shown in place of a missing value.
  public typealias DefaultStateValue = Value
}

extension DefaultOperationState: _QueryStateProtocol where Base: _QueryStateProtocol {
  /// The type of value the base query fetches.
  public typealias Value = Base.Value

  /// The fetches that are scheduled or running.
  public var activeTasks: IdentifiedArrayOf<OperationTask<Base.Value, Base.Failure>> {
    self.base.activeTasks
  }
}
