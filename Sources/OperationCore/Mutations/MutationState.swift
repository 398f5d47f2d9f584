public import IdentifiedCollections

#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// The state of a mutation: the history of its attempts, and the value, error and loading flag of
/// the latest one.
///
/// Every run of a mutation is an attempt, recorded in ``history`` with its arguments as soon as it
/// is scheduled. The state's own members follow the **latest** attempt, the last entry of the
/// history:
///
/// - ``isLoading`` is `true` while the latest attempt runs, whatever older attempts do.
/// - ``currentValue`` and ``error`` are the latest attempt's final outcome: both are `nil` while
///   it runs, and a failed attempt has no value.
/// - The counters and dates (``valueUpdateCount``, ``valueLastUpdatedAt``, ``errorUpdateCount``,
///   ``errorLastUpdatedAt``) count the results of the latest attempt, yields included. Results of
///   older attempts update only their own entry.
///
/// A value or an error set on the store directly (its `currentValue`, `setResult(to:using:)` or an
/// ``OperationController``) is kept beside the history, and whichever of the two happened last
/// wins: a direct value shows until the next attempt finishes, and an attempt that finishes after
/// it replaces it. As with queries, a direct error leaves the value alone and a direct value
/// clears the error. ``initialValue`` shows only while there is neither history nor a direct
/// value.
///
/// ```swift
/// let store = client.store(for: CreatePost())
/// try await store.mutate(with: draft)
/// store.history.last?.arguments  // draft
/// store.history.last?.status  // .result(.success(post))
/// ```
///
/// The history grows by one entry per attempt, up to the context's
/// ``OperationContext/maxHistoryLength`` (``OperationContext/defaultMaxHistoryLength``, 100, by
/// default; see ``MutationRequest/maxHistory(length:)``); the oldest entries go first, and results
/// of attempts that left the history are ignored.
///
/// > Important: The mutating members are for stores: an ``OperationStore`` calls them at the
/// > right time. Do not call them yourself.
public struct MutationState<Arguments: Sendable, Value: Sendable, Failure: Error>: Sendable {
  /// The value the state started with, shown until the first attempt or direct value.
  public let initialValue: Value?

  /// Every attempt, oldest first, including those still running.
  ///
  /// Use it to show what was tried, for example to keep a form from submitting arguments that
  /// just failed.
  public var history: IdentifiedArrayOf<HistoryEntry> {
    self.attempts
  }

  /// How many values the latest attempts yielded or returned, plus the values set directly.
  public var valueUpdateCount: Int {
    self.updates.valueCount
  }

  /// When a value of the latest attempt, or a value set directly, last arrived.
  public var valueLastUpdatedAt: Date? {
    self.updates.valueDate
  }

  /// How many errors the latest attempts yielded or threw, plus the errors set directly.
  public var errorUpdateCount: Int {
    self.updates.errorCount
  }

  /// When an error of the latest attempt, or an error set directly, last arrived.
  public var errorLastUpdatedAt: Date? {
    self.updates.errorDate
  }

  // NB: The members below are `@usableFromInline` so that the store's inlinable run path (see
  // `OperationStore.run`) specializes the history's bookkeeping for the caller's types: in the
  // library's generic code, each insertion into the history looked up dozens of generic types.

  /// The storage of ``history``.
  @usableFromInline var attempts = IdentifiedArrayOf<HistoryEntry>()

  /// The storage of the counters and dates.
  @usableFromInline var updates = StateUpdateCounts()

  /// The last value or error set directly, with when it was set in ``updateOrder`` terms.
  private var directResult: Ordered<Result<Value?, Failure>>?

  /// The last value set directly.
  private var directValue: Ordered<Value?>?

  /// When the latest attempt (at the time) last finished, in ``updateOrder`` terms.
  @usableFromInline var latestFinishOrder: Int?

  /// A counter that orders direct sets and finished attempts, so that "newer" does not depend on
  /// the clock (a frozen or custom clock can give two updates the same date).
  @usableFromInline var updateOrder = 0

