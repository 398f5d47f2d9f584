/// The faults the demo server injects, decided by a seeded, pure function.
///
/// A request fails with HTTP 500 when ``injectsFailure(forRequest:occurrence:)`` says so. The
/// decision depends only on the seed, the request's key (method, path and query) and how many
/// requests with that key came before it, so a run with the same seed fails the same requests in
/// the same order, however requests for different keys interleave.
///
/// ```swift
/// let plan = FaultPlan(failureRate: 0.3, latency: .milliseconds(50), seed: 7)
/// plan.injectsFailure(forRequest: "GET /posts/1", occurrence: 0)  // the same on every run
/// ```
public struct FaultPlan: Hashable, Sendable {
  /// The probability, from 0 through 1, that a request fails with HTTP 500.
  public var failureRate: Double

  /// The time the server waits before it answers each request.
  public var latency: Duration

  /// The seed of the failure decisions.
  public var seed: UInt64

  /// Creates a plan.
  ///
  /// - Parameters:
  ///   - failureRate: The probability that a request fails; clamped to 0...1 (NaN counts as 0).
  ///   - latency: The added latency; negative values count as zero.
  ///   - seed: The seed of the failure decisions.
  public init(failureRate: Double, latency: Duration, seed: UInt64) {
    self.failureRate = failureRate.isNaN ? 0 : min(max(failureRate, 0), 1)
    self.latency = max(latency, .zero)
    self.seed = seed
  }

  /// Whether a request fails with HTTP 500.
  ///
  /// - Parameters:
  ///   - key: The request's key, for example `"GET /posts?limit=10&skip=0"`.
  ///   - occurrence: How many requests with the same key the server received before this one.
  /// - Returns: `true` when the server must answer with HTTP 500.
  public func injectsFailure(forRequest key: String, occurrence: Int) -> Bool {
    if self.failureRate <= 0 { return false }
    if self.failureRate >= 1 { return true }
    return Self.unitValue(seed: self.seed, key: key, occurrence: occurrence) < self.failureRate
  }

  /// A number in `0..<1` that depends only on its inputs, uniformly distributed over many inputs.
  static func unitValue(seed: UInt64, key: String, occurrence: Int) -> Double {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a, a stable string hash (Hasher is seeded).
    for byte in key.utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    let mixed = splitMix64(seed ^ splitMix64(hash &+ UInt64(truncatingIfNeeded: occurrence)))
    return Double(mixed >> 11) * 0x1.0p-53
  }

  private static func splitMix64(_ value: UInt64) -> UInt64 {
    var z = value &+ 0x9e37_79b9_7f4a_7c15
    z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
    z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
    return z ^ (z >> 31)
  }
}

/// Counts the requests a server received, per key.
///
/// ``record(_:)`` returns the occurrence that ``FaultPlan/injectsFailure(forRequest:occurrence:)``
/// takes.
public struct RequestLedger: Hashable, Sendable {
  private var counts: [String: Int] = [:]

  /// The number of requests recorded.
  public private(set) var total = 0

  /// Creates an empty ledger.
  public init() {}

  /// Records a request.
  ///
  /// - Parameter key: The request's key.
  /// - Returns: How many requests with the same key were recorded before this one.
  public mutating func record(_ key: String) -> Int {
    self.total += 1
    let occurrence = self.counts[key, default: 0]
    self.counts[key] = occurrence + 1
    return occurrence
  }

  /// The number of requests recorded with a key.
  ///
  /// - Parameter key: The request's key.
  /// - Returns: The count; zero for a key never recorded.
  public func count(for key: String) -> Int {
    self.counts[key, default: 0]
  }
}
