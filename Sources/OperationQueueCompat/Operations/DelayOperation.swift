public import Foundation
import OperationCore
import OperationSynchronization

/// An operation that finishes after an interval, or at a date, without error:
/// danthorpe/Operations' `DelayOperation`.
///
/// ```swift
/// let pause = DelayOperation(interval: 2)
/// pause.then(do: refresh)
/// queue.addOperations([pause, refresh], waitUntilFinished: false)
/// ```
///
/// The wait goes through the operation's ``ConcurrentOperation/context``: its
/// `operationDelayer` waits and its `operationClock` tells whether a date has passed, so tests
/// inject a `ManualDelayer` and a `ManualOperationClock` instead of waiting. An interval of zero
/// or less, or a date that has passed, finishes at once. Cancelling stops the wait and finishes
/// the operation.
///
/// Differences from Operations 2.x: no `leeway`; the date is checked when the operation
/// executes, against the context's clock.
open class DelayOperation: ConcurrentOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance. `delay` is a `let` of a
  // `Sendable` enum and `waiting` is a `Lock` used only through `withLock`, with no user code
  // inside.
  private let delay: Delay
  private let waiting = Lock(Waiting.idle)

  /// Creates an operation that waits for an interval.
  ///
  /// Its name is `"Delay for <interval> seconds"`.
  ///
  /// - Parameter interval: The wait in seconds; zero or less finishes at once.
  public init(interval: TimeInterval) {
    self.delay = .interval(interval)
    super.init()
    self.name = "Delay for \(interval) seconds"
  }

  /// Creates an operation that waits for a duration (a `WaitStrategy`'s, say).
  ///
  /// Its name is `"Delay for <seconds> seconds"`.
  ///
  /// - Parameter duration: The wait; zero or less finishes at once.
  public convenience init(duration: OperationDuration) {
    self.init(interval: duration.timeInterval)
  }

  /// Creates an operation that waits until a date.
  ///
  /// Its name is `"Delay until <date>"`.
  ///
  /// - Parameter date: When it finishes; a date that has passed when it executes finishes it at
  ///   once.
  public init(date: Date) {
    self.delay = .date(date)
    super.init()
    self.name = "Delay until \(date)"
  }

  /// Waits, then finishes.
  open override func execute() {
    let context = self.context
    let interval =
      switch self.delay {
      case .interval(let interval): interval
      case .date(let date): date.timeIntervalSince(context.operationClock.now())
      }
    guard interval > 0 else {
      self.finish()
      return
    }
    let delayer = context.operationDelayer
    let task = Task { [self] in
      try? await delayer.delay(for: .seconds(interval))
      self.finish()
    }
    let isCancelled = self.waiting.withLock { waiting in
      guard case .idle = waiting else { return true }
      waiting = .waiting(task)
      return false
    }
    if isCancelled {
      task.cancel()
      self.finish()
    }
  }

  /// Cancels the operation; a wait in progress stops and the operation finishes.
  open override func cancel() {
    let task = self.waiting.withLock { waiting -> Task<Void, Never>? in
      defer { waiting = .cancelled }
      if case .waiting(let task) = waiting { return task }
      return nil
    }
    super.cancel()
    if let task {
      task.cancel()
      self.finish()
    }
  }

  private enum Delay {
    case interval(TimeInterval)
    case date(Date)
  }

  private enum Waiting {
    case idle
    case waiting(Task<Void, Never>)
    case cancelled
  }
}

extension OperationDuration {
  /// The duration in seconds.
  var timeInterval: TimeInterval {
    let (seconds, attoseconds) = self.components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
