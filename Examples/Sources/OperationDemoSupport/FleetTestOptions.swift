public import ArgumentParser

/// The command-line flags of `operation-demo fleet-test`.
///
/// ```swift
/// let options = try FleetTestOptions.parse(["--seed", "7"])
/// options.outboxPlan(seed: 7).killsAtApplied  // the same on every run
/// ```
public struct FleetTestOptions: ParsableArguments, Sendable {
  /// The seed of the outbox round's kill points; random when not given.
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Seed of the outbox round's SIGKILL and SIGSTOP points; a failed run prints its seed. "
        + "Random by default.",
      valueName: "n"
    )
  )
  public var seed: UInt64?

  /// The concurrent fetches per child in the fill rounds.
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Concurrent fetches per child in each fill round (1...10000).",
      valueName: "n"
    )
  )
  public var callers: Int = 1_000

  /// The invalidations of the invalidation round.
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Invalidations made by child 1 (2...10000).", valueName: "n")
  )
  public var invalidations: Int = 1_000

  /// The outbox entries that commit.
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Outbox entries enqueued and committed (100...100000).", valueName: "n")
  )
  public var entries: Int = 10_000

  /// The outbox's lanes.
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Outbox lanes (1...100).", valueName: "n")
  )
  public var lanes: Int = 20

  /// The outbox entries enqueued in transactions that roll back.
  @Option(
    name: .customLong("rolled-back"),
    parsing: .unconditional,
    help: ArgumentHelp(
      "Outbox entries enqueued in rolled-back transactions (1...10000).",
      valueName: "n"
    )
  )
  public var rolledBack: Int = 100

  /// The children's lease of fills and outbox claims, in milliseconds.
  @Option(
    name: .customLong("lease-ms"),
    parsing: .unconditional,
    help: ArgumentHelp(
      "Lease of the children's fills and outbox claims, in milliseconds (500...10000).",
      valueName: "ms"
    )
  )
  public var leaseMilliseconds: Int = 2_000

  /// How long round a holds the leader's request after every child reported its fetches
  /// started, in milliseconds.
  @Option(
    name: .customLong("hold-ms"),
    parsing: .unconditional,
    help: ArgumentHelp(
      "How long round a still holds the leader's request once every child's fetches started, "
        + "so that every child's first step of the fill finds the lease (0...5000).",
      valueName: "ms"
    )
  )
  public var holdMilliseconds: Int = 500

  /// The rounds to run, by letter.
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "The rounds to run, by letter: a (coalesced fill), b (killed leader), c (stopped leader), "
        + "d (invalidations), e (outbox).",
      valueName: "letters"
    )
  )
  public var rounds: String = "abcde"

  /// The most time the whole test may take, in seconds.
  @Option(
    name: .customLong("time-limit"),
    parsing: .unconditional,
    help: ArgumentHelp(
      "Fail if the test takes longer than this many seconds (10...1800).",
      valueName: "seconds"
    )
  )
  public var timeLimitSeconds: Int = 300

  /// Creates the default options.
  public init() {}

  /// The outbox round's plan.
  ///
  /// - Parameter seed: The run's seed: ``seed``, or a random one.
  /// - Returns: The plan.
  public func outboxPlan(seed: UInt64) -> FleetOutboxPlan {
    FleetOutboxPlan(seed: seed, entries: self.entries, lanes: self.lanes)
  }

  /// Checks the values; ArgumentParser calls it after parsing.
  ///
  /// - Throws: `ValidationError` naming the flag.
  public mutating func validate() throws {
    let ranges: [(String, Int, ClosedRange<Int>)] = [
      ("--callers", self.callers, 1...10_000),
      ("--invalidations", self.invalidations, 2...10_000),
      ("--entries", self.entries, 100...100_000),
      ("--lanes", self.lanes, 1...100),
      ("--rolled-back", self.rolledBack, 1...10_000),
      ("--lease-ms", self.leaseMilliseconds, 500...10_000),
      ("--hold-ms", self.holdMilliseconds, 0...5_000),
      ("--time-limit", self.timeLimitSeconds, 10...1_800),
    ]
    guard !self.rounds.isEmpty, self.rounds.allSatisfy({ "abcde".contains($0) }) else {
      throw ValidationError("--rounds takes letters among a, b, c, d and e, got '\(self.rounds)'.")
    }
    for (flag, value, range) in ranges where !range.contains(value) {
      throw ValidationError(
        "\(flag) must be between \(range.lowerBound) and \(range.upperBound), got \(value)."
      )
    }
  }
}

/// The outbox round of the fleet test: which entries are enqueued, and at which counts of
/// applied entries the test kills a worker (twice) and stops another past its lease, all
/// decided by one seed.
///
/// ```swift
/// let plan = FleetOutboxPlan(seed: 7, entries: 10_000, lanes: 20)
/// plan.mutations.count  // 10_000, round-robin over the lanes
/// plan.killsAtApplied  // two counts, the same for seed 7 on every run
/// ```
public struct FleetOutboxPlan: Hashable, Sendable {
  /// The entries, in the order they are enqueued: round-robin over the lanes.
  public let mutations: [OutboxCrashPlan.Mutation]
  /// The counts of applied entries at which a worker is killed with `SIGKILL`, ascending.
  public let killsAtApplied: [Int]
  /// The count of applied entries at which a worker is stopped with `SIGSTOP`.
  public let stopAtApplied: Int

  /// Creates the plan of a seed.
  ///
  /// - Parameters:
  ///   - seed: The seed of the kill points.
  ///   - entries: The entries that commit; at least 100.
  ///   - lanes: The lanes; at least 1.
  public init(seed: UInt64, entries: Int, lanes: Int) {
    let total = max(entries, 100)
    let lanes = max(lanes, 1)
    self.mutations = (0..<total).map {
      OutboxCrashPlan.Mutation(lane: $0 % lanes, index: $0 / lanes)
    }
    var generator = SeededGenerator(seed: seed)
    // NB: The kills land in the first half and the stop in the third quarter, so that each one
    // finds work left to take over.
    let first = Int.random(in: (total / 10)...(total / 4), using: &generator)
    let second = Int.random(in: (total * 3 / 10)...(total / 2), using: &generator)
    self.killsAtApplied = [first, second]
    self.stopAtApplied = Int.random(in: (total * 11 / 20)...(total * 3 / 4), using: &generator)
  }

  /// Each lane's keys by its server path, in the order they are enqueued.
  public var keysByPath: [String: [String]] {
    Dictionary(grouping: self.mutations, by: \.path).mapValues { $0.map(\.key) }
  }

  /// The entries of the transactions that roll back: keys that no committed entry has.
  ///
  /// - Parameters:
  ///   - count: How many.
  ///   - lanes: The lanes they are spread over.
  /// - Returns: The entries, with indexes from 1,000,000.
  public static func rolledBack(count: Int, lanes: Int) -> [OutboxCrashPlan.Mutation] {
    (0..<count).map {
      OutboxCrashPlan.Mutation(lane: $0 % max(lanes, 1), index: 1_000_000 + $0 / max(lanes, 1))
    }
  }
}

/// The names the rounds of the fleet test give their keys.
public enum FleetTestRounds {
  /// The key of the invalidation round's `index`th path, such as `inv-7`: the path is
  /// `["fleet-item", "inv-7"]`.
  ///
  /// - Parameter index: The path's index, from 0.
  /// - Returns: The key.
  public static func invalidationKey(_ index: Int) -> String {
    "inv-\(index)"
  }
}