  /// Creates a state.
  ///
  /// - Parameter initialValue: The value to show before the first attempt.
  public init(initialValue: Value? = nil) {
    self.initialValue = initialValue
  }
}

// MARK: - HistoryEntry

extension MutationState {
  /// One attempt of a mutation: its arguments, its progress and its task.
  public struct HistoryEntry: Identifiable, Sendable {
    // NB: An entry keeps its fields in a box, so that an entry is one reference wide. The history
    // drops its oldest entry for each new attempt once it is full, which moves every other entry
    // down by one: about a hundred bytes each when stored inline, eight when boxed.
    @usableFromInline var storage: Storage

    /// The arguments of the attempt.
    public var arguments: Arguments {
      self.storage.arguments
    }

    /// When the attempt was scheduled, by the clock of its context.
    public var startDate: Date {
      self.storage.startDate
    }

    /// The attempt's latest result, yielded or final; `nil` until it produces one.
    public var currentResult: Result<Value, Failure>? {
      self.storage.currentResult
    }

    /// When ``currentResult`` last changed.
    public var lastUpdatedAt: Date? {
      self.storage.lastUpdatedAt
    }

    /// ``OperationStatus/loading`` until the attempt finishes, then its final result.
    public var status: OperationStatus<Value, Failure> {
      self.storage.status
    }

    @inlinable var baseTask: OperationTask<MutationOperationValue<Value>, Failure> {
      self.storage.baseTask
    }

    @inlinable init(
      arguments: Arguments,
      startDate: Date,
      task: OperationTask<MutationOperationValue<Value>, Failure>
    ) {
      self.storage = Storage(arguments: arguments, startDate: startDate, baseTask: task)
    }

    /// The task of the attempt; awaiting it waits for this attempt alone (and starts it if the
    /// store has not).
    public var task: OperationTask<Value, Failure> {
      self.baseTask.map { $0.returnValue }
    }

    /// The identifier of the attempt's task.
    @inlinable public var id: OperationTaskIdentifier {
      self.storage.baseTask.id
    }

    @inlinable mutating func record(_ result: Result<Value, Failure>, at date: Date) {
      self.makeStorageUnique()
      self.storage.currentResult = result
      self.storage.lastUpdatedAt = date
    }

    @inlinable mutating func finish() {
      guard let currentResult = self.storage.currentResult else { return }
      self.makeStorageUnique()
      self.storage.status = .result(currentResult)
    }

    @inlinable mutating func makeStorageUnique() {
      if !isKnownUniquelyReferenced(&self.storage) {
        self.storage = self.storage.copy()
      }
    }
  }
}

extension MutationState.HistoryEntry {
  // NB: `@unchecked Sendable`: the box has value semantics. Its `var`s change only through
  // `HistoryEntry`'s mutating members, after `makeStorageUnique()`, so a box that two entries
  // share (and so possibly two threads) is never written; every field's type is `Sendable`.
  @usableFromInline
  final class Storage: @unchecked Sendable {
    @usableFromInline let arguments: Arguments
    @usableFromInline let startDate: Date
    @usableFromInline let baseTask: OperationTask<MutationOperationValue<Value>, Failure>
    @usableFromInline var currentResult: Result<Value, Failure>?
    @usableFromInline var lastUpdatedAt: Date?
    @usableFromInline var status = OperationStatus<Value, Failure>.loading

    @inlinable init(
      arguments: Arguments,
      startDate: Date,
      baseTask: OperationTask<MutationOperationValue<Value>, Failure>
    ) {
      self.arguments = arguments
      self.startDate = startDate
      self.baseTask = baseTask
    }

    @inlinable func copy() -> Storage {
      let copy = Storage(
        arguments: self.arguments,
        startDate: self.startDate,
        baseTask: self.baseTask
      )
      copy.currentResult = self.currentResult
      copy.lastUpdatedAt = self.lastUpdatedAt
      copy.status = self.status
      return copy
    }
  }
}

// MARK: - _MutationStateProtocol

