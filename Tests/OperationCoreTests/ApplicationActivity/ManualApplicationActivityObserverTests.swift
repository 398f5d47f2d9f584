import OperationCore
import Testing

@Suite struct `ManualApplicationActivityObserver tests` {
  @Test(arguments: [false, true])
  func `Subscribing Calls Back At Once Then On Every Send`(initial: Bool) {
    let observer = ManualApplicationActivityObserver(isActive: initial)
    let states = ValueRecorder<Bool>()
    let subscription = observer.subscribe { states.record($0) }
    #expect(states.values == [initial])

    observer.send(isActive: !initial)
    observer.send(isActive: !initial)
    #expect(states.values == [initial, !initial, !initial])
    #expect(observer.isActive == !initial)

    subscription.cancel()
    #expect(observer.subscriberCount == 0)
    observer.send(isActive: initial)
    #expect(states.values.count == 3)
  }
}
