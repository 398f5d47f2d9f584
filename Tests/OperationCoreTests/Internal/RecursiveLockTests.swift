import OperationSynchronization
import Testing

@testable import OperationCore

@Suite struct `RecursiveLock tests` {
  @Test func `Effects Wait For The Outermost Release Of The Same Lock`() {
    let lock = RecursiveLock(0)
    let log = Lock([String]())
    lock.withLock { _ in
      lock.withLock { _ in
        lock.enqueue { log.withLock { $0.append("effect") } }
      }
      log.withLock { $0.append("inner released") }
    }
    #expect(log.withLock { $0 } == ["inner released", "effect"])
  }

  @Test func `Effects Of A Lock Released Under Another Wait For The Other's Release`() {
    let outer = RecursiveLock(0)
    let inner = RecursiveLock(0)
    let log = Lock([String]())
    outer.withLock { _ in
      for index in 0..<3 {
        inner.withLock { _ in
          inner.enqueue {
            log.withLock {
              $0.append("effect \(index), locked: \(LibraryLocks.areHeldByCurrentThread)")
            }
          }
        }
      }
      log.withLock { $0.append("outer body ends") }
    }
    #expect(
      log.withLock { $0 } == [
        "outer body ends",
        "effect 0, locked: false",
        "effect 1, locked: false",
        "effect 2, locked: false",
      ]
    )
  }

  @Test func `An Effect That Takes Locks Gets Its Own Effects Delivered In Order`() {
    let first = RecursiveLock(0)
    let second = RecursiveLock(0)
    let log = Lock([String]())
    first.withLock { _ in
      first.enqueue {
        log.withLock { $0.append("first") }
        second.withLock { _ in
          second.enqueue { log.withLock { $0.append("second") } }
        }
        log.withLock { $0.append("first ends") }
      }
    }
    #expect(log.withLock { $0 } == ["first", "second", "first ends"])
  }

  @Test func `After Release Runs At Once Without A Lock And After The Last Release With One`() {
    let lock = RecursiveLock(0)
    let log = Lock([String]())
    LibraryLocks.afterRelease { log.withLock { $0.append("unlocked") } }
    lock.withLock { _ in
      LibraryLocks.afterRelease {
        log.withLock { $0.append("after, locked: \(LibraryLocks.areHeldByCurrentThread)") }
      }
      log.withLock { $0.append("body ends") }
    }
    #expect(log.withLock { $0 } == ["unlocked", "body ends", "after, locked: false"])
    #expect(!LibraryLocks.areHeldByCurrentThread)
  }
}
