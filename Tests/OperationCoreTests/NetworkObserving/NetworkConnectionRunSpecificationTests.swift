import OperationCore
import Testing

@Suite struct `NetworkConnectionRunSpecification tests` {
  private static let statuses: [NetworkConnectionStatus] = [
    .disconnected, .requiresConnection, .connected,
  ]

  @Test(arguments: Self.statuses, Self.statuses)
  func `Holds When The Status Reaches The Satisfied Status`(
    status: NetworkConnectionStatus,
    satisfied: NetworkConnectionStatus
  ) {
    let spec: NetworkConnectionRunSpecification = .connected(
      to: MockNetworkObserver(initialStatus: status)
    )
    var context = OperationContext()
    context.satisfiedConnectionStatus = satisfied
    #expect(spec.isSatisfied(in: context) == (status >= satisfied))
  }

  @Test(arguments: Self.statuses)
  func `Default Satisfied Status Requires A Connection`(status: NetworkConnectionStatus) {
    let spec = NetworkConnectionRunSpecification(
      observer: MockNetworkObserver(initialStatus: status)
    )
    #expect(OperationContext().satisfiedConnectionStatus == .connected)
    #expect(spec.isSatisfied(in: OperationContext()) == (status == .connected))
  }

  @Test(arguments: Self.statuses)
  func `Observes Every Status Sent`(satisfied: NetworkConnectionStatus) {
    let observer = MockNetworkObserver(initialStatus: .disconnected)
    let spec = NetworkConnectionRunSpecification(observer: observer)
    var context = OperationContext()
    context.satisfiedConnectionStatus = satisfied
    let observed = ValueRecorder<Bool>()
    let subscription = spec.subscribe(in: context) { [context] in
      observed.record(spec.isSatisfied(in: context))
    }

    observer.send(status: .requiresConnection)
    observer.send(status: .connected)
    observer.send(status: .disconnected)
    let expected = [.disconnected, .requiresConnection, .connected, .disconnected].map {
      $0 >= satisfied
    }
    #expect(observed.values == expected)

    subscription.cancel()
    #expect(observer.subscriberCount == 0)
  }
}
