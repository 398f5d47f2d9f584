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
package struct RecursiveLock<Value>: @unchecked Sendable {
  // NB: Copies of the lock share its storage, a managed buffer that holds the value and the
  // bookkeeping in its header and a recursive `pthread_mutex_t` as its only element, so that a
  // store pays for one allocation. Everything in the header is read and written only while the
  // mutex is held. Effects are `@Sendable` because the thread that delivers them may not be the
  // one that enqueued them.
  private let storage: Storage

  private struct Header {
    var value: Value
    var depth = 0
    var effects = [@Sendable () -> Void]()
    var isDelivering = false
  }

  package init(_ value: Value) {
    self.storage = Storage.make(Header(value: value))
  }

  /// Runs `body` with exclusive access to the value; may be nested on the same thread.
  ///
  /// Effects enqueued with ``enqueue(_:)`` during `body` run after the outermost call returns.
  package func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let header = self.storage.acquire()
    defer { self.storage.releaseAndDeliver() }
    return try body(&header.pointee.value)
  }

  /// Holds the lock while `body` runs, without giving it access to the value; may be nested.
  ///
  /// Use this when `body` calls other methods that take the lock with ``withLock(_:)``: a nested
  /// `withLock(_:)` inside another would access the value twice at once.
  package func withLockHeld<Result, Failure: Error>(
    _ body: () throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    _ = self.storage.acquire()
    defer { self.storage.releaseAndDeliver() }
    return try body()
  }

  /// Enqueues an effect to run after the outermost ``withLock(_:)`` releases the lock.
  ///
  /// Call this only from inside ``withLock(_:)``.
  package func enqueue(_ effect: @escaping @Sendable () -> Void) {
    let header = self.storage.acquire()
    header.pointee.effects.append(effect)
    self.storage.release()
  }

  /// Enqueues an effect and delivers it (with any others pending) unless another thread already
  /// delivers effects for this lock.
  package func perform(_ effect: @escaping @Sendable () -> Void) {
    let header = self.storage.acquire()
    header.pointee.effects.append(effect)
    self.storage.releaseAndDeliver()
  }

  private final class Storage: ManagedBuffer<Header, pthread_mutex_t> {
    static func make(_ header: Header) -> Storage {
      let buffer = Storage.create(minimumCapacity: 1) { _ in header }
      // NB: `create` returns an instance of the class it is called on.
      let storage = unsafeDowncast(buffer, to: Storage.self)
      storage.withUnsafeMutablePointerToElements { mutex in
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
      }
      return storage
    }

    deinit {
      self.withUnsafeMutablePointerToElements { mutex in
        _ = pthread_mutex_destroy(mutex)
      }
    }

    // NB: The header and the element of a managed buffer stay where they are for as long as the
    // buffer lives, and every caller holds the buffer while it uses these pointers.
    private var pointers: (UnsafeMutablePointer<Header>, UnsafeMutablePointer<pthread_mutex_t>) {
      self.withUnsafeMutablePointers { ($0, $1) }
    }

    /// Locks the mutex, spinning briefly before sleeping (the sections of a store are short),
    /// and returns the header.
    func acquire() -> UnsafeMutablePointer<Header> {
      let (header, mutex) = self.pointers
      var spins = 0
      while pthread_mutex_trylock(mutex) != 0 {
        spins += 1
        if spins == 64 {
          pthread_mutex_lock(mutex)
          break
        }
      }
      header.pointee.depth += 1
      return header
    }

    func release() {
      let (header, mutex) = self.pointers
      header.pointee.depth -= 1
      pthread_mutex_unlock(mutex)
    }

    func releaseAndDeliver() {
      let (header, _) = self.pointers
      let shouldDeliver =
        header.pointee.depth == 1 && !header.pointee.isDelivering
        && !header.pointee.effects.isEmpty
      if shouldDeliver {
        header.pointee.isDelivering = true
      }
      self.release()
      if shouldDeliver {
        self.deliver()
      }
    }

    private func deliver() {
      while true {
        let header = self.acquire()
        guard !header.pointee.effects.isEmpty else {
          header.pointee.isDelivering = false
          self.release()
          return
        }
        let batch = header.pointee.effects
        header.pointee.effects.removeAll(keepingCapacity: true)
        self.release()
        for effect in batch {
          effect()
        }
      }
    }
  }
}
