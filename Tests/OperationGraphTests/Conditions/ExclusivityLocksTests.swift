import OperationGraphTestFixtures
import Testing

@testable import OperationGraph

@Suite struct `ExclusivityLocks tests` {
  @Test func `Waiters Get The Lock In The Order They Asked`() async throws {
    let locks = ExclusivityLocks()
    let log = EventLog()
    try await locks.acquire("a")
    var tasks = [Task<Void, any Error>]()
    for index in 0..<3 {
      tasks.append(
        Task {
          try await locks.acquire("a")
          log.append("\(index)")
          locks.release(["a"])
        }
      )
      // NB: Each waiter is queued before the next one asks.
      await locks.waitForWaiters("a", count: index + 1)
    }
    locks.release(["a"])
    for task in tasks {
      try await task.value
    }
    #expect(log.events == ["0", "1", "2"])
    #expect(!locks.isHeld("a"))
  }

  @Test func `A Cancelled Waiter Leaves The Queue And Holds Nothing`() async throws {
    let locks = ExclusivityLocks()
    try await locks.acquire("b")
    let waiter = Task { try await locks.acquire("b") }
    await locks.waitForWaiters("b", count: 1)
    waiter.cancel()
    await #expect(throws: CancellationError.self) { try await waiter.value }
    locks.release(["b"])
    #expect(!locks.isHeld("b"))
  }

  @Test func `Categories Are Independent`() async throws {
    let locks = ExclusivityLocks()
    try await locks.acquire("c")
    try await locks.acquire("d")
    #expect(locks.isHeld("c") && locks.isHeld("d"))
    locks.release(["c", "d"])
    #expect(!locks.isHeld("c") && !locks.isHeld("d"))
  }
}