/// The state of a mutation; lets ``OperationStore`` offer `mutate` for mutations and their
/// wrappers.
public protocol _MutationStateProtocol<Arguments, Value, Failure>: OperationState
where OperationValue == MutationOperationValue<Value>, StatusValue == Value {
  /// The type of the input of a mutation run.
  associatedtype Arguments: Sendable

  /// The type of value a mutation run returns.
  associatedtype Value: Sendable

  /// Every attempt of the mutation, oldest first.
  var history: IdentifiedArrayOf<MutationState<Arguments, Value, Failure>.HistoryEntry> { get }
}

extension MutationState: _MutationStateProtocol {
  /// The type of value observers see: optional, since a mutation may have no value yet.
  public typealias StateValue = Value?
  /// The type of value a mutation run produces, wrapped.
  public typealias OperationValue = MutationOperationValue<Value>
  /// The type of value of a successful status.
  public typealias StatusValue = Value

  /// The latest attempt's value once it finished, or a newer value set directly.
  ///
  /// `nil` while the latest attempt runs or after it failed, unless a value was set directly
  /// after the previous attempt finished. ``initialValue`` while there is neither history nor a
  /// value set directly.
  public var currentValue: Value? {
    if let directValue, directValue.order > self.latestFinishOrder ?? -1 {
      return directValue.value
    }
    guard let latest = self.latestEntry else { return self.initialValue }
    return latest.status.resultValue
  }

  /// The latest attempt's error once it finished, or a newer error set directly.
  ///
  /// A value set directly after the latest attempt finished clears the error.
  public var error: Failure? {
    if let directResult, directResult.order > self.latestFinishOrder ?? -1 {
      guard case .failure(let error) = directResult.value else { return nil }
      return error
    }
    return self.latestEntry?.status.resultError
  }

  /// Whether the latest attempt is scheduled or running.
  public var isLoading: Bool {
    self.latestEntry?.status.isLoading ?? false
  }

  /// Adds an attempt to ``history`` with the task's arguments, or the latest attempt's when the
  /// task has none, and trims the history to the context's
  /// ``OperationContext/maxHistoryLength``.
  ///
  /// With neither, the state reports the `mutationWithNoArgumentsOrHistory` warning, adds nothing,
  /// and swaps the task for one that fails with ``MutationArgumentsMissingError`` without running
  /// the mutation (so no retries or delays either).
  ///
  /// > Note: Upstream swift-operation traps when such a task runs; see
  /// > ``MutationArgumentsMissingError`` for the failure types that can report the error instead.
  ///
  /// - Parameter task: The task, which gets the arguments in its context.
  @inlinable
  public mutating func scheduleFetchTask(
    _ task: inout OperationTask<MutationOperationValue<Value>, Failure>
  ) {
    let arguments =
      task.context.mutationArguments(as: Arguments.self) ?? self.latestEntry?.arguments
    guard let arguments else {
      Self.refuseWithoutArguments(&task)
      return
    }
    task.context.setMutationArguments(arguments)
    let entry = HistoryEntry(
      arguments: arguments,
      startDate: task.context.operationClock.now(),
      task: task
    )
    self.attempts.append(entry)
    let overflow = self.attempts.endIndex - max(task.context.maxHistoryLength, 1)
    if overflow > 0 {
      self.attempts.removeFirst(overflow)
    }
  }

  /// Reports a task that has no arguments and swaps it for one that fails.
  @usableFromInline
  static func refuseWithoutArguments(
    _ task: inout OperationTask<MutationOperationValue<Value>, Failure>
  ) {
    reportWarning(.mutationWithNoArgumentsOrHistory)
    task.context.isMissingMutationArgumentsReported = true
    if let failure = MutationArgumentsMissingError() as? Failure {
      task = OperationTask(context: task.context) {
        (_, _) async throws(Failure) -> MutationOperationValue<Value> in
        throw failure
      }
    }
  }

