#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// A source of the current date, which stores use to time-stamp results.
///
/// Stores read ``OperationContext/operationClock`` for `valueLastUpdatedAt`,
/// `errorLastUpdatedAt` and staleness, so tests can freeze or drive time:
///
/// ```swift
/// let store = OperationStore.detached(
///   query: PostQuery(id: 1).clock(.timeFreeze(Date(timeIntervalSince1970: 0))),
///   initialValue: nil
/// )
/// ```
public protocol OperationClock {
  /// The current date according to this clock.
  func now() -> Date
}

// MARK: - SystemTimeClock

/// A clock that reads the system's wall-clock time.
public struct SystemTimeClock: OperationClock, Hashable, Sendable {
  /// Creates a system clock.
  public init() {}

  /// Reads the system clock.
  ///
  /// - Returns: The current date.
  public func now() -> Date {
    Date()
  }
}

extension OperationClock where Self == SystemTimeClock {
  /// A clock that reads the system's wall-clock time.
  public static var systemTime: Self { SystemTimeClock() }
}

// MARK: - CustomOperationClock

/// A clock whose date comes from a closure.
public struct CustomOperationClock: OperationClock, Sendable {
  private let _now: @Sendable () -> Date

  /// Creates a clock from a closure.
  ///
  /// - Parameter now: Returns the current date.
  public init(_ now: @escaping @Sendable () -> Date) {
    self._now = now
  }

  /// Calls the closure.
  ///
  /// - Returns: The date the closure returns.
  public func now() -> Date {
    self._now()
  }
}

extension OperationClock where Self == CustomOperationClock {
  /// A clock whose date comes from a closure.
  ///
  /// - Parameter now: Returns the current date.
  public static func custom(_ now: @escaping @Sendable () -> Date) -> Self {
    CustomOperationClock(now)
  }
}

// MARK: - TimeFreezeClock

/// A clock that always returns the same date.
public struct TimeFreezeClock: OperationClock, Hashable, Sendable {
  /// The date this clock returns.
  public let date: Date

  /// Creates a clock frozen at a date.
  ///
  /// - Parameter date: The date to return; the present moment by default.
  public init(date: Date = Date()) {
    self.date = date
  }

  /// Returns the frozen date.
  ///
  /// - Returns: ``date``.
  public func now() -> Date {
    self.date
  }
}

extension OperationClock where Self == TimeFreezeClock {
  /// A clock frozen at the present moment.
  public static var timeFreeze: Self { TimeFreezeClock() }

  /// A clock frozen at a date.
  ///
  /// - Parameter date: The date to return.
  public static func timeFreeze(_ date: Date) -> Self {
    TimeFreezeClock(date: date)
  }
}

extension OperationClock {
  /// A clock frozen at this clock's current date.
  ///
  /// - Returns: A ``TimeFreezeClock`` at `now()`.
  public func frozen() -> TimeFreezeClock {
    TimeFreezeClock(date: self.now())
  }
}

// MARK: - Context

extension OperationContext {
  /// The clock that time-stamps results and decides staleness.
  ///
  /// The default is ``SystemTimeClock``. Set it with the ``OperationRequest/clock(_:)`` modifier.
  public var operationClock: any OperationClock & Sendable {
    get { self[OperationClockKey.self] }
    set { self[OperationClockKey.self] = newValue }
  }

  private enum OperationClockKey: Key {
    static var defaultValue: any OperationClock & Sendable { SystemTimeClock() }
  }
}
