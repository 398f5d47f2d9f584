import Dispatch
import SharingOperation
import Testing

@Suite struct `MainActorStateScheduler tests` {
  @Test func `Work Scheduled Elsewhere Runs On The Main Actor`() async {
    let ranOnMainActor = await withCheckedContinuation { continuation in
      Task.detached {
        MainActorStateScheduler.mainActor.schedule {
          continuation.resume(returning: isOnMainQueue())
        }
      }
    }
    #expect(ranOnMainActor)
  }

  @Test @MainActor func `Work Scheduled On The Main Actor Runs In A Later Main Actor Task`() async {
    var ranAtOnce = true
    let ranOnMainActor = await withCheckedContinuation { continuation in
      MainActorStateScheduler.mainActor.schedule {
        continuation.resume(returning: isOnMainQueue())
      }
      ranAtOnce = false
    }
    #expect(!ranAtOnce)
    #expect(ranOnMainActor)
  }
}

private let mainQueueKey: DispatchSpecificKey<Bool> = {
  let key = DispatchSpecificKey<Bool>()
  DispatchQueue.main.setSpecific(key: key, value: true)
  return key
}()

/// Whether the caller runs on the main dispatch queue, where the main actor runs its jobs.
///
/// NB: `Thread.isMainThread` is no test of this on Linux, where the main queue may be drained by
/// a thread other than the process's first one.
func isOnMainQueue() -> Bool {
  DispatchQueue.getSpecific(key: mainQueueKey) ?? false
}
