#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A mutual-exclusion lock that guards a value, built on `pthread_mutex_t`.
///
/// The package uses this lock instead of `Synchronization.Mutex` because the thread sanitizer
/// cannot see how `Mutex` synchronises on Linux (it waits on a futex inside the uninstrumented
/// standard library), so every value guarded by a `Mutex` is reported as a data race there. The
/// sanitizer intercepts `pthread_mutex_lock`, so it understands this lock, and
/// `swift test --sanitize=thread` reports only real races.
///
/// Unlike ``RecursiveLock``, it is not reentrant: calling ``withLock(_:)`` from inside `body`
/// on the same lock deadlocks.
package final class Lock<Value>: @unchecked Sendable {
  // NB: `value` is read and written only while `mutex` is held; `mutex` is set once in `init`.
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private var value: Value

  /// Creates a lock that guards `value`.
  package init(_ value: sending Value) {
    self.value = value
    self.mutex = .allocate(capacity: 1)
    pthread_mutex_init(self.mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(self.mutex)
    self.mutex.deallocate()
  }

  /// Runs `body` with exclusive access to the value.
  ///
  /// - Parameter body: Reads or changes the value.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  package func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    pthread_mutex_lock(self.mutex)
    defer { pthread_mutex_unlock(self.mutex) }
    return try body(&self.value)
  }
}
