#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A mutual-exclusion lock that guards a value, built on `pthread_mutex_t`: with
/// ``RecursiveLock``, the package's one lock family. Every module guards its mutable state with
/// these two, and with nothing else.
///
/// Its signatures are `Synchronization.Mutex`'s: the value goes in as `sending`, `body` receives
/// it `inout sending` and returns a `sending` result, so the compiler checks that nothing that is
/// not `Sendable` leaves the lock while something inside still refers to it.
///
/// Why not `Mutex` itself: the thread sanitizer cannot see how `Mutex` synchronises on Linux (it
/// waits on a futex inside the uninstrumented standard library), so every value guarded by a
/// `Mutex` is reported as a data race there. The sanitizer intercepts `pthread_mutex_lock`, so it
/// understands this lock, and `swift test --sanitize=thread` reports only real races. And
/// `Mutex` is not copyable, while the package's stores and tasks share one lock among the copies
/// of a value.
///
/// The lock is a value that refers to one managed buffer holding both the value and the mutex, so
/// that making a lock costs one allocation: locks are made on every run of an operation and for
/// every subscription. Copies of the lock share the buffer.
///
/// Unlike ``RecursiveLock``, it is not reentrant: calling ``withLock(_:)`` from inside `body`
/// on the same lock deadlocks.
///
/// Guard a value with it: a lock of an empty value (`Lock(())`) keeps that value where the mutex
/// is, and the thread sanitizer reports the two as racing. Where a lock seems to guard nothing,
/// guard the count or flag that the section changes.
@usableFromInline package struct Lock<Value>: @unchecked Sendable {
  // NB: Copies of a lock share its storage, which holds the value and the mutex in one
  // allocation. The value is read and written only while the mutex is held, and the storage is
  // never used but through `withLock`.
  @usableFromInline let storage: Storage

  /// Creates a lock that guards `value`.
  @inlinable
  package init(_ value: consuming sending Value) {
    self.storage = Storage.make(value)
  }

  /// Runs `body` with exclusive access to the value.
  ///
  /// - Parameter body: Reads or changes the value; must not use this lock again.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  // NB: `@inlinable`, so that the caller's module moves its own type in and out of the lock: in
  // the lock's unspecialized code, each move was a call through the value's witness table, and
  // a task's run took this lock three times.
  @inlinable
  package func withLock<Result, Failure: Error>(
    _ body: (inout sending Value) throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    let value = self.storage.lock()
    defer { self.storage.unlock() }
    // NB: `nonisolated(unsafe)` is safe because the value is reached only here, with the mutex
    // held, and everything in it was sent in (`init` and every `body` take and leave it as
    // `sending`), so it is in a region of its own, as `Mutex`'s value is; the compiler cannot
    // see that through the buffer's pointer. The value moves out of the buffer for `body` and
    // back after it, a bitwise move of a small value.
    nonisolated(unsafe) var guarded = value.move()
    defer { value.initialize(to: guarded) }
    return try body(&guarded)
  }

  /// The value and the mutex, allocated together, since locks are made on every run.
  @usableFromInline
  final class Storage: ManagedBuffer<Value, LockMutex> {
    @usableFromInline
    static func make(_ value: sending Value) -> Storage {
      let buffer = Storage.create(minimumCapacity: 1) { _ in value }
      // NB: `create` returns an instance of the class it is called on.
      let storage = unsafeDowncast(buffer, to: Storage.self)
      storage.withUnsafeMutablePointerToElements { mutex in
        mutex.initialize(to: LockMutex())
        _ = pthread_mutex_init(&mutex.pointee.raw, nil)
      }
      return storage
    }

    deinit {
      self.withUnsafeMutablePointerToElements { mutex in
        _ = pthread_mutex_destroy(&mutex.pointee.raw)
      }
    }

    /// Locks the mutex and returns where the value is.
    // NB: The header and the elements of a managed buffer stay where they are for as long as
    // the buffer lives, and the lock that calls this holds the buffer until it unlocks.
    @usableFromInline
    func lock() -> UnsafeMutablePointer<Value> {
      let (value, mutex) = self.withUnsafeMutablePointers { ($0, $1) }
      pthread_mutex_lock(&mutex.pointee.raw)
      return value
    }

    /// Unlocks the mutex.
    @usableFromInline
    func unlock() {
      self.withUnsafeMutablePointerToElements { mutex in
        _ = pthread_mutex_unlock(&mutex.pointee.raw)
      }
    }
  }
}

/// The mutex of a ``Lock``, in a type that the lock's inlinable code may name: the platform's
/// type comes from an import that only this module sees.
// NB: The mutex is a stored property, so that `&mutex.pointee.raw` is its address in the lock's
// buffer, where it stays while the buffer lives.
@usableFromInline
package struct LockMutex {
  var raw = pthread_mutex_t()
}

// MARK: - Probing

extension Lock {
  /// Whether some thread, this one included, holds the lock now.
  ///
  /// For tests that check that code runs with no lock held; the answer may be stale as soon as
  /// it is returned when other threads use the lock.
  package var isLocked: Bool {
    self.storage.withUnsafeMutablePointerToElements { mutex in
      // NB: `trylock` fails on a mutex that any thread holds, the calling one included, and
      // does not wait.
      guard pthread_mutex_trylock(&mutex.pointee.raw) == 0 else { return true }
      pthread_mutex_unlock(&mutex.pointee.raw)
      return false
    }
  }
}
