import ArgumentParser
import OperationDemoSupport
import Testing

@Suite struct `OutboxCrashTestOptions tests` {
  @Test func `the defaults are 4 lanes of 50 with a random seed`() throws {
    let options = try OutboxCrashTestOptions.parse([])
    #expect(options.seed == nil)
    #expect(options.lanes == 4)
    #expect(options.perLane == 50)
    #expect(options.failureRate == 0.1)
    #expect(options.paceMicroseconds == 1_000)
    #expect(options.timeLimitSeconds == 60)
  }

  @Test func `the seed sets the plan`() throws {
    let options = try OutboxCrashTestOptions.parse(["--seed", "7", "--lanes", "2"])
    #expect(options.plan(seed: 7) == OutboxCrashPlan(seed: 7, lanes: 2, perLane: 50))
  }

  @Test(
    arguments: [
      (["--lanes", "0"], "--lanes must be between 1 and 16"),
      (["--per-lane", "1001"], "--per-lane must be between 1 and 1000"),
      (["--lanes", "2", "--per-lane", "5"], "at least 20 mutations"),
      (["--failure-rate", "0.9"], "--failure-rate must be between 0 and 0.5"),
      (["--pace-us", "10"], "--pace-us must be between 100 and 100000"),
      (["--time-limit", "0"], "--time-limit must be between 1 and 600"),
      (["--seed", "-1"], "seed"),
    ]
  )
  func `a bad flag gets a message that names it`(arguments: [String], message: String) {
    #expect {
      _ = try OutboxCrashTestOptions.parse(arguments)
    } throws: { error in
      OutboxCrashTestOptions.message(for: error).contains(message)
        && OutboxCrashTestOptions.exitCode(for: error) != .success
    }
  }
}
