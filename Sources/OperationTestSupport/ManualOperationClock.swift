public import OperationCore
import OperationSynchronization

#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// An operation clock whose date changes only when a test changes it.
///
/// Inject it with `OperationContext.operationClock` to make the dates a store
/// records (`valueLastUpdatedAt`, `errorLastUpdatedAt`) and staleness checks deterministic:
///
/// ```swift
/// let clock = ManualOperationClock()
/// let store = OperationStore.detached(query: PostQuery(id: 1), initialValue: nil)
/// store.context.operationClock = clock
///
/// try await store.fetch()
/// #expect(store.valueLastUpdatedAt == Date(timeIntervalSince1970: 0))
///
/// clock.advance(by: 60)
/// try await store.fetch()
/// #expect(store.valueLastUpdatedAt == Date(timeIntervalSince1970: 60))
/// ```
public final class ManualOperationClock: OperationClock, Sendable {
  private let current: Lock<Date>

  /// Creates a clock that reads `date` until it is changed.
  ///
  /// - Parameter date: The first date of the clock; the Unix epoch by default.
  public init(date: Date = Date(timeIntervalSince1970: 0)) {
    self.current = Lock(date)
  }

  /// The date the clock reads now; set it to jump to any date, in the past or the future.
  public var date: Date {
    get { self.current.withLock { $0 } }
    set { self.current.withLock { $0 = newValue } }
  }

  /// Moves the clock forward, or backward for a negative interval.
  ///
  /// - Parameter seconds: The number of seconds to add to ``date``.
  public func advance(by seconds: TimeInterval) {
    self.current.withLock { $0 = $0.addingTimeInterval(seconds) }
  }

  /// The clock's current ``date``.
  ///
  /// - Returns: The date the clock reads now.
  public func now() -> Date {
    self.date
  }
}

/// An operation clock that moves one second forward every time it is read.
///
/// The first call to ``now()`` returns the start date plus one second, the second call the start
/// date plus two seconds, and so on. Use it when successive readings must be distinct and
/// ordered, for example to make a later error strictly newer than an earlier value:
///
/// ```swift
/// let clock = IncrementingOperationClock()
/// clock.now()  // 1970-01-01 00:00:01
/// clock.now()  // 1970-01-01 00:00:02
/// ```
public final class IncrementingOperationClock: OperationClock, Sendable {
  private let start: Date
  private let readings = Lock(0)

  /// Creates a clock that counts seconds from `start`.
  ///
  /// - Parameter start: The date before the first reading; the Unix epoch by default.
  public init(start: Date = Date(timeIntervalSince1970: 0)) {
    self.start = start
  }

  /// Returns a date one second later than the previous reading.
  ///
  /// - Returns: The start date plus the number of readings so far, in seconds.
  public func now() -> Date {
    let count = self.readings.withLock { count in
      count += 1
      return count
    }
    return self.start.addingTimeInterval(TimeInterval(count))
  }
}
