#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Two counts per second over a sliding window of whole seconds: what a ``RetryBudget`` (first
/// attempts and retries) and a ``CircuitBreaker`` (calls and failures) remember.
///
/// A ring of one bucket per second of the window; a bucket from an older second is reset when its
/// slot comes round again, so memory and the cost of a total stay proportional to the window.
struct WindowCounts: Sendable {
  private struct Bucket: Sendable {
    /// The second, since 1970, that the bucket counts.
    var time = Int64.min
    var first = 0
    var second = 0
  }

  /// The window's length in seconds, at least one.
  let seconds: Int
  private var buckets: [Bucket]

  /// The longest window: the counts keep a bucket per second of it, and total them on every
  /// call, so a day's window would cost 86,400 buckets a call.
  static let maximum = OperationDuration.seconds(3_600)

  /// Creates empty counts over `window`, rounded up to whole seconds.
  ///
  /// - Precondition: `window` is at most ``maximum``.
  init(window: OperationDuration) {
    precondition(
      window <= Self.maximum,
      "A retry budget's or a circuit breaker's window of \(window) is longer than an hour."
    )
    self.seconds = max(1, Int(window.timeInterval.rounded(.up)))
    self.buckets = Array(repeating: Bucket(), count: self.seconds)
  }

  /// Adds to the counts of the second of `date`.
  mutating func add(first: Int = 0, second: Int = 0, at date: Date) {
    let now = Self.second(of: date)
    let slot = Self.slot(of: now, count: self.seconds)
    if self.buckets[slot].time != now {
      self.buckets[slot] = Bucket(time: now)
    }
    self.buckets[slot].first += first
    self.buckets[slot].second += second
  }

  /// The totals of the window that ends at `date`.
  func totals(at date: Date) -> (first: Int, second: Int) {
    let now = Self.second(of: date)
    var totals = (first: 0, second: 0)
    for bucket in self.buckets where bucket.time <= now && bucket.time > now - Int64(self.seconds) {
      totals.first += bucket.first
      totals.second += bucket.second
    }
    return totals
  }

  /// Forgets every count.
  mutating func reset() {
    self.buckets = Array(repeating: Bucket(), count: self.seconds)
  }

  private static func second(of date: Date) -> Int64 {
    Int64(date.timeIntervalSince1970.rounded(.down))
  }

  private static func slot(of second: Int64, count: Int) -> Int {
    let remainder = Int(second % Int64(count))
    return remainder < 0 ? remainder + count : remainder
  }
}
