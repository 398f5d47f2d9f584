import Foundation
import OperationCore
import OperationGraph
import Testing

@Suite(.timeLimit(.minutes(1))) struct `ReachabilityCondition tests` {
  @Test func `It Is Named Reachability And Not Exclusive`() {
    let condition = ReachabilityCondition(observer: MockNetworkObserver())
    #expect(condition.name == "Reachability")
    #expect(condition.mutualExclusionCategory == nil)
    #expect(condition.dependency == nil)
  }

  @Test func `A Reachable Network Lets The Node Run`() async throws {
    let graph = WorkGraph()
    let node = try graph.add(
      conditions: [ReachabilityCondition(observer: MockNetworkObserver(initialStatus: .connected))]
    ) { _ in 1 }
    await graph.run()
    #expect(try graph.result(of: node)?.get() == 1)
  }

  @Test(arguments: [NetworkConnectionStatus.disconnected, .requiresConnection])
  func `An Unreachable Network Keeps The Node From Running`(status: NetworkConnectionStatus)
    async throws
  {
    let graph = WorkGraph()
    let node = try graph.add(
      conditions: [ReachabilityCondition(observer: MockNetworkObserver(initialStatus: status))]
    ) { _ in 1 }
    await graph.run()
    let outcome = try #require(graph.report(of: node).outcome)
    #expect(outcome.isNotExecuted)
    #expect(
      outcome.errors.first as? ReachabilityConditionError
        == ReachabilityConditionError(status: status)
    )
    #expect(
      ReachabilityConditionError(status: .disconnected)
        != ReachabilityConditionError(status: .requiresConnection)
    )
  }
}
