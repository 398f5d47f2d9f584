import OperationCore
import OperationSynchronization
import SharingOperation
import Testing

@Suite struct `SharedOperationStateScheduler tests` {
  @Test func `The Synchronous Scheduler Runs Work At Once`() {
    let ran = Lock(false)
    SynchronousStateScheduler.synchronous.schedule { ran.withLock { $0 = true } }
    #expect(ran.withLock { $0 })
  }

  @Test func `A Synchronous Wrapper Shows A Change As Soon As The Store Has It`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let value = SharedOperation(store: store, scheduler: .synchronous)

    store.setResult(to: .success(2))
    #expect(value.wrappedValue == 2)
  }

  @Test func `A Custom Scheduler Decides When Changes Are Applied`() {
    let scheduler = HeldStateScheduler()
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let value = SharedOperation(store: store, scheduler: scheduler)

    store.setResult(to: .success(1))
    store.setResult(to: .success(2))
    #expect(value.wrappedValue == nil)

    // NB: Running the held work backwards still leaves the newest state: each unit of work copies
    // the store's state as it is when the work runs.
    scheduler.runAll(reversed: true)
    #expect(value.wrappedValue == 2)
  }
}
