import OperationCore
import Testing

@Suite struct `NotRunSpecification tests` {
  @Test(arguments: [false, true])
  func `Negates The Base Value`(value: Bool) {
    let base = TestRunSpecification(value)
    let spec = !base
    #expect(spec.isSatisfied(in: OperationContext()) == !value)
    base.send(!value)
    #expect(spec.isSatisfied(in: OperationContext()) == value)
    #expect((!spec).isSatisfied(in: OperationContext()) == !value)
  }

  @Test func `Forwards The Base Subscription`() {
    let base = TestRunSpecification()
    let spec = !base
    let observed = ValueRecorder<Bool>()
    let subscription = spec.subscribe(in: OperationContext()) {
      observed.record(spec.isSatisfied(in: OperationContext()))
    }
    #expect(base.subscriberCount == 1)

    base.send(true)
    base.send(false)
    #expect(observed.values == [false, true])

    subscription.cancel()
    #expect(base.subscriberCount == 0)
  }
}
