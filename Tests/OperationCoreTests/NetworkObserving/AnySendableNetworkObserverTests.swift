import OperationCore
import Testing

@Suite struct `AnySendableNetworkObserver tests` {
  @Test func `Type Erasure Forwards Status And Subscription`() {
    let observer = MockNetworkObserver()
    let erased = AnySendableNetworkObserver(observer)
    let statuses = ValueRecorder<NetworkConnectionStatus>()
    let subscription = erased.subscribe { statuses.record($0) }
    observer.send(status: .disconnected)
    #expect(erased.currentStatus == .disconnected)
    #expect(statuses.values == [.connected, .disconnected])
    subscription.cancel()
    #expect(observer.subscriberCount == 0)
  }
}
