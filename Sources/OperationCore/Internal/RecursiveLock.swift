#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A reentrant lock that guards a value and runs deferred effects, in order, after release.
///
/// `OperationStore.withExclusiveAccess` and `OperationClient.withStores` let their closures call
/// back into the same store or client (for example `store.currentValue = …` inside
/// `withExclusiveAccess`), which `Synchronization.Mutex` forbids. This lock allows that nesting on
/// the owning thread, and keeps the house rule that no user code runs while a lock is held:
/// inside the lock, callers only *enqueue* effects (subscriber callbacks, cancellations); the
/// effects run after the outermost `withLock` releases, on one thread at a time and in the order
/// they were enqueued.
///
/// An effect enqueued while another thread is already delivering effects is delivered by that
/// thread, right after the ones before it, so every subscriber sees events in the order the state
/// changed.
package final class RecursiveLock<Value>: @unchecked Sendable {
  // NB: Every stored property below is read and written only while `mutex` is held (a recursive
  // pthread mutex), except `mutex` itself, which is set once in `init`. Effects are `@Sendable`
  // because the thread that delivers them may not be the one that enqueued them.
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private var value: Value
  private var depth = 0
  private var effects = [@Sendable () -> Void]()
  private var isDelivering = false

  package init(_ value: Value) {
    self.value = value
    self.mutex = .allocate(capacity: 1)
    var attributes = pthread_mutexattr_t()
    pthread_mutexattr_init(&attributes)
    pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
    pthread_mutex_init(self.mutex, &attributes)
    pthread_mutexattr_destroy(&attributes)
  }

  deinit {
    pthread_mutex_destroy(self.mutex)
    self.mutex.deallocate()
  }

  /// Runs `body` with exclusive access to the value; may be nested on the same thread.
  ///
  /// Effects enqueued with ``enqueue(_:)`` during `body` run after the outermost call returns.
  package func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    pthread_mutex_lock(self.mutex)
    self.depth += 1
    defer { self.unlockAndDeliver() }
    return try body(&self.value)
  }

  /// Holds the lock while `body` runs, without giving it access to the value; may be nested.
  ///
  /// Use this when `body` calls other methods that take the lock with ``withLock(_:)``: a nested
  /// `withLock(_:)` inside another would access the value twice at once.
  package func withLockHeld<Result, Failure: Error>(
    _ body: () throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    pthread_mutex_lock(self.mutex)
    self.depth += 1
    defer { self.unlockAndDeliver() }
    return try body()
  }

  /// Enqueues an effect to run after the outermost ``withLock(_:)`` releases the lock.
  ///
  /// Call this only from inside ``withLock(_:)``.
  package func enqueue(_ effect: @escaping @Sendable () -> Void) {
    pthread_mutex_lock(self.mutex)
    self.effects.append(effect)
    pthread_mutex_unlock(self.mutex)
  }

  /// Enqueues an effect and delivers it (with any others pending) unless another thread already
  /// delivers effects for this lock.
  package func perform(_ effect: @escaping @Sendable () -> Void) {
    pthread_mutex_lock(self.mutex)
    self.depth += 1
    self.effects.append(effect)
    self.unlockAndDeliver()
  }

  private func unlockAndDeliver() {
    self.depth -= 1
    let shouldDeliver = self.depth == 0 && !self.isDelivering && !self.effects.isEmpty
    if shouldDeliver {
      self.isDelivering = true
    }
    pthread_mutex_unlock(self.mutex)
    if shouldDeliver {
      self.deliver()
    }
  }

  private func deliver() {
    while true {
      pthread_mutex_lock(self.mutex)
      guard !self.effects.isEmpty else {
        self.isDelivering = false
        pthread_mutex_unlock(self.mutex)
        return
      }
      let batch = self.effects
      self.effects.removeAll(keepingCapacity: true)
      pthread_mutex_unlock(self.mutex)
      for effect in batch {
        effect()
      }
    }
  }
}
