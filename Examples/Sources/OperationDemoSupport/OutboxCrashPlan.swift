/// The script of the outbox crash test (`operation-demo outbox-crash-test`): which mutations the
/// child process enqueues, in which order, and where the two `SIGKILL`s land, all decided by one
/// seed.
///
/// The child enqueues `lanes × perLane` mutations round-robin over the lanes, each with the
/// idempotency key ``key(lane:index:)``, and each lane's mutations go to the server path
/// ``path(lane:)``. The first kill lands after the parent has read ``killAfterEnqueued`` of the
/// child's “enqueued” lines, plus ``killDelayMicroseconds``; the second lands inside the server,
/// right after it applied its ``killAtApplied``-th key and before it answers.
///
/// ```swift
/// let plan = OutboxCrashPlan(seed: 7, lanes: 4, perLane: 50)
/// plan.mutations.prefix(2).map(\.key)  // ["lane-0-item-0", "lane-1-item-0"]
/// plan.killAfterEnqueued  // the same for seed 7 on every run, in 1...180
/// ```
public struct OutboxCrashPlan: Hashable, Sendable {
  /// One mutation of the test.
  public struct Mutation: Hashable, Sendable, Codable {
    /// The lane, from 0.
    public var lane: Int
    /// The mutation's position in its lane, from 0.
    public var index: Int

    /// Creates a mutation.
    ///
    /// - Parameters:
    ///   - lane: The lane.
    ///   - index: The position in the lane.
    public init(lane: Int, index: Int) {
      self.lane = lane
      self.index = index
    }

    /// The mutation's idempotency key.
    public var key: String {
      OutboxCrashPlan.key(lane: self.lane, index: self.index)
    }

    /// The server path the mutation is sent to.
    public var path: String {
      OutboxCrashPlan.path(lane: self.lane)
    }
  }

  /// The seed of the kill points.
  public let seed: UInt64
  /// The number of lanes.
  public let lanes: Int
  /// The number of mutations per lane.
  public let perLane: Int
  /// How many “enqueued” lines of the first child the parent reads before it kills it.
  public let killAfterEnqueued: Int
  /// How long the parent waits after that line before it kills, so that the kill lands anywhere
  /// in the child's next enqueue, its transaction included.
  public let killDelayMicroseconds: Int
  /// The count of applied keys at which the server kills the second child, before answering.
  public let killAtApplied: Int

  /// Creates the plan of a seed.
  ///
  /// - Parameters:
  ///   - seed: The seed of the kill points.
  ///   - lanes: The number of lanes; at least 1.
  ///   - perLane: The number of mutations per lane; at least 1.
  ///   - paceMicroseconds: The child's pause between two enqueues, which sets the range of the
  ///     first kill's delay.
  public init(seed: UInt64, lanes: Int, perLane: Int, paceMicroseconds: Int = 1_000) {
    self.seed = seed
    self.lanes = max(lanes, 1)
    self.perLane = max(perLane, 1)
    let total = max(self.lanes * self.perLane, 2)
    var generator = SeededGenerator(seed: seed)
    // NB: The first kill leaves a tenth of the mutations (at least two) unread, so that it lands
    // before the child's last line even when the child runs ahead of the parent's reads.
    let slack = max(total / 10, 2)
    self.killAfterEnqueued = Int.random(in: 1...max(total - slack, 1), using: &generator)
    // NB: The child enqueues the next mutation one pace after a line; a delay of up to one and a
    // half paces lands the kill before, during or after that enqueue's transaction.
    let pace = max(paceMicroseconds, 0)
    self.killDelayMicroseconds = Int.random(in: 0...(pace + pace / 2), using: &generator)
    self.killAtApplied = Int.random(in: 1...(total - 1), using: &generator)
  }

  /// The number of mutations.
  public var total: Int {
    self.lanes * self.perLane
  }

  /// The mutations in the order the child enqueues them: round-robin over the lanes.
  public var mutations: [Mutation] {
    (0..<self.total).map { Mutation(lane: $0 % self.lanes, index: $0 / self.lanes) }
  }

  /// Each lane's keys by its server path, in the order they are enqueued.
  public var keysByPath: [String: [String]] {
    Dictionary(grouping: self.mutations, by: \.path).mapValues { $0.map(\.key) }
  }

  /// The idempotency key of a mutation, such as `lane-2-item-17`.
  ///
  /// - Parameters:
  ///   - lane: The lane.
  ///   - index: The position in the lane.
  /// - Returns: The key.
  public static func key(lane: Int, index: Int) -> String {
    "lane-\(lane)-item-\(index)"
  }

  /// The server path of a lane, such as `/outbox/lanes/2`.
  ///
  /// - Parameter lane: The lane.
  /// - Returns: The path.
  public static func path(lane: Int) -> String {
    "/outbox/lanes/\(lane)"
  }
}

/// A random number generator that gives the same numbers for the same seed on every platform
/// (SplitMix64), so that a seed printed by a failed run reproduces it.
///
/// ```swift
/// var generator = SeededGenerator(seed: 42)
/// Int.random(in: 1...6, using: &generator)  // the same on every run
/// ```
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// Creates a generator.
  ///
  /// - Parameter seed: The seed.
  public init(seed: UInt64) {
    self.state = seed
  }

  /// The next 64 random bits.
  ///
  /// - Returns: The bits.
  public mutating func next() -> UInt64 {
    self.state &+= 0x9e37_79b9_7f4a_7c15
    var z = self.state
    z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
    z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
    return z ^ (z >> 31)
  }
}
