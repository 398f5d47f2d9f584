import OperationCore
import Testing

@Suite struct `MockNetworkObserver tests` {
  @Test func `Starts Connected By Default`() {
    #expect(MockNetworkObserver().currentStatus == .connected)
    #expect(
      MockNetworkObserver(initialStatus: .requiresConnection).currentStatus == .requiresConnection
    )
  }

  @Test func `Subscribing Calls Back At Once Then On Every Send`() {
    let observer = MockNetworkObserver(initialStatus: .disconnected)
    let statuses = ValueRecorder<NetworkConnectionStatus>()
    let subscription = observer.subscribe { statuses.record($0) }
    #expect(statuses.values == [.disconnected])

    observer.send(status: .connected)
    observer.send(status: .connected)
    observer.send(status: .requiresConnection)
    #expect(statuses.values == [.disconnected, .connected, .connected, .requiresConnection])
    #expect(observer.currentStatus == .requiresConnection)

    subscription.cancel()
    observer.send(status: .disconnected)
    #expect(statuses.values.count == 4)
  }

  @Test func `Counts Live Subscribers`() {
    let observer = MockNetworkObserver()
    #expect(observer.subscriberCount == 0)
    let first = observer.subscribe { _ in }
    var second: OperationSubscription? = observer.subscribe { _ in }
    #expect(observer.subscriberCount == 2)
    first.cancel()
    #expect(observer.subscriberCount == 1)
    second = nil
    #expect(second == nil)
    #expect(observer.subscriberCount == 0)
  }
}
