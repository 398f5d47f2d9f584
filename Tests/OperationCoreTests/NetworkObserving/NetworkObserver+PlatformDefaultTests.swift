import OperationCore
import Testing

@Suite struct `NetworkObserver+PlatformDefault tests` {
  @Test func `Platform Default Is The Running Shared Observer`() {
    let observer = AnySendableNetworkObserver.platformDefault
    #if os(Linux)
      let linux = observer.base as? LinuxNetworkObserver
      #expect(linux === LinuxNetworkObserver.shared)
      #expect(linux?.isRunning == true)
    #endif
    #expect(observer.currentStatus == observer.base.currentStatus)
  }

  @Test func `Platform Default Reads As An Implicit Member`() {
    // NB: Passes if it compiles.
    let spec = NetworkConnectionRunSpecification(observer: .platformDefault)
    var context = OperationContext()
    context.satisfiedConnectionStatus = .disconnected
    #expect(spec.isSatisfied(in: context))
  }
}
