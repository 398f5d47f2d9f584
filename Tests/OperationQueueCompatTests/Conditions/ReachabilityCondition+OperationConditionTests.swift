import Foundation
import OperationCore
import OperationGraph
import OperationQueueCompat
import Testing

@Suite(.timeLimit(.minutes(1))) struct `ReachabilityCondition on operations tests` {
  @Test func `An Operation Runs On A Reachable Network And Fails Without One`() async throws {
    let reachable = TestOperation()
    reachable.addCondition(
      ReachabilityCondition(observer: MockNetworkObserver(initialStatus: .connected))
    )
    let unreachable = TestOperation()
    unreachable.addCondition(
      ReachabilityCondition(observer: MockNetworkObserver(initialStatus: .disconnected))
    )
    let queue = OperationQueue()
    queue.addOperation(reachable)
    queue.addOperation(unreachable)
    try await reachable.untilFinished()
    await #expect(throws: OperationErrors.self) { try await unreachable.untilFinished() }
    #expect(reachable.didExecute && !unreachable.didExecute)
    #expect(
      unreachable.errors.map { $0 as? ReachabilityConditionError }
        == [ReachabilityConditionError(status: .disconnected)]
    )
  }
}
