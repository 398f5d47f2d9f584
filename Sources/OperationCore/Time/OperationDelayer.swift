/// Something that waits for a duration, such as the pause between two retries.
///
/// Modifiers read ``OperationContext/operationDelayer`` instead of sleeping, so tests can inject
/// a delayer that returns at once (``NoDelayer``) or records what it was asked for (the
/// `RecordingDelayer` of `OperationTestSupport`).
public protocol OperationDelayer {
  /// Waits for a duration.
  ///
  /// - Parameter duration: How long to wait.
  /// - Throws: `CancellationError` when the waiting task is cancelled.
  func delay(for duration: OperationDuration) async throws
}

extension OperationDelayer {
  /// Waits for a Swift `Duration`.
  ///
  /// - Parameter duration: How long to wait.
  /// - Throws: `CancellationError` when the waiting task is cancelled.
  public func delay(for duration: Duration) async throws {
    try await self.delay(for: OperationDuration(duration: duration))
  }
}

// MARK: - TaskSleepDelayer

/// A delayer that calls `Task.sleep(for:)`.
public struct TaskSleepDelayer: OperationDelayer, Sendable {
  /// Creates a delayer that sleeps the current task.
  public init() {}

  /// Sleeps the current task.
  ///
  /// - Parameter duration: How long to sleep.
  /// - Throws: `CancellationError` when the task is cancelled.
  public func delay(for duration: OperationDuration) async throws {
    try await Task.sleep(for: Duration(duration: duration))
  }
}

extension OperationDelayer where Self == TaskSleepDelayer {
  /// A delayer that calls `Task.sleep(for:)`.
  public static var taskSleep: Self { TaskSleepDelayer() }
}

// MARK: - ClockDelayer

/// A delayer that sleeps on a `Clock`.
public struct ClockDelayer<C: Clock>: OperationDelayer where C.Duration == Duration {
  /// The clock to sleep on.
  public let clock: C

  /// Creates a delayer that sleeps on a clock.
  ///
  /// - Parameter clock: The clock to sleep on.
  public init(clock: C) {
    self.clock = clock
  }

  /// Creates a delayer that sleeps on a clock.
  ///
  /// - Parameter clock: The clock to sleep on.
  public init(_ clock: C) {
    self.clock = clock
  }

  /// Sleeps on ``clock``.
  ///
  /// - Parameter duration: How long to sleep.
  /// - Throws: `CancellationError` when the task is cancelled.
  public func delay(for duration: OperationDuration) async throws {
    try await self.clock.sleep(for: Duration(duration: duration))
  }
}

extension ClockDelayer: Sendable where C: Sendable {}

extension OperationDelayer {
  /// A delayer that sleeps on a clock.
  ///
  /// - Parameter clock: The clock to sleep on.
  /// - Returns: A ``ClockDelayer``.
  public static func clock<C: Clock>(_ clock: C) -> Self where Self == ClockDelayer<C> {
    ClockDelayer(clock: clock)
  }
}

// MARK: - NoDelayer

/// A delayer that returns at once, throwing only when the task is cancelled.
public struct NoDelayer: OperationDelayer, Hashable, Sendable {
  /// Creates a delayer that does not wait.
  public init() {}

  /// Returns at once.
  ///
  /// - Parameter duration: Ignored.
  /// - Throws: `CancellationError` when the task is cancelled.
  public func delay(for duration: OperationDuration) async throws {
    try Task.checkCancellation()
  }
}

extension OperationDelayer where Self == NoDelayer {
  /// A delayer that returns at once, throwing only when the task is cancelled.
  public static var noDelay: Self { NoDelayer() }
}

// MARK: - AnySendableDelayer

/// A type-erased, sendable delayer.
public struct AnySendableDelayer: OperationDelayer, Sendable {
  /// The erased delayer.
  public let base: any OperationDelayer & Sendable

  /// Erases a delayer.
  ///
  /// - Parameter base: The delayer to erase.
  public init(_ base: any OperationDelayer & Sendable) {
    self.base = base
  }

  /// Waits with the erased delayer.
  ///
  /// - Parameter duration: How long to wait.
  /// - Throws: What the erased delayer throws.
  public func delay(for duration: OperationDuration) async throws {
    try await self.base.delay(for: duration)
  }
}

// MARK: - Context

extension OperationContext {
  /// The delayer that retries wait with between attempts.
  ///
  /// The default sleeps on `ContinuousClock`. Set it with the ``OperationRequest/delayer(_:)``
  /// modifier.
  public var operationDelayer: any OperationDelayer & Sendable {
    get { self[OperationDelayerKey.self] }
    set { self[OperationDelayerKey.self] = newValue }
  }

  private enum OperationDelayerKey: Key {
    static var defaultValue: any OperationDelayer & Sendable {
      ClockDelayer(clock: ContinuousClock())
    }
  }
}
