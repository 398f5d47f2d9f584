import OperationSynchronization

/// The pool of an application's stores, one per ``OperationPath``.
///
/// Ask the client for a store; it creates the store the first time and returns the same
/// instance afterwards, so every screen that observes an operation shares its state:
///
/// ```swift
/// let client = OperationClient()
/// let store = client.store(for: Post.query(for: 1))
/// client.store(for: Post.query(for: 1)) === store  // true
/// ```
///
/// Find stores by path prefix to update many at once:
///
/// ```swift
/// for store in client.stores(matching: ["user-friends"], of: FriendsQuery.State.self) {
///   store.withExclusiveAccess { store in
///     store.currentValue = store.currentValue?.updating(userId, to: .requestSent)
///   }
/// }
/// ```
///
/// Looking a store up by its path is a hash lookup, and `stores(matching:)` costs in proportion to
/// the number of stores it returns.
public final class OperationClient: Sendable {
  let storeCache: any StoreCache & Sendable
  private let storeCreator: any StoreCreator & Sendable
  let lock: RecursiveLock<Storage>

  struct Storage: Sendable {
    var defaultContext: OperationContext
    var subscribers = Subscribers<ChangeSubscriber>()
    var invalidationSubscribers = Subscribers<@Sendable (OperationPath) -> Void>()
    var circuitBreakers = [CircuitBreaker]()
  }

  struct ChangeSubscriber: Sendable {
    let path: OperationPath
    let onChange: @Sendable (OpaqueSubscriptionChange) -> Void
  }

  /// Creates a client.
  ///
  /// - Parameters:
  ///   - defaultContext: The context that new stores start from; the client adds itself to it
  ///     as ``OperationContext/operationClient``, weakly.
  ///   - storeCache: Where the stores are kept.
  ///   - storeCreator: Creates each new store, for example with default modifiers.
  public init(
    defaultContext: OperationContext = OperationContext(),
    storeCache: some StoreCache & Sendable = DefaultStoreCache(),
    storeCreator: some StoreCreator & Sendable
  ) {
    self.storeCache = storeCache
    self.storeCreator = storeCreator
    self.lock = RecursiveLock(Storage(defaultContext: defaultContext))
    self.lock.withLock { $0.defaultContext.setOperationClient(weak: self) }
  }
}

// MARK: - Default context

extension OperationClient {
  /// The context that stores created from now on start from; existing stores keep theirs.
  public var defaultContext: OperationContext {
    get { self.lock.withLock { $0.defaultContext } }
    set {
      self.lock.withLock { storage in
        storage.defaultContext = newValue
        if newValue.operationClient == nil {
          storage.defaultContext.setOperationClient(weak: self)
        }
      }
    }
  }
}

// MARK: - Stores

