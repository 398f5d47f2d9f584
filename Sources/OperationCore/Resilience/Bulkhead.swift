import OperationSynchronization

/// At most a number of runs at once in a scope: the others wait in order, or fail at once.
///
/// A bulkhead keeps one slow dependency from taking every connection, thread or memory of a
/// service: the runs of its scope beyond `maxConcurrent` wait for a slot in the order they
/// arrived (``WhenFull/wait``, the default), or fail with ``BulkheadFullError``
/// (``WhenFull/failFast``).
///
/// ```swift
/// let reports = Bulkhead(name: "reports", maxConcurrent: 4)
/// let request = MonthlyReport(month: 11).bulkhead(reports)
/// ```
///
/// A waiting run whose task is cancelled leaves the line at once with `CancellationError`.
public final class Bulkhead: Sendable {
  /// The bulkhead's name, in errors, events and metrics.
  public let name: String
  /// The most runs at once.
  public let maxConcurrent: Int
  /// What a run that finds every slot taken does.
  public let whenFull: WhenFull

  private struct State {
    var running = 0
    /// The ids of the waiting runs in order of arrival, from ``head``. A cancelled run's id
    /// stays until its turn, and is skipped then.
    var line = [Int]()
    var head = 0
  }

  private let state = Lock(State())
  private let waiters = Waiters<Void>()

  /// Creates a bulkhead with every slot free.
  ///
  /// - Parameters:
  ///   - name: The bulkhead's name, in errors, events and metrics.
  ///   - maxConcurrent: The most runs at once; at least one.
  ///   - whenFull: Whether a run that finds every slot taken waits (the default) or fails.
  public init(name: String, maxConcurrent: Int, whenFull: WhenFull = .wait) {
    self.name = name
    self.maxConcurrent = max(1, maxConcurrent)
    self.whenFull = whenFull
  }

  /// The runs that hold a slot now.
  public var runningCount: Int {
    self.state.withLock { $0.running }
  }

  /// The runs that wait for a slot now.
  public var waitingCount: Int {
    self.waiters.count
  }

  /// What a run that asks for a slot is told.
  enum Entry: Equatable {
    /// It holds a slot.
    case acquired
    /// It fails fast: every slot is taken.
    case refused
    /// It is in line under this id of ``Waiters``: ``wait(_:)`` waits for its turn.
    case waits(id: Int)
  }

  /// Takes a slot, or a place in line when every slot is taken.
  func enter() -> Entry {
    self.state.withLock { state in
      if state.running < self.maxConcurrent, state.head == state.line.count {
        state.running += 1
        return .acquired
      }
      guard self.whenFull == .wait else { return .refused }
      let id = self.waiters.makeID()
      state.line.append(id)
      return .waits(id: id)
    }
  }

  /// Waits for the turn of the run in line under `id`; it holds the slot from then on.
  ///
  /// - Throws: `CancellationError` when the task is cancelled while it waits.
  func wait(_ id: Int) async throws {
    try await self.waiters.wait(id)
  }

  /// Hands the slot to the first run in line whose wait was not cancelled, or frees it.
  func release() {
    while true {
      let next = self.state.withLock { state -> Int? in
        guard state.head < state.line.count else {
          state.running -= 1
          return nil
        }
        let id = state.line[state.head]
        state.head += 1
        // NB: The ids served are dropped in one go once they are half the line, so that serving
        // the line stays linear.
        if state.head * 2 > state.line.count {
          state.line.removeFirst(state.head)
          state.head = 0
        }
        return id
      }
      guard let next else { return }
      if self.waiters.resume(next, with: .success(())) { return }
    }
  }
}

/// The error of a run that a full ``Bulkhead`` under ``WhenFull/failFast`` refused.
public struct BulkheadFullError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The bulkhead's name.
  public let bulkhead: String

  /// Creates the error.
  ///
  /// - Parameter bulkhead: The bulkhead's name.
  public init(bulkhead: String) {
    self.bulkhead = bulkhead
  }

  /// A sentence such as `The bulkhead "reports" is full.`
  public var description: String {
    "The bulkhead \"\(self.bulkhead)\" is full."
  }
}

extension OperationRequest where Failure == any Error {
  /// Runs the operation in a slot of `bulkhead`: at most its `maxConcurrent` runs at once.
  ///
  /// ```swift
  /// let reports = Bulkhead(name: "reports", maxConcurrent: 4, whenFull: .failFast)
  /// let request = MonthlyReport(month: 11).bulkhead(reports)
  /// ```
  ///
  /// The slot is held for the whole of the operation's run, and freed however it ends.
  ///
  /// - Parameter bulkhead: The bulkhead, shared by the operations of its scope.
  /// - Returns: The modified operation.
  public func bulkhead(_ bulkhead: Bulkhead) -> ModifiedOperation<Self, _BulkheadModifier<Self>> {
    self.modifier(_BulkheadModifier(bulkhead: bulkhead))
  }
}

/// The modifier behind ``OperationRequest/bulkhead(_:)``.
public struct _BulkheadModifier<Operation: OperationRequest>: OperationModifier, Sendable
where Operation.Failure == any Error {
  let bulkhead: Bulkhead

  /// Takes a slot (or fails without one), runs the operation, and frees the slot.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    using operation: Operation,
    with continuation: OperationContinuation<Operation.Value, Operation.Failure>
  ) async throws -> Operation.Value {
    switch self.bulkhead.enter() {
    case .acquired:
      break
    case .refused:
      context.record(.rejectedWhenFull(policy: self.bulkhead.name))
      throw BulkheadFullError(bulkhead: self.bulkhead.name)
    case .waits(let id):
      try await self.bulkhead.wait(id)
    }
    defer { self.bulkhead.release() }
    return try await operation.run(isolation: isolation, in: context, with: continuation)
  }
}