  /// Clears the history, the values and errors set directly, the counters and the dates.
  ///
  /// - Parameter context: The context of the reset.
  /// - Returns: An effect that cancels the tasks of every attempt in the history.
  public mutating func reset(using context: OperationContext) -> ResetEffect {
    let tasks = self.attempts.map(\.baseTask)
    self = MutationState(initialValue: self.initialValue)
    return ResetEffect(tasksToCancel: tasks)
  }

  /// Records a value or an error set directly, time-stamped by the context's clock.
  ///
  /// - Parameters:
  ///   - result: The value or error.
  ///   - context: The context of the update.
  public mutating func update(
    with result: Result<Value?, Failure>,
    using context: OperationContext
  ) {
    let date = context.operationClock.now()
    let order = self.nextOrder()
    self.directResult = Ordered(value: result, order: order)
    switch result {
    case .success(let value):
      self.directValue = Ordered(value: value, order: order)
      self.updates.record(isSuccess: true, at: date)
    case .failure:
      self.updates.record(isSuccess: false, at: date)
    }
  }

  /// Records a result of an attempt in its history entry, time-stamped by the clock of the task's
  /// context; results of the latest attempt also count in the state's counters and dates.
  ///
  /// Results of attempts that are no longer in the history are ignored.
  ///
  /// - Parameters:
  ///   - result: The value or error.
  ///   - task: The attempt's task.
  @inlinable
  public mutating func update(
    with result: Result<MutationOperationValue<Value>, Failure>,
    for task: OperationTask<MutationOperationValue<Value>, Failure>
  ) {
    guard let index = self.historyIndex(of: task.id) else { return }
    let date = task.context.operationClock.now()
    self.attempts[index].record(result.map { $0.returnValue }, at: date)
    guard index == self.attempts.endIndex - 1 else { return }
    switch result {
    case .success: self.updates.record(isSuccess: true, at: date)
    case .failure: self.updates.record(isSuccess: false, at: date)
    }
  }

  /// Marks an attempt as finished with its latest result.
  ///
  /// - Parameter task: The attempt's task.
  @inlinable
  public mutating func finishFetchTask(
    _ task: OperationTask<MutationOperationValue<Value>, Failure>
  ) {
    guard let index = self.historyIndex(of: task.id) else { return }
    self.attempts[index].finish()
    if index == self.attempts.endIndex - 1 {
      self.latestFinishOrder = self.nextOrder()
    }
  }

  /// The latest attempt.
  ///
  /// `IdentifiedArray` leaves `count` and `last` to the generic defaults of `Collection`, which
  /// cost thousands of instructions in the store's generic code; its `endIndex` is the count.
  @inlinable var latestEntry: HistoryEntry? {
    let end = self.attempts.endIndex
    return end > 0 ? self.attempts[end - 1] : nil
  }

  /// The position of an attempt in the history.
  ///
  /// Results and ends arrive mostly for the latest attempt, so it is checked before the history
  /// is searched: a lookup by id in the history's generic code costs several times more.
  @inlinable func historyIndex(of id: OperationTaskIdentifier) -> Int? {
    let lastIndex = self.attempts.endIndex - 1
    if lastIndex >= 0, self.attempts[lastIndex].id == id {
      return lastIndex
    }
    return self.attempts.index(id: id)
  }

  @inlinable mutating func nextOrder() -> Int {
    self.updateOrder += 1
    return self.updateOrder
  }
}

extension MutationState: DefaultableOperationState {
  /// The type of value shown in place of a missing value.
  public typealias DefaultStateValue = Value
}

extension DefaultOperationState: _MutationStateProtocol where Base: _MutationStateProtocol {
  /// The type of the base mutation's arguments.
  public typealias Arguments = Base.Arguments

  /// Every attempt of the base mutation, oldest first.
  public var history:
    IdentifiedArrayOf<
      MutationState<Base.Arguments, Base.Value, Base.Failure>
        .HistoryEntry
    >
  {
    self.base.history
  }
}

/// A value with its place in a ``MutationState``'s order of updates.
private struct Ordered<Value: Sendable>: Sendable {
  let value: Value
  let order: Int
}
