import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `ManualClock tests` {
  @Test func `A Sleeper Wakes Only Once Time Reaches Its Deadline`() async throws {
    let clock = ManualClock()
    let woke = Gate()
    let task = Task {
      try await clock.sleep(until: clock.now.advanced(by: .seconds(5)))
      woke.open()
    }
    await clock.waitForSleepers(count: 1)

    clock.advance(by: .seconds(4))
    #expect(clock.pendingSleeperCount == 1)
    #expect(!woke.isOpen)

    clock.advance(by: .seconds(1))
    try await task.value
    #expect(woke.isOpen)
    #expect(clock.pendingSleeperCount == 0)
    #expect(clock.now == ManualClock.Instant(offset: .seconds(5)))
  }

  @Test func `A Passed Deadline Returns At Once And Counts As A Sleep`() async throws {
    let clock = ManualClock()
    clock.advance(by: .seconds(2))
    try await clock.sleep(until: ManualClock.Instant(offset: .seconds(1)))
    #expect(clock.sleepCount == 1)
    #expect(clock.pendingSleeperCount == 0)
  }

  @Test func `Cancelling A Sleeper Throws And Removes It`() async {
    let clock = ManualClock()
    let task = Task { try await clock.sleep(for: .seconds(1)) }
    await clock.waitForSleepers(count: 1)
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    await clock.waitForSleepers(count: 0)
    #expect(clock.pendingSleeperCount == 0)
  }

  @Test func `A Sleep In A Cancelled Task Throws Without Sleeping`() async {
    let clock = ManualClock()
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await clock.sleep(for: .seconds(1))
    }
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(clock.pendingSleeperCount == 0)
  }

  @Test func `Wait For Sleeps Counts Every Sleep That Started`() async throws {
    let clock = ManualClock()
    let task = Task {
      for _ in 0..<3 {
        try await clock.sleep(for: .seconds(1))
      }
    }
    for count in 1...3 {
      await clock.waitForSleeps(count: count)
      #expect(clock.sleepCount == count)
      clock.advance(by: .seconds(1))
    }
    try await task.value
    #expect(clock.now == ManualClock.Instant(offset: .seconds(3)))
  }

  @Test func `One Advance Wakes Every Due Sleeper`() async throws {
    let clock = ManualClock()
    let early = Task { try await clock.sleep(for: .seconds(1)) }
    let late = Task { try await clock.sleep(for: .seconds(2)) }
    let never = Task { try await clock.sleep(for: .seconds(10)) }
    await clock.waitForSleepers(count: 3)

    clock.advance(by: .seconds(2))
    try await early.value
    try await late.value
    #expect(clock.pendingSleeperCount == 1)

    never.cancel()
    await #expect(throws: CancellationError.self) { try await never.value }
  }
}
