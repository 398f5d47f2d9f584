#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension OperationClient {
  /// The most stores, the most bytes of values, and the longest idle time of the stores that a
  /// ``DefaultStoreCache`` keeps.
  ///
  /// Past a limit, the cache evicts the least recently used stores that nothing observes (no
  /// subscriber and no run in flight) until it is within its limits again. A store is used when
  /// the client hands it out (`store(for:)` finds or creates it) and when it joins the client.
  /// Observed stores are never evicted, so a cache whose stores are all observed may stay above
  /// its limits until some are not.
  ///
  /// An evicted store counts as collected (``OperationStore/isCollected``): it keeps working for
  /// whoever holds it, rejoins the client when it gains a subscriber, and the next `store(for:)`
  /// of its path creates a new store. Instruments see ``OperationInstrumentEvent/evicted``.
  ///
  /// ```swift
  /// let cache = OperationClient.DefaultStoreCache(
  ///   limits: OperationClient.StoreLimits(maxStoreCount: 10_000, maxByteCount: 64 << 20)
  /// )
  /// ```
  public struct StoreLimits: Sendable {
    /// The most stores to keep; `nil` for no limit.
    public var maxStoreCount: Int?

    /// The most bytes of values to keep, as ``estimatedByteCount`` measures them; `nil` for no
    /// limit.
    public var maxByteCount: Int?

    /// How long a store may go unused before the cache evicts it, if it is unobserved then;
    /// `nil` for no limit.
    ///
    /// One timer per cache, on the cache's clock and delayer, evicts such stores when the least
    /// recently used one reaches this age, so that a server with many short-lived keys has no
    /// timer per store. An observed store that reaches the age counts as used again.
    public var maxIdleAge: OperationDuration?

    /// Estimates the size of a store's current value, in bytes; a store's size is measured when
    /// it joins the cache and each time it records a value.
    public var estimatedByteCount: @Sendable (any Sendable) -> Int

    /// Creates limits.
    ///
    /// - Parameters:
    ///   - maxStoreCount: The most stores to keep; `nil` for no limit.
    ///   - maxByteCount: The most bytes of values to keep; `nil` for no limit.
    ///   - maxIdleAge: How long an unobserved store may go unused; `nil` for no limit.
    ///   - estimatedByteCount: Estimates the size of a value; by default
    ///     ``defaultEstimatedByteCount(of:)``.
    public init(
      maxStoreCount: Int? = nil,
      maxByteCount: Int? = nil,
      maxIdleAge: OperationDuration? = nil,
      estimatedByteCount: @escaping @Sendable (any Sendable) -> Int = Self
        .defaultEstimatedByteCount(of:)
    ) {
      precondition(maxStoreCount.map { $0 >= 0 } ?? true, "maxStoreCount must not be negative")
      precondition(maxByteCount.map { $0 >= 0 } ?? true, "maxByteCount must not be negative")
      self.maxStoreCount = maxStoreCount
      self.maxByteCount = maxByteCount
      self.maxIdleAge = maxIdleAge
      self.estimatedByteCount = estimatedByteCount
    }

    /// The size of a value when it says it (``OperationByteCountEstimating``), is `Data`, a
    /// string (its UTF-8 bytes) or an array of bytes; for any other value, the size of its type's
    /// inline layout. An optional is measured by what it wraps, and `nil` is 0.
    ///
    /// - Parameter value: The value.
    /// - Returns: Its estimated size in bytes.
    public static func defaultEstimatedByteCount(of value: any Sendable) -> Int {
      byteCountEstimate(of: value)
    }
  }
}

/// A value that can tell how many bytes it takes, for the byte limit of
/// ``OperationClient/StoreLimits``.
public protocol OperationByteCountEstimating {
  /// The value's estimated size in bytes, including what it refers to.
  var estimatedByteCount: Int { get }
}

private func byteCountEstimate(of value: Any) -> Int {
  switch value {
  case let optional as any OptionalByteCounting: return optional.wrappedByteCount
  case let value as any OperationByteCountEstimating: return value.estimatedByteCount
  case let data as Data: return data.count
  case let string as String: return string.utf8.count
  case let bytes as [UInt8]: return bytes.count
  default: return inlineSize(of: value)
  }
}

/// An optional, whose size is that of its wrapped value.
private protocol OptionalByteCounting {
  /// The size of the wrapped value, or 0 for `nil`.
  var wrappedByteCount: Int { get }
}

extension Optional: OptionalByteCounting {
  fileprivate var wrappedByteCount: Int {
    self.map { byteCountEstimate(of: $0) } ?? 0
  }
}

private func inlineSize<Value>(of _: Value) -> Int {
  MemoryLayout<Value>.size
}
