import OperationSynchronization

/// A read-only view of one part of a store's state, whose subscribers hear only of changes to
/// that part.
///
/// Make one with ``OperationStore/select(_:)-(KeyPath<State,Value>Sendable)`` or
/// ``OperationStore/select(_:)-((State)->Value)``. A subscriber of the selection receives the
/// selected value at once, then each new value that differs (by `==`) from the last one it was
/// sent; state changes that leave the selected value as it was call no subscriber at all:
///
/// ```swift
/// let title = client.store(for: Post.query(for: 1)).select { $0.currentValue??.title }
/// let subscription = title.subscribe { title in
///   print(title)  // Once now, then only when the title changes.
/// }
/// ```
///
/// ## Subscriptions
///
/// While it has subscribers, the selection holds one subscription to its store, so it counts as
/// one subscriber there: its first subscriber can start the store's automatic run, and the store
/// is not collected or evicted while the selection is observed. The subscription to the store
/// ends with the selection's last subscriber.
///
/// ## Concurrency
///
/// `transform` is your code: it runs with no lock of the library held, once per state change of
/// the store while the selection has subscribers. Subscribers are called in the order the values
/// changed, one at a time, never while a lock is held.
public final class OperationSelection<
  State: OperationState & Sendable,
  Value: Equatable & Sendable
>:
  Sendable
{
  /// The store the selection reads.
  public let store: OperationStore<State>

  private let transform: @Sendable (State) -> Value
  private let lock: RecursiveLock<Storage>

  private struct Storage: Sendable {
    var subscribers = Subscribers<@Sendable (Value) -> Void>()
    /// The last value sent to subscribers, while the selection is subscribed to its store.
    var value: Value?
    var storeSubscription: OperationSubscription?
    /// Bumped each time the selection subscribes to its store, so that the deliveries of an
    /// ended subscription are told apart from those of the current one.
    var generation = 0
  }

  init(store: OperationStore<State>, transform: @escaping @Sendable (State) -> Value) {
    self.store = store
    self.transform = transform
    self.lock = RecursiveLock(Storage())
  }

  /// The selected value of the store's current state.
  ///
  /// While the selection has subscribers this is the last value they were sent; otherwise
  /// `transform` runs on the store's current state.
  public var value: Value {
    if let value = self.lock.withLock({ $0.value }) {
      return value
    }
    return self.transform(self.store.state)
  }

  /// The number of subscribers of the selection.
  public var subscriberCount: Int {
    self.lock.withLock { $0.subscribers.count }
  }

  /// Calls `onChange` with the selected value now, then each time it changes.
  ///
  /// - Parameter onChange: Receives the selected value.
  /// - Returns: A subscription that ends when cancelled or released.
  public func subscribe(
    _ onChange: @escaping @Sendable (Value) -> Void
  ) -> OperationSubscription {
    let (id, generation) = self.lock.withLock { storage -> (Int, Int?) in
      let id = storage.subscribers.add(onChange)
      if let value = storage.value {
        self.lock.enqueue { onChange(value) }
      }
      guard storage.storeSubscription == nil else { return (id, nil) }
      storage.generation &+= 1
      // NB: A placeholder, so that a subscriber arriving while this one subscribes to the store
      // does not subscribe a second time; the real subscription replaces it below.
      storage.storeSubscription = .empty
      return (id, storage.generation)
    }
    if let generation {
      self.subscribeToStore(generation: generation)
    }
    // NB: The subscription keeps the selection alive, so that a selection made and subscribed
    // to in one expression keeps delivering.
    return OperationSubscription {
      self.unsubscribe(id: id)
    }
  }

  private func subscribeToStore(generation: Int) {
    // NB: The store delivers the current state at once, which sends the first value to every
    // subscriber that is waiting for it.
    let subscription = self.store.subscribe(
      with: OperationEventHandler { [weak self] state, _ in
        self?.receive(state, generation: generation)
      }
    )
    let stale = self.lock.withLock { storage -> OperationSubscription? in
      guard storage.generation == generation, storage.storeSubscription != nil else {
        return subscription
      }
      storage.storeSubscription = subscription
      return nil
    }
    stale?.cancel()
  }

  private func receive(_ state: State, generation: Int) {
    // NB: The store delivers states one at a time, so no other `receive` changes `value` between
    // the read and the write; the comparison, which may be your code, runs with no lock held.
    let value = self.transform(state)
    let last = self.lock.withLock { $0.value }
    if let last, last == value { return }
    self.lock.withLock { storage in
      guard storage.generation == generation, storage.storeSubscription != nil else { return }
      storage.value = value
      let handlers = storage.subscribers.handlers
      self.lock.enqueue {
        for handler in handlers {
          handler(value)
        }
      }
    }
  }

  private func unsubscribe(id: Int) {
    let subscription = self.lock.withLock { storage -> OperationSubscription? in
      guard storage.subscribers.remove(id: id), storage.subscribers.count == 0 else { return nil }
      defer {
        storage.storeSubscription = nil
        storage.value = nil
      }
      return storage.storeSubscription
    }
    subscription?.cancel()
  }
}

// MARK: - Making selections

extension OperationStore {
  /// A view of one member of the state, whose subscribers hear only of changes to that member.
  ///
  /// ```swift
  /// let isLoading = store.select(\.isLoading)
  /// ```
  ///
  /// - Parameter keyPath: The member.
  /// - Returns: The selection.
  public func select<Value: Equatable & Sendable>(
    _ keyPath: any KeyPath<State, Value> & Sendable
  ) -> OperationSelection<State, Value> {
    OperationSelection(store: self) { $0[keyPath: keyPath] }
  }

  /// A view of a value derived from the state, whose subscribers hear only of changes to it.
  ///
  /// ```swift
  /// let count = store.select { $0.currentValue?.count ?? 0 }
  /// ```
  ///
  /// - Parameter transform: Derives the value; it runs with no lock held.
  /// - Returns: The selection.
  public func select<Value: Equatable & Sendable>(
    _ transform: @escaping @Sendable (State) -> Value
  ) -> OperationSelection<State, Value> {
    OperationSelection(store: self, transform: transform)
  }
}

// MARK: - Closure subscriptions

extension OperationStore {
  /// Calls `onStateChanged` with the current state now, then after each change.
  ///
  /// The closure form of ``subscribe(with:)-(OperationEventHandler<State>)``; the subscription
  /// counts as a subscriber, which may start the store's automatic run.
  ///
  /// ```swift
  /// let subscription = store.subscribe { state in
  ///   print(state.status)
  /// }
  /// ```
  ///
  /// - Parameter onStateChanged: Receives the state.
  /// - Returns: A subscription that ends when cancelled or released.
  public func subscribe(
    _ onStateChanged: @escaping @Sendable (State) -> Void
  ) -> OperationSubscription {
    self.subscribe(with: OperationEventHandler { state, _ in onStateChanged(state) })
  }
}
