import OperationTestSupport
import SharingOperation
import Testing

// How a shared selection (implemented by SharedSelectionReference) applies the selection's
// changes through its scheduler: the newest value, once, on the scheduler's thread.

@Suite(.timeLimit(.minutes(1))) struct `SharedSelectionReference tests` {
  @Test func `A Late Scheduler Applies The Newest Value`() async {
    let scheduler = HeldStateScheduler()
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let selection = SharedSelection(store: store, scheduler: scheduler) { $0.currentValue }

    store.setResult(to: .success(1))
    store.setResult(to: .success(2))
    #expect(selection.wrappedValue == nil)
    #expect(scheduler.count >= 2)

    await confirmation(expectedCount: 1) { changed in
      withObservationTracking {
        _ = selection.wrappedValue
      } onChange: {
        changed()
      }
      scheduler.runFirst()
    }
    #expect(selection.wrappedValue == 2)

    // NB: The rest of the held work finds the newest value shown, and tells no one.
    await confirmation(expectedCount: 0) { changed in
      withObservationTracking {
        _ = selection.wrappedValue
      } onChange: {
        changed()
      }
      scheduler.runAll()
    }
    #expect(selection.wrappedValue == 2)
  }

  @Test func `Work Run Backwards Leaves The Newest Value`() {
    let scheduler = HeldStateScheduler()
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let selection = SharedSelection(store: store, scheduler: scheduler) { $0.currentValue }

    store.setResult(to: .success(1))
    store.setResult(to: .success(2))
    scheduler.runAll(reversed: true)
    #expect(selection.wrappedValue == 2)
  }

  @Test func `A Change Back Before The Scheduler Runs Tells No One`() async {
    let scheduler = HeldStateScheduler()
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let selection = SharedSelection(store: store, scheduler: scheduler) { $0.currentValue }

    store.setResult(to: .success(1))
    store.setResult(to: .success(nil))
    await confirmation(expectedCount: 0) { changed in
      withObservationTracking {
        _ = selection.wrappedValue
      } onChange: {
        changed()
      }
      scheduler.runAll()
    }
    #expect(selection.wrappedValue == nil)
  }

  @Test @MainActor func `A Main Actor Selection Tells Observers On The Main Actor`() async {
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    let selection = SharedSelection(store: store, scheduler: .mainActor) { $0.currentValue }

    let toldOnMainActor = await withCheckedContinuation { continuation in
      withObservationTracking {
        _ = selection.wrappedValue
      } onChange: {
        continuation.resume(returning: isOnMainQueue())
      }
      Task.detached {
        store.setResult(to: .success(9))
      }
    }
    #expect(toldOnMainActor)
    #expect(selection.wrappedValue == 9)
  }
}
