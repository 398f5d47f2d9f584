import OperationCore
import Testing

@Suite struct `ApplicationActivityObserver tests` {
  @Test func `Type Erasure Forwards The Subscription`() {
    let observer = ManualApplicationActivityObserver()
    let states = ValueRecorder<Bool>()
    let subscription = AnySendableApplicationActivityObserver(observer).subscribe {
      states.record($0)
    }
    observer.send(isActive: false)
    #expect(states.values == [true, false])
    subscription.cancel()
    #expect(observer.subscriberCount == 0)
  }
}
