public import ArgumentParser

/// The command-line flags of `operation-demo outbox-crash-test`.
///
/// ```swift
/// let options = try OutboxCrashTestOptions.parse(["--seed", "7"])
/// options.plan(seed: options.seed ?? 0).killAfterEnqueued  // the same on every run
/// ```
public struct OutboxCrashTestOptions: ParsableArguments, Sendable {
  /// The seed of the kill points and of the server's failures; random when not given.
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Seed of the kill points and of the server's injected failures; a failed run prints its "
        + "seed, and the same seed kills at the same points. Random by default.",
      valueName: "n"
    )
  )
  public var seed: UInt64?

  /// The number of lanes.
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Lanes, each with a server path of its own (1...16).", valueName: "n")
  )
  public var lanes: Int = 4

  /// The number of mutations per lane.
  @Option(
    name: .customLong("per-lane"),
    parsing: .unconditional,
    help: ArgumentHelp("Mutations per lane (1...1000).", valueName: "n")
  )
  public var perLane: Int = 50

  /// The probability that the server answers an online request with HTTP 500.
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Probability (0...0.5) that the server answers a request with HTTP 500 while online; the "
        + "outbox keeps such entries and sends them again.",
      valueName: "rate"
    )
  )
  public var failureRate: Double = 0.1

  /// The child's pause between two enqueues, in microseconds.
  @Option(
    name: .customLong("pace-us"),
    parsing: .unconditional,
    help: ArgumentHelp(
      "Microseconds the child waits between two enqueues (100...100000), so that the first kill "
        + "lands before its last one.",
      valueName: "us"
    )
  )
  public var paceMicroseconds: Int = 1_000

  /// The most time the whole test may take, in seconds.
  @Option(
    name: .customLong("time-limit"),
    parsing: .unconditional,
    help: ArgumentHelp(
      "Fail if the test takes longer than this many seconds (1...600).",
      valueName: "seconds"
    )
  )
  public var timeLimitSeconds: Int = 60

  /// Creates the default options.
  public init() {}

  /// The plan of a run.
  ///
  /// - Parameter seed: The run's seed: ``seed``, or a random one.
  /// - Returns: The plan.
  public func plan(seed: UInt64) -> OutboxCrashPlan {
    OutboxCrashPlan(
      seed: seed,
      lanes: self.lanes,
      perLane: self.perLane,
      paceMicroseconds: self.paceMicroseconds
    )
  }

  /// Checks the values together; ArgumentParser calls it after parsing.
  ///
  /// - Throws: `ValidationError` naming the flag.
  public mutating func validate() throws {
    guard (1...16).contains(self.lanes) else {
      throw ValidationError("--lanes must be between 1 and 16, got \(self.lanes).")
    }
    guard (1...1000).contains(self.perLane) else {
      throw ValidationError("--per-lane must be between 1 and 1000, got \(self.perLane).")
    }
    guard self.lanes * self.perLane >= 20 else {
      throw ValidationError(
        "The test needs at least 20 mutations (--lanes × --per-lane), so that the first kill "
          + "lands before the child's last one."
      )
    }
    guard (0...0.5).contains(self.failureRate) else {
      throw ValidationError("--failure-rate must be between 0 and 0.5, got \(self.failureRate).")
    }
    guard (100...100_000).contains(self.paceMicroseconds) else {
      throw ValidationError(
        "--pace-us must be between 100 and 100000, got \(self.paceMicroseconds)."
      )
    }
    guard (1...600).contains(self.timeLimitSeconds) else {
      throw ValidationError("--time-limit must be between 1 and 600, got \(self.timeLimitSeconds).")
    }
  }
}
