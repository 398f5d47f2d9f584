import OperationCore
import Testing

@Suite struct `ApplicationIsActiveRunSpecification tests` {
  @Test(arguments: [false, true])
  func `Starts From The Observer's State`(isActive: Bool) {
    let observer = ManualApplicationActivityObserver(isActive: isActive)
    let spec: ApplicationIsActiveRunSpecification = .applicationIsActive(observer: observer)
    #expect(spec.isSatisfied(in: OperationContext()) == isActive)
    #expect(observer.subscriberCount == 1)
  }

  @Test func `Assumes Active Before The Observer Reports`() {
    let spec = ApplicationIsActiveRunSpecification(observer: SilentActivityObserver())
    #expect(spec.isSatisfied(in: OperationContext()))
  }

  @Test(arguments: [false, true])
  func `Is False When The Context Disables It`(isActive: Bool) {
    let spec = ApplicationIsActiveRunSpecification(
      observer: ManualApplicationActivityObserver(isActive: isActive)
    )
    var context = OperationContext()
    TestQuery().disableApplicationActiveRerunning().setup(context: &context)
    #expect(!context.isApplicationActiveRerunningEnabled)
    #expect(!spec.isSatisfied(in: context))

    TestQuery().disableApplicationActiveRerunning(false).setup(context: &context)
    #expect(context.isApplicationActiveRerunningEnabled)
    #expect(spec.isSatisfied(in: context) == isActive)
  }

  @Test func `Emits When The Application Resigns And Becomes Active`() {
    let observer = ManualApplicationActivityObserver()
    let spec = ApplicationIsActiveRunSpecification(observer: observer)
    let observed = ValueRecorder<Bool>()
    let subscription = spec.subscribe(in: OperationContext()) {
      observed.record(spec.isSatisfied(in: OperationContext()))
    }
    #expect(observed.values.isEmpty)

    observer.send(isActive: false)
    observer.send(isActive: true)
    #expect(observed.values == [false, true])
    subscription.cancel()
  }

  @Test func `Deduplicates Repeated States`() {
    let observer = ManualApplicationActivityObserver()
    let spec = ApplicationIsActiveRunSpecification(observer: observer)
    let changes = CallCounter()
    let subscription = spec.subscribe(in: OperationContext()) { changes.increment() }

    observer.send(isActive: true)
    observer.send(isActive: false)
    observer.send(isActive: false)
    observer.send(isActive: true)
    observer.send(isActive: true)
    #expect(changes.value == 2)

    subscription.cancel()
    observer.send(isActive: false)
    #expect(changes.value == 2)
  }

  @Test func `Releasing The Specification Ends Its Observer Subscription`() {
    let observer = ManualApplicationActivityObserver()
    var spec: ApplicationIsActiveRunSpecification? = .applicationIsActive(observer: observer)
    #expect(observer.subscriberCount == 1)
    spec = nil
    #expect(spec == nil)
    #expect(observer.subscriberCount == 0)
  }
}

/// An observer that never reports, to show the specification's starting assumption.
private struct SilentActivityObserver: ApplicationActivityObserver {
  func subscribe(_ handler: @escaping @Sendable (Bool) -> Void) -> OperationSubscription {
    .empty
  }
}
