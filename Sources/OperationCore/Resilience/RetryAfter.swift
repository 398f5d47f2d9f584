#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// An error that says how long to wait before the request is tried again, as an HTTP 429 or 503
/// response does with its `Retry-After` header.
///
/// A backoff function made with ``OperationBackoffFunction/honoringRetryAfter(atMost:)`` waits
/// exactly ``retryAfter`` before the next attempt (up to its maximum), and its own curve for other
/// errors:
///
/// ```swift
/// struct HTTPStatusError: RetryAfterProviding {
///   let status: Int
///   let retryAfter: OperationDuration?
/// }
///
/// let request = Invoice(id: 7)
///   .retry(limit: 3)
///   .backoff(.exponential(.seconds(1)).honoringRetryAfter(atMost: .seconds(60)))
/// ```
///
/// ``OperationDuration/init(retryAfterHeader:now:)`` reads the header's value.
public protocol RetryAfterProviding: Error {
  /// How long to wait before the next attempt; `nil` when the failure does not say.
  var retryAfter: OperationDuration? { get }
}

extension OperationBackoffFunction {
  /// This function, except after a failure that says how long to wait (``RetryAfterProviding``):
  /// then the wait is what the failure says, but never longer than `maximum`.
  ///
  /// ```swift
  /// let backoff = OperationBackoffFunction.exponential(.seconds(1))
  ///   .honoringRetryAfter(atMost: .seconds(60))
  /// backoff(1, after: HTTPStatusError(status: 429, retryAfter: .seconds(7)))  // 7 seconds
  /// backoff(1, after: URLError(.timedOut))  // 1 second
  /// ```
  ///
  /// A negative `Retry-After` waits for nothing. The maximum keeps a server's answer (or a
  /// date header from a skewed clock) from parking a run for hours.
  ///
  /// - Parameter maximum: The longest wait a failure can ask for.
  /// - Returns: The backoff function.
  public func honoringRetryAfter(atMost maximum: OperationDuration) -> Self {
    self.transformed("\(self.rawDescription), honoring Retry-After up to \(maximum)") {
      base,
      _,
      error in
      guard let asked = (error as? any RetryAfterProviding)?.retryAfter else { return base }
      return max(.zero, min(asked, maximum))
    }
  }
}

extension OperationDuration {
  /// The wait that an HTTP `Retry-After` header's value asks for, or `nil` when the value is
  /// neither form of RFC 9110: a number of seconds (`120`) or an HTTP date
  /// (`Wed, 21 Oct 2015 07:28:00 GMT`), which counts from `now`.
  ///
  /// ```swift
  /// OperationDuration(retryAfterHeader: "7", now: Date())  // 7 seconds
  /// ```
  ///
  /// A date in the past gives a wait of zero.
  ///
  /// - Parameters:
  ///   - value: The header's value.
  ///   - now: The moment the response arrived, for a date; the context's clock reads it.
  public init?(retryAfterHeader value: String, now: Date) {
    let value = String(
      value.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
    )
    if let seconds = Int64(value), seconds >= 0 {
      self = .seconds(seconds)
    } else if let date = HTTPDate.parse(value) {
      self = .seconds(max(0, date.timeIntervalSince(now)))
    } else {
      return nil
    }
  }
}

/// Reads the IMF-fixdate form of an HTTP date, the one RFC 9110 says senders use.
enum HTTPDate {
  private static let months = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]

  /// The date of `Sun, 06 Nov 1994 08:49:37 GMT`, or `nil` for any other shape.
  static func parse(_ text: String) -> Date? {
    let parts = text.split(separator: " ")
    guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
      let day = Int(parts[1]), (1...31).contains(day),
      let monthIndex = Self.months.firstIndex(of: String(parts[2])),
      // NB: Years past 9999 are not HTTP dates, and a year of twelve digits would overflow the
      // seconds below: a header must never crash the client.
      let year = Int(parts[3]), (1970...9999).contains(year)
    else { return nil }
    let time = parts[4].split(separator: ":").compactMap { Int($0) }
    guard time.count == 3, (0..<24).contains(time[0]), (0..<60).contains(time[1]),
      (0...60).contains(time[2])
    else { return nil }
    let days = Self.daysSinceEpoch(year: year, month: monthIndex + 1, day: day)
    let seconds = days * 86_400 + time[0] * 3_600 + time[1] * 60 + time[2]
    return Date(timeIntervalSince1970: TimeInterval(seconds))
  }

  /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
  private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = shiftedYear / 400
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }
}