extension OperationClient {
  /// The store for an operation, created with `initialState` if the client has none at its path.
  ///
  /// When a store exists at the path, it is returned and `initialState` is ignored. When it was
  /// created by an operation of another type, the client reports
  /// `OperationWarning.duplicatePath(expectedType:foundType:)` and returns a new store that it
  /// does not cache.
  ///
  /// - Parameters:
  ///   - operation: The operation.
  ///   - initialState: The state of a new store.
  ///   - fileID: The file ID of the call, where a duplicate-path warning points.
  ///   - filePath: The file path of the call.
  ///   - line: The line of the call.
  ///   - column: The column of the call.
  /// - Returns: The store.
  public func store<Operation: StatefulOperationRequest>(
    for operation: sending Operation,
    initialState: Operation.State,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> OperationStore<Operation.State> {
    self.makeStore(
      for: operation,
      initialState: initialState,
      fileID: fileID,
      filePath: filePath,
      line: line,
      column: column
    )
  }

  func makeStore<Operation: StatefulOperationRequest>(
    for operation: sending Operation,
    initialState: Operation.State,
    fileID: StaticString,
    filePath: StaticString,
    line: UInt,
    column: UInt
  ) -> OperationStore<Operation.State> {
    let path = operation.path
    // NB: Most calls find a store that this client made for the same type of operation. Those
    // need neither the client's lock (the cache has its own) nor a dynamic cast: a store made for
    // `Operation` has the state `Operation.State`.
    let existing = self.storeCache.withStores { $0[path] }
    if let existing, let store = existing.store(madeFor: Operation.self) {
      self.storeCache.storeWasUsed(existing)
      return store
    }
    // NB: The creator, and with it the operation's `setup` and the store's controllers, is the
    // user's code, so it runs with no lock held. Two threads that ask for the same new path at
    // once both create a store; the first to join the cache wins and the other's is dropped.
    let store = self.storeCreator.store(
      for: operation,
      in: self.defaultContext,
      with: initialState
    )
    if let existing {
      self.reportDuplicatePath(
        existing,
        requested: Operation.self,
        fileID: fileID,
        filePath: filePath,
        line: line,
        column: column
      )
      return store
    }
    store.recordLookupOperationType(Operation.self)
    let opaque = OpaqueOperationStore(erasing: store)
    let winner = self.lock.withLock { storage in
      let winner = self.storeCache.withStores { stores -> OpaqueOperationStore? in
        if let winner = stores[path] {
          return winner
        }
        stores.update(opaque)
        return nil
      }
      if winner == nil {
        self.notify(storage, added: [opaque], removed: [])
        store.scheduleCollection()
      }
      return winner
    }
    // NB: With no lock held, since a cache with limits may evict other stores here.
    self.storeCache.storeWasUsed(winner ?? opaque)
    guard let winner else { return store }
    if let cached = winner.store(madeFor: Operation.self) {
      return cached
    }
    self.reportDuplicatePath(
      winner,
      requested: Operation.self,
      fileID: fileID,
      filePath: filePath,
      line: line,
      column: column
    )
    return store
  }

  private func reportDuplicatePath(
    _ existing: OpaqueOperationStore,
    requested: any Any.Type,
    fileID: StaticString,
    filePath: StaticString,
    line: UInt,
    column: UInt
  ) {
    let warning = OperationWarning.duplicatePath(
      expectedType: existing.recordedOperationType ?? type(of: existing.base),
      foundType: requested
    )
    reportWarning(warning, fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// The store at exactly `path`, if any.
  ///
  /// - Parameter path: The path.
  /// - Returns: The store, erased.
  public func store(with path: OperationPath) -> OpaqueOperationStore? {
    self.storeCache.withStores { $0[path] }
  }

  /// The stores whose paths start with `path`.
  ///
  /// - Parameter path: The prefix; the empty path matches every store.
  /// - Returns: The matching stores, erased.
  /// - Complexity: O(*m*), where *m* is the number of matches.
  public func stores(matching path: OperationPath) -> OperationPathableCollection<
    OpaqueOperationStore
  > {
    self.storeCache.withStores { $0.collection(matching: path) }
  }

  /// The stores whose paths start with `path` and whose state is of a given type.
  ///
  /// - Parameters:
  ///   - path: The prefix; the empty path matches every store.
  ///   - stateType: The exact state type.
  /// - Returns: The matching stores.
  public func stores<State: OperationState>(
    matching path: OperationPath,
    of stateType: State.Type
  ) -> OperationPathableCollection<OperationStore<State>> {
    Self.typed(self.stores(matching: path), as: stateType)
  }

  /// Removes the stores whose paths start with `path`.
  ///
  /// - Parameter path: The prefix; the empty path removes every store.
  public func clearStores(matching path: OperationPath = OperationPath()) {
    self.lock.withLock { storage in
      let removed = self.storeCache.withStores { stores in
        let removed = stores.collection(matching: path)
        stores.removeAll(matching: path)
        return removed
      }
      self.notify(storage, added: [], removed: removed)
    }
  }

  /// Removes the store at exactly `path`.
  ///
  /// - Parameter path: The path.
  /// - Returns: The removed store, if any.
  @discardableResult
  public func clearStore(with path: OperationPath) -> OpaqueOperationStore? {
    self.lock.withLock { storage in
      let removed = self.storeCache.withStores { stores -> OpaqueOperationStore? in
        stores.removeValue(forPath: path)
      }
      guard let removed else {
        return nil
      }
      self.notify(storage, added: [], removed: [removed])
      return removed
    }
  }

  private static func typed<State: OperationState>(
    _ stores: OperationPathableCollection<OpaqueOperationStore>,
    as _: State.Type
  ) -> OperationPathableCollection<OperationStore<State>> {
    var typed = OperationPathableCollection<OperationStore<State>>()
    for store in stores {
      if let store = store.base as? OperationStore<State> {
        typed.update(store)
      }
    }
    return typed
  }
}

// MARK: - Bulk edits

extension OperationClient {
  /// Edits the stores whose paths start with `path` as one collection, under the client's lock.
  ///
  /// Stores added to the collection join the client, stores removed from it leave; subscribers
  /// hear of both once `body` returns. Calls may be nested.
  ///
  /// ```swift
  /// client.withStores(matching: ["user"]) { stores, createStore in
  ///   stores.removeAll(matching: ["user", oldId])
  ///   stores.update(OpaqueOperationStore(erasing: createStore(for: UserQuery(id: newId))))
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - path: The prefix; the empty path edits every store.
  ///   - body: Edits the collection; `createStore` makes stores with the client's creator.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  public func withStores<T>(
    matching path: OperationPath,
    perform body: (inout OperationPathableCollection<OpaqueOperationStore>, borrowing CreateStore)
      throws -> sending T
  ) rethrows -> T {
    try self.lock.withLockHeld { () throws -> T in
      let before = self.stores(matching: path)
      var stores = before
      let createStore = CreateStore(creator: self.storeCreator, context: self.defaultContext)
      let result = try body(&stores, createStore)
      self.commit(from: before, to: stores)
      return result
    }
  }

  /// Edits the stores of one state type whose paths start with `path`; see
  /// ``withStores(matching:perform:)``.
  ///
  /// - Parameters:
  ///   - path: The prefix; the empty path edits every store of the type.
  ///   - stateType: The exact state type.
  ///   - body: Edits the collection.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  public func withStores<T, State: OperationState>(
    matching path: OperationPath,
    of stateType: State.Type,
    perform body: (inout OperationPathableCollection<OperationStore<State>>, borrowing CreateStore)
      throws -> sending T
  ) rethrows -> T {
    try self.lock.withLockHeld { () throws -> T in
      let before = Self.typed(self.stores(matching: path), as: stateType)
      var stores = before
      let createStore = CreateStore(creator: self.storeCreator, context: self.defaultContext)
      let result = try body(&stores, createStore)
      self.commit(
        from: OperationPathableCollection(before.map { OpaqueOperationStore(erasing: $0) }),
        to: OperationPathableCollection(stores.map { OpaqueOperationStore(erasing: $0) })
      )
      return result
    }
  }

  private func commit(
    from before: OperationPathableCollection<OpaqueOperationStore>,
    to after: OperationPathableCollection<OpaqueOperationStore>
  ) {
    var added = OperationPathableCollection<OpaqueOperationStore>()
    var removed = OperationPathableCollection<OpaqueOperationStore>()
    for store in after {
      if let old = before[store.path], old.base as AnyObject === store.base as AnyObject {
        continue
      }
      added.update(store)
    }
    for store in before where after[store.path] == nil {
      removed.update(store)
    }
    guard !added.isEmpty || !removed.isEmpty else { return }
    self.lock.withLock { storage in
      self.storeCache.withStores { stores in
        for store in removed {
          stores.removeValue(forPath: store.path)
        }
        for store in added {
          stores.update(store)
        }
      }
      self.notify(storage, added: added, removed: removed)
    }
    for store in added {
      self.storeCache.storeWasUsed(store)
    }
  }
}

// MARK: - Subscriptions

extension OperationClient {
  /// The stores that joined and left the client in one change.
  public struct OpaqueSubscriptionChange: Sendable {
    /// The stores that joined.
    public fileprivate(set) var storesAdded = OperationPathableCollection<OpaqueOperationStore>()

