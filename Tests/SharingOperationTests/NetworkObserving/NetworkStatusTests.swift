import SharingOperation
import Testing

// Pins upstream's NetworkStatusKeyTests (reference §17), with the observable `NetworkStatus`
// model in place of `@SharedReader(.networkStatus)`.

@Suite struct `NetworkStatus tests` {
  @Test func `Follows The Observer From The Dependency`() {
    let observer = MockNetworkObserver()
    let network = withDependencies {
      $0.defaultNetworkObserver = observer
    } operation: {
      NetworkStatus()
    }

    #expect(network.status == .connected)

    observer.send(status: .disconnected)
    #expect(network.status == .disconnected)

    observer.send(status: .requiresConnection)
    #expect(network.status == .requiresConnection)

    observer.send(status: .connected)
    #expect(network.status == .connected)
  }

  @Test func `Follows An Observer It Is Given`() {
    let observer = MockNetworkObserver(initialStatus: .disconnected)
    let network = NetworkStatus(observer: observer)
    #expect(network.status == .disconnected)

    observer.send(status: .connected)
    #expect(network.status == .connected)
  }

  @Test func `Status Changes Fire Observers`() async {
    let observer = MockNetworkObserver()
    let network = NetworkStatus(observer: observer)

    await confirmation { changed in
      withObservationTracking {
        _ = network.status
      } onChange: {
        changed()
      }
      observer.send(status: .disconnected)
    }
  }

  @Test func `Repeated Statuses Do Not Fire Observers`() async {
    let observer = MockNetworkObserver()
    let network = NetworkStatus(observer: observer)

    await confirmation(expectedCount: 0) { changed in
      withObservationTracking {
        _ = network.status
      } onChange: {
        changed()
      }
      observer.send(status: .connected)
    }
  }

  @Test func `Releasing The Model Unsubscribes From The Observer`() {
    let observer = MockNetworkObserver()
    weak var weakNetwork: NetworkStatus?
    do {
      let network = NetworkStatus(observer: observer)
      weakNetwork = network
      #expect(observer.subscriberCount == 1)
    }
    #expect(weakNetwork == nil)
    #expect(observer.subscriberCount == 0)
  }
}
