#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A reentrant lock that guards a value and runs deferred effects, in order, once the thread holds
/// no library lock: with ``Lock``, the package's one lock family (``Lock`` says why neither is
/// `Synchronization.Mutex`).
///
/// Its signatures are `Mutex`'s, for a `Sendable` value: a reentrant lock hands the same value to
/// nested sections, which the compiler can only allow for values that may be shared.
///
/// `OperationStore.withExclusiveAccess` and `OperationClient.withStores` let their closures call
/// back into the same store or client (for example `store.currentValue = …` inside
/// `withExclusiveAccess`), which `Synchronization.Mutex` forbids. This lock allows that nesting on
/// the owning thread, and keeps the house rule that no user code runs while a lock is held:
/// inside the lock, callers only *enqueue* effects (subscriber callbacks, cancellations), and the
/// effects run after the thread's outermost release of *every* `RecursiveLock`. Changing store B
/// inside store A's `withExclusiveAccess` therefore delivers B's events after A's lock is
/// released, not while it is held.
///
/// Effects of one lock run on one thread at a time and in the order they were enqueued: an effect
/// enqueued while another thread is already delivering effects for the lock is delivered by that
/// thread, right after the ones before it, so every subscriber sees events in the order the state
/// changed.
@usableFromInline package struct RecursiveLock<Value: Sendable>: @unchecked Sendable {
  // NB: Copies of the lock share its storage, a managed buffer whose header holds a recursive
  // `pthread_mutex_t` and the bookkeeping, and whose only element is the value, so that a store
  // pays for one allocation. The header is not generic, so that locking and unlocking in the
  // store's unspecialized generic code needs no generic metadata from the runtime. The value and
  // everything in the header but the mutex are read and written only while the mutex is held.
  // Effects are `@Sendable` because the thread that delivers them may not be the one that
  // enqueued them.
  private let storage: Storage

  @usableFromInline package init(_ value: consuming sending Value) {
    self.storage = Storage.make(value)
  }

  /// Runs `body` with exclusive access to the value; may be nested on the same thread.
  ///
  /// Effects enqueued inside `body` run once the thread holds no `RecursiveLock`.
  @inline(__always)
  @usableFromInline package func withLock<Result, Failure: Error>(
    _ body: (inout sending Value) throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    let (value, thread) = self.storage.acquire()
    defer { self.storage.releaseAndDeliver(on: thread) }
    return try body(&value.pointee)
  }

  /// Holds the lock while `body` runs, without giving it access to the value; may be nested.
  ///
  /// Effects enqueued inside `body` run once the thread holds no `RecursiveLock`.
  @usableFromInline package func withLockHeld<Result, Failure: Error>(
    _ body: () throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    let (_, thread) = self.storage.acquire()
    defer { self.storage.releaseAndDeliver(on: thread) }
    return try body()
  }

  /// Enqueues an effect to run once the thread holds no `RecursiveLock`.
  ///
  /// Call this only from inside ``withLock(_:)``.
  @usableFromInline package func enqueue(_ effect: @escaping @Sendable () -> Void) {
    let (_, thread) = self.storage.acquire()
    self.storage.headerPointer.pointee.effects.append(effect)
    self.storage.release(on: thread)
  }

  private final class Storage: ManagedBuffer<RecursiveLockHeader, Value>, DeferredEffects {
    static func make(_ value: Value) -> Storage {
      let buffer = Storage.create(minimumCapacity: 1) { _ in RecursiveLockHeader() }
      // NB: `create` returns an instance of the class it is called on.
      let storage = unsafeDowncast(buffer, to: Storage.self)
      storage.withUnsafeMutablePointers { header, element in
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(&header.pointee.mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        element.initialize(to: value)
      }
      return storage
    }

    deinit {
      // NB: A managed buffer destroys its header but not its elements.
      self.withUnsafeMutablePointers { header, element in
        _ = element.deinitialize(count: 1)
        _ = pthread_mutex_destroy(&header.pointee.mutex)
      }
    }

    // NB: The header and the element of a managed buffer stay where they are for as long as the
    // buffer lives, and every caller holds the buffer while it uses these pointers. The mutex is
    // a stored property of the header, so `&header.pointee.mutex` is its address in the buffer.
    var headerPointer: UnsafeMutablePointer<RecursiveLockHeader> {
      self.withUnsafeMutablePointerToHeader { $0 }
    }

    /// Locks the mutex, spinning briefly before sleeping (the sections of a store are short),
    /// counts it among the thread's locks, and returns the value and the thread's record, which
    /// the matching release takes, so that a section looks the record up once.
    func acquire() -> (UnsafeMutablePointer<Value>, LockedThread) {
      let (header, value) = self.withUnsafeMutablePointers { ($0, $1) }
      var spins = 0
      while pthread_mutex_trylock(&header.pointee.mutex) != 0 {
        spins += 1
        if spins == 64 {
          pthread_mutex_lock(&header.pointee.mutex)
          break
        }
      }
      header.pointee.depth += 1
      let thread = LockedThread.current
      thread.depth += 1
      return (value, thread)
    }

    /// Releases the lock that `thread`, the current thread's record, acquired.
    func release(on thread: LockedThread) {
      let header = self.headerPointer
      header.pointee.depth -= 1
      thread.depth -= 1
      pthread_mutex_unlock(&header.pointee.mutex)
    }

    /// Releases the lock; at its outermost release, delivers its effects now if the thread holds
    /// no other `RecursiveLock`, and otherwise leaves them to the thread's last release.
    func releaseAndDeliver(on thread: LockedThread) {
      let header = self.headerPointer
      let hasEffects =
        header.pointee.depth == 1 && !header.pointee.isDelivering
        && !header.pointee.effects.isEmpty
      // NB: `thread.depth` counts this lock once more; above 1, another lock is still held.
      let deliversNow = hasEffects && thread.depth == 1
      if deliversNow {
        header.pointee.isDelivering = true
      }
      // NB: A lock is listed once however often it is released under another lock; the flag is
      // cleared when its effects are delivered.
      let defers = hasEffects && !deliversNow && !header.pointee.isDeferred
      if defers {
        header.pointee.isDeferred = true
      }
      self.release(on: thread)
      if deliversNow {
        self.deliver()
      } else if defers {
        thread.deferred.append(self)
      }
      if thread.depth == 0 && thread.hasDeferredWork {
        thread.deliverDeferred()
      }
    }

    func deliverIfIdle() {
      let header = self.headerPointer
      let (_, thread) = self.acquire()
      header.pointee.isDeferred = false
      let deliversNow = !header.pointee.isDelivering && !header.pointee.effects.isEmpty
      if deliversNow {
        header.pointee.isDelivering = true
      }
      self.release(on: thread)
      if deliversNow {
        self.deliver()
      }
    }

    private func deliver() {
      let header = self.headerPointer
      while true {
        let (_, thread) = self.acquire()
        guard !header.pointee.effects.isEmpty else {
          header.pointee.isDelivering = false
          self.release(on: thread)
          return
        }
        let batch = header.pointee.effects
        header.pointee.effects.removeAll(keepingCapacity: true)
        self.release(on: thread)
        for effect in batch {
          effect()
        }
      }
    }
  }
}

/// What the current thread holds of the library's reentrant locks.
package enum LibraryLocks {
  /// Whether the current thread holds at least one `RecursiveLock` (a store's or a client's), for
  /// tests of the rule that no user code runs under a library lock.
  package static var areHeldByCurrentThread: Bool {
    LockedThread.current.depth > 0
  }

  /// Runs `body` now when the thread holds no `RecursiveLock`, and otherwise right after the
  /// thread releases the last one, on the same thread.
  ///
  /// Code that may run under a store's lock, such as a state's methods, reports warnings through
  /// this, so that issue reporters never run under a library lock.
  package static func afterRelease(_ body: @escaping () -> Void) {
    let thread = LockedThread.current
    if thread.depth > 0 {
      thread.pending.append(body)
    } else {
      body()
    }
  }
}

/// The mutex and bookkeeping of a ``RecursiveLock``, kept apart from its value so that they are
/// not generic.
private struct RecursiveLockHeader {
  var mutex = pthread_mutex_t()
  var depth = 0
  var effects = [@Sendable () -> Void]()
  var isDelivering = false
  /// Whether a thread has listed this lock to deliver its effects at the thread's last release.
  var isDeferred = false
}

/// A lock whose effects wait for its thread to release every `RecursiveLock`.
private protocol DeferredEffects: AnyObject {
  /// Delivers the lock's pending effects unless another thread is delivering them already.
  func deliverIfIdle()
}

/// What one thread knows about the `RecursiveLock`s it holds: how many acquisitions are open,
/// and which locks released their last hold while another was still held, so that their effects
/// wait for the thread's last release.
private final class LockedThread {
  // NB: Unchecked exclusivity: a record is only ever used by its own thread, and no access to a
  // property spans a call that could reach the record again (`deliverDeferred` copies the lists
  // out before it runs anything). Checked, each section paid four runtime access checks.
  @exclusivity(unchecked) var depth = 0
  @exclusivity(unchecked) var deferred = [any DeferredEffects]()
  @exclusivity(unchecked) var pending = [() -> Void]()

  var hasDeferredWork: Bool {
    !self.deferred.isEmpty || !self.pending.isEmpty
  }

  /// The current thread's record, made on first use and released when the thread exits.
  static var current: LockedThread {
    if let pointer = pthread_getspecific(lockedThreadKey) {
      return Unmanaged<LockedThread>.fromOpaque(pointer).takeUnretainedValue()
    }
    let thread = LockedThread()
    pthread_setspecific(lockedThreadKey, Unmanaged.passRetained(thread).toOpaque())
    return thread
  }

  /// Delivers the effects that waited for the thread to release its last lock.
  ///
  /// An effect may take and release locks itself, which can defer more locks; they are
  /// delivered by the same loop.
  func deliverDeferred() {
    while self.hasDeferredWork {
      let locks = self.deferred
      self.deferred.removeAll()
      for lock in locks {
        lock.deliverIfIdle()
      }
      let pending = self.pending
      self.pending.removeAll()
      for body in pending {
        body()
      }
    }
  }
}

/// The thread-specific key of ``LockedThread/current``; each thread's record is released when the
/// thread exits.
private let lockedThreadKey: pthread_key_t = {
  var key = pthread_key_t()
  let status = pthread_key_create(&key) { pointer in
    guard let pointer else { return }
    Unmanaged<LockedThread>.fromOpaque(pointer).release()
  }
  precondition(status == 0, "pthread_key_create failed with \(status)")
  return key
}()