    /// The stores that left.
    public fileprivate(set) var storesRemoved = OperationPathableCollection<OpaqueOperationStore>()
  }

  /// The stores of one state type that joined and left the client in one change.
  public struct SubscriptionChange<State: OperationState & Sendable>: Sendable {
    /// The stores that joined.
    public let storesAdded: OperationPathableCollection<OperationStore<State>>

    /// The stores that left.
    public let storesRemoved: OperationPathableCollection<OperationStore<State>>
  }

  /// Calls `onChange` when stores whose paths start with `path` join or leave the client.
  ///
  /// Stores that existed before the subscription, edits that change nothing, and stores a cache
  /// evicts on its own are not reported. Changes are delivered after the client's lock is
  /// released, in order.
  ///
  /// - Parameters:
  ///   - path: The prefix; the empty path watches every store.
  ///   - onChange: Receives each non-empty change.
  /// - Returns: A subscription that ends when cancelled or released.
  public func subscribe(
    matching path: OperationPath = OperationPath(),
    onChange: @escaping @Sendable (OpaqueSubscriptionChange) -> Void
  ) -> OperationSubscription {
    let id = self.lock.withLock { storage in
      storage.subscribers.add(ChangeSubscriber(path: path, onChange: onChange))
    }
    return OperationSubscription { [weak self] in
      self?.lock.withLock { _ = $0.subscribers.remove(id: id) }
    }
  }

