import Testing

@testable import OperationCore

@Suite struct `Waiters tests` {
  @Test func `A Result Handed Before The Wait Is Kept For It`() async throws {
    let waiters = Waiters<Int>()
    let id = waiters.makeID()
    #expect(waiters.resume(id, with: .success(7)))
    #expect(try await waiters.wait(id) == 7)
    #expect(waiters.count == 0)
  }

  @Test func `A Cancelled Wait Throws, And The Result Is Refused`() async {
    let waiters = Waiters<Int>()
    let id = waiters.makeID()
    let task = Task { try await waiters.wait(id) }
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(!waiters.resume(id, with: .success(1)))
    #expect(waiters.count == 0)
  }

  @Test func `A Wait Gets The Error It Is Handed`() async {
    struct Failure: Error {}
    let waiters = Waiters<Int>()
    let id = waiters.makeID()
    let task = Task { try await waiters.wait(id) }
    #expect(waiters.resume(id, with: .failure(Failure())))
    await #expect(throws: Failure.self) { try await task.value }
  }
}
