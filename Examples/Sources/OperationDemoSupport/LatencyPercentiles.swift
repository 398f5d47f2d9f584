/// Percentiles of a set of latencies, by the nearest-rank method: the *p*th percentile is the
/// smallest sample that at least *p*% of the samples do not exceed.
///
/// ```swift
/// let latencies = LatencyPercentiles(milliseconds: [4, 1, 3, 2])
/// latencies?.p50  // 2
/// latencies?.p99  // 4
/// ```
public struct LatencyPercentiles: Hashable, Sendable {
  /// The samples, in ascending order.
  public let sorted: [Double]

  /// Sorts the samples.
  ///
  /// - Parameter milliseconds: The latencies; at least one.
  /// - Complexity: O(*n* log *n*) for *n* samples.
  /// - Returns: `nil` when there is no sample.
  public init?(milliseconds: [Double]) {
    guard !milliseconds.isEmpty else { return nil }
    self.sorted = milliseconds.sorted()
  }

  /// The `percent`th percentile.
  ///
  /// - Parameter percent: The percentile, in 0...100; 0 gives the smallest sample.
  /// - Returns: The sample.
  public func percentile(_ percent: Double) -> Double {
    let clamped = Swift.min(Swift.max(percent, 0), 100)
    let rank = Int((clamped / 100 * Double(self.sorted.count)).rounded(.up))
    return self.sorted[Swift.min(Swift.max(rank, 1), self.sorted.count) - 1]
  }

  /// The median.
  public var p50: Double { self.percentile(50) }

  /// The 99th percentile.
  public var p99: Double { self.percentile(99) }

  /// The largest sample.
  public var largest: Double { self.sorted[self.sorted.count - 1] }

  /// The number of samples.
  public var count: Int { self.sorted.count }
}