  /// Calls `onChange` when stores of a state type whose paths start with `path` join or leave.
  ///
  /// - Parameters:
  ///   - path: The prefix; the empty path watches every store.
  ///   - state: The exact state type.
  ///   - onChange: Receives each change that has stores of the type.
  /// - Returns: A subscription that ends when cancelled or released.
  public func subscribe<State: OperationState>(
    matching path: OperationPath = OperationPath(),
    state: State.Type,
    onChange: @escaping @Sendable (SubscriptionChange<State>) -> Void
  ) -> OperationSubscription {
    self.subscribe(matching: path) { change in
      let typed = SubscriptionChange(
        storesAdded: Self.typed(change.storesAdded, as: State.self),
        storesRemoved: Self.typed(change.storesRemoved, as: State.self)
      )
      guard !typed.storesAdded.isEmpty || !typed.storesRemoved.isEmpty else { return }
      onChange(typed)
    }
  }

  func notify(
    _ storage: Storage,
    added: OperationPathableCollection<OpaqueOperationStore>,
    removed: OperationPathableCollection<OpaqueOperationStore>
  ) {
    let subscribers = storage.subscribers.handlers
    guard !subscribers.isEmpty, !added.isEmpty || !removed.isEmpty else { return }
    self.lock.enqueue {
      for subscriber in subscribers {
        var change = OpaqueSubscriptionChange()
        change.storesAdded = added.filter { subscriber.path.isPrefix(of: $0.path) }
        change.storesRemoved = removed.filter { subscriber.path.isPrefix(of: $0.path) }
        if !change.storesAdded.isEmpty || !change.storesRemoved.isEmpty {
          subscriber.onChange(change)
        }
      }
    }
  }
}

extension OperationPathableCollection {
  fileprivate func filter(_ isIncluded: (Element) -> Bool) -> Self {
    var filtered = Self()
    for element in self where isIncluded(element) {
      filtered.update(element)
    }
    return filtered
  }
}

// MARK: - Context

extension OperationContext {
  /// The client that created the store running this operation.
  ///
  /// A client refers to itself weakly; setting this property by hand stores a strong reference.
  public var operationClient: OperationClient? {
    get {
      let reference = self[OperationClientKey.self]
      return reference.strong ?? reference.weak
    }
    set { self[OperationClientKey.self] = ClientReference(strong: newValue) }
  }

  fileprivate mutating func setOperationClient(weak client: OperationClient) {
    self[OperationClientKey.self] = ClientReference(weak: client)
  }

  private enum OperationClientKey: Key {
    static let defaultValue = ClientReference()
  }
}

private struct ClientReference: Sendable {
  weak var weak: OperationClient?
  var strong: OperationClient?

  init(weak: OperationClient? = nil, strong: OperationClient? = nil) {
    self.weak = weak
    self.strong = strong
  }
}
