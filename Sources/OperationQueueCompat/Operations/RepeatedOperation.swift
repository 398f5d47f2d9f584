public import Foundation
import OperationCore
import OperationSynchronization

/// The next run of a ``RepeatedOperation`` or ``RetryOperation``: the operation, and how long to
/// wait before it (Operations 3's `RepeatedPayload`; 2.x used a `(Delay?, T)` tuple).
public struct RepeatedPayload<T: Foundation.Operation>: Sendable {
  /// How long to wait before the operation runs; zero or less for no wait.
  public var wait: OperationDuration

  /// The operation to run.
  public var operation: T

  /// Creates a payload.
  ///
  /// - Parameters:
  ///   - wait: How long to wait before the operation runs; none by default.
  ///   - operation: The operation to run.
  public init(wait: OperationDuration = .zero, operation: T) {
    self.wait = wait
    self.operation = operation
  }
}

/// A group that runs operations one after another, adding the next one every time the current
/// one finishes, until its generator runs out or it has run `maxCount` of them:
/// danthorpe/Operations' `RepeatedOperation`.
///
/// ```swift
/// let poll = RepeatedOperation(maxCount: 10, wait: .fixed(.seconds(30))) { run in
///   PollOperation(run: run)
/// }
/// queue.addOperation(poll)
/// ```
///
/// - The generator gets the run's number, from 1, and returns the operation, or `nil` to stop.
/// - Between two runs it waits the `WaitStrategy`'s wait for the run that just finished
///   (`wait(1)` after the first), with a ``DelayOperation`` child that uses the group's
///   ``ConcurrentOperation/context``, so a test's delayer sees the waits.
/// - ``count`` is the number of operations it has run (or started).
/// - It is a ``GroupOperation``: it finishes with the errors of every run
///   (``GroupOperation/aggregateErrors``), and cancelling it cancels the current run and stops.
///
/// Differences from Operations 2.x: the generator is a closure (or a sequence) instead of a
/// `GeneratorType`; waits are `WaitStrategy` values in `OperationDuration`s; subclasses
/// decide the next run by overriding ``nextPayload(after:errors:)``.
open class RepeatedOperation<T: Foundation.Operation>: GroupOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance. `maxCount` and `wait` are
  // `let`s of `Sendable` types; `generator` is a `let` of a `Sendable` closure; `repetition` is a
  // `Lock` used only through `withLock`, and no user code (the generator) runs while it is held.

  /// The most operations it runs; `nil` for no limit.
  public let maxCount: Int?

  /// The waits between two runs.
  public let wait: WaitStrategy

  private let generator: @Sendable (Int) -> T?
  private let repetition = Lock(Repetition())

  /// Creates a repeated operation from a generator of operations.
  ///
  /// - Parameters:
  ///   - maxCount: The most operations it runs; no limit by default.
  ///   - wait: The waits between two runs; none by default.
  ///   - generator: Returns the operation for a run, numbered from 1, or `nil` to stop.
  public init(
    maxCount: Int? = nil,
    wait: WaitStrategy = .none,
    _ generator: @escaping @Sendable (_ run: Int) -> T?
  ) {
    self.maxCount = maxCount
    self.wait = wait
    self.generator = generator
    super.init(operations: [])
    self.name = "Repeated<\(T.self)>"
  }

  /// Creates a repeated operation that runs the operations of a sequence in turn.
  ///
  /// - Parameters:
  ///   - maxCount: The most operations it runs; no limit by default.
  ///   - wait: The waits between two runs; none by default.
  ///   - operations: The operations, made as the sequence is iterated.
  public convenience init<S: Sequence & Sendable>(
    maxCount: Int? = nil,
    wait: WaitStrategy = .none,
    operations: S
  ) where S.Element == T {
    // NB: The sequence's `next()` runs under this lock, which guards nothing but the iterator
    // and is taken nowhere else: runs are made one at a time, and the lock orders them across
    // the threads that make them.
    let iterator = Lock(operations.makeIterator())
    self.init(maxCount: maxCount, wait: wait) { _ in
      iterator.withLock { $0.next() }
    }
  }

  /// The number of operations it has run, or started.
  public var count: Int {
    self.repetition.withLock { $0.count }
  }

  /// The payload the generator and wait strategy recommend after the current run: the next
  /// operation with the wait after run ``count``, or `nil` when the generator ran out or
  /// ``maxCount`` was reached. Each call asks the generator for a new operation.
  ///
  /// - Returns: The recommended payload.
  public func recommendedPayload() -> RepeatedPayload<T>? {
    let count = self.count
    if let maxCount, count >= maxCount {
      return nil
    }
    guard let operation = self.generator(count + 1) else { return nil }
    return RepeatedPayload(wait: count == 0 ? .zero : self.wait(count), operation: operation)
  }

  /// Decides what runs after `operation` finished with `errors`: the ``recommendedPayload()``
  /// by default, so it runs until the generator ends or ``maxCount``. Return `nil` to stop.
  ///
  /// - Parameters:
  ///   - operation: The run that finished.
  ///   - errors: Its errors.
  /// - Returns: The next run, or `nil`.
  open func nextPayload(after operation: T, errors: [any Error]) -> RepeatedPayload<T>? {
    self.recommendedPayload()
  }

  /// Starts the first run, then runs as a group.
  open override func execute() {
    if let payload = self.recommendedPayload() {
      self.add(payload)
    }
    super.execute()
  }

  /// Adds the next run when `operation` is the current one and the group was not cancelled.
  open override func willFinishOperation(_ operation: Foundation.Operation, errors: [any Error]) {
    super.willFinishOperation(operation, errors: errors)
    guard let run = operation as? T else { return }
    let isCurrent = self.repetition.withLock { repetition in
      guard repetition.current == ObjectIdentifier(run) else { return false }
      repetition.lastErrors = errors
      return true
    }
    guard isCurrent, !self.isCancelRequested else { return }
    if let payload = self.nextPayload(after: run, errors: errors), !self.isCancelRequested {
      self.add(payload)
    }
  }

  /// The errors of the last run, once it finished.
  var lastRunErrors: [any Error] {
    self.repetition.withLock { $0.lastErrors }
  }

  private func add(_ payload: RepeatedPayload<T>) {
    let operation = payload.operation
    self.repetition.withLock { repetition in
      repetition.count += 1
      repetition.current = ObjectIdentifier(operation)
    }
    if payload.wait > .zero {
      let delay = DelayOperation(duration: payload.wait)
      delay.context = self.context
      operation.addDependency(delay)
      self.addOperations([delay, operation])
    } else {
      self.addOperation(operation)
    }
  }

  private struct Repetition {
    var count = 0
    var current: ObjectIdentifier?
    var lastErrors = [any Error]()
  }
}
