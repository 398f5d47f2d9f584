import SharingOperation
import Testing

@Suite struct `DependencyValues+DefaultNetworkObserver tests` {
  @Test func `The Test Value Is A Connected Mock Observer`() {
    @Dependency(\.defaultNetworkObserver) var observer
    #expect(observer is MockNetworkObserver)
    #expect(observer.currentStatus == .connected)
  }

  @Test func `Tests Can Replace The Observer`() {
    let observer = MockNetworkObserver(initialStatus: .disconnected)
    withDependencies {
      $0.defaultNetworkObserver = observer
    } operation: {
      @Dependency(\.defaultNetworkObserver) var current
      #expect(current as? MockNetworkObserver === observer)
    }
  }
}
