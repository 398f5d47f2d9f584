import Dependencies
public import OperationCore

// MARK: - SharedOperation

/// A property wrapper that observes the state of an operation's store and runs the operation.
///
/// Declare one in an `@Observable` model (marked `@ObservationIgnored`, as the wrapper does its
/// own observation) or in a SwiftUI view. Creating it subscribes to the operation's store, which
/// starts fetching when the store runs by itself:
///
/// ```swift
/// @MainActor
/// @Observable
/// final class PostModel {
///   @ObservationIgnored
///   @SharedOperation<Post.Query.State> var post: Post??
///
///   init(id: Int) {
///     // By default, this begins fetching the post.
///     self._post = SharedOperation(Post.query(for: id))
///   }
///
///   func reload() async throws {
///     try await self.$post.fetch()
///   }
/// }
/// ```
///
/// The wrapped value is the state's current value. The projected value (`$post`) is the wrapper
/// itself: it reads the rest of the state through dynamic member lookup (`$post.status`,
/// `$post.isLoading`, `$post.error`), reads store members (`$post.isStale`), and runs the
/// operation (`$post.fetch()`, `$post.mutate(with:)`). To change the value, use
/// ``withLock(_:fileID:filePath:line:column:)``:
///
/// ```swift
/// $post.withLock { $0 = nil }
/// ```
///
/// ## Observation
///
/// Every member that reads state (the wrapped value, ``state``, ``isLoading``, ``error``,
/// ``isPlaceholder``, the dynamic members, ``isBacked``, ``store``) registers an Observation
/// dependency, so
/// `withObservationTracking`, `@Observable` models and SwiftUI views update when the store's
/// state changes. The store's changes reach the wrapper through its
/// ``SharedOperationStateScheduler``; see <doc:ObservingState> for the exact contract.
///
/// To observe only part of the state, make a ``SharedSelection`` with
/// ``select(_:)-(KeyPath<State,Value>Sendable)``; its observers are told only when that part changes.
///
/// ## Placeholders
///
/// A wrapper can show a placeholder while its store has no result yet, such as the previous page
/// while the next one loads:
///
/// ```swift
/// self.$posts = SharedOperation(Post.listQuery(page: page), placeholder: .previousValue)
/// ```
///
/// ``isPlaceholder`` says whether the wrapped value is one; ``state`` always shows the store's
/// real state. See ``SharedOperationPlaceholder``.
///
/// ## Sharing
///
/// Wrappers created from the same operation get the same store from the `OperationClient`
/// (`@Dependency(\.defaultOperationClient)` unless you pass one), so they share its state and the
/// operation runs once for all of them. Each wrapper is a subscriber of its own.
///
/// ## Lifetime
///
/// Copies of a wrapper share its subscription. The subscription ends when the last copy that uses
/// it is released, or when every copy is re-pointed elsewhere by assigning to the projected value.
///
/// ## Unbacked shared operations
///
/// ``init(initialState:)`` and the `init(wrappedValue:)` initializers create a wrapper with state
/// but no operation, to declare a property now and assign a real operation later:
///
/// ```swift
/// @ObservationIgnored
/// @SharedOperation<Post.Query.State> var post = nil
///
/// func load(id: Int) {
///   self.$post = SharedOperation(Post.query(for: id))
/// }
/// ```
///
/// Running one before that reports an issue and fails with ``UnbackedSharedOperationError``
/// (upstream swift-operation stops the program instead).
@propertyWrapper
@dynamicMemberLookup
public struct SharedOperation<State: OperationState & Sendable>: Sendable {
  private let box: SharedOperationBox<State>

  var reference: SharedOperationReference<State> {
    self.box.reference
  }

  /// The state's current value, or the wrapper's placeholder while the store has no result.
  ///
  /// Reading it registers an Observation dependency. It cannot be set; change the value with
  /// `$value.withLock { $0 = newValue }`, which writes it to the store. See
  /// ``SharedOperationPlaceholder`` for when a placeholder is shown, and ``isPlaceholder`` to
  /// tell.
  public var wrappedValue: State.StateValue {
    get { self.shownValue.value }
    @available(
      *,
      unavailable,
      message: "Use '$value.withLock { $0 = newValue }' to change a shared operation's value."
    )
    nonmutating set { self.withLock { $0 = newValue } }
  }

  /// The wrapper itself, to reach its state, its store and its methods with `$value`.
  ///
  /// Assigning a wrapper re-points this wrapper, and every copy of it, to the assigned wrapper's
  /// store and subscription; observers of the old one are told of the change:
  ///
  /// ```swift
  /// self.$post = SharedOperation(Post.query(for: newID))
  /// ```
  ///
  /// When the assigned wrapper was created with a placeholder of
  /// ``SharedOperationPlaceholder/previousValue``, this wrapper keeps showing its current wrapped
  /// value, as a placeholder, until the new store has a result:
  ///
  /// ```swift
  /// self.$post = SharedOperation(Post.query(for: newID), placeholder: .previousValue)
  /// ```
  public var projectedValue: Self {
    get { self }
    nonmutating set { self.box.repoint(to: newValue.box.reference) }
  }

  /// Creates a shared operation from an operation and the state of a new store.
  ///
  /// The store comes from `client`; when the client already has a store for the operation's path,
  /// that store is used and `initialState` is ignored.
  ///
  /// - Parameters:
  ///   - operation: The operation.
  ///   - initialState: The state of a new store.
  ///   - client: The client to get the store from; `@Dependency(\.defaultOperationClient)` when
  ///     `nil`.
  ///   - scheduler: Where the store's state changes are applied to the wrapper.
  ///   - placeholder: What the wrapper shows while the store has no result; see
  ///     ``SharedOperationPlaceholder``.
  public init<Operation: StatefulOperationRequest>(
    _ operation: sending Operation,
    initialState: Operation.State,
    client: OperationClient? = nil,
    scheduler: some SharedOperationStateScheduler & Sendable = .synchronous,
    placeholder: SharedOperationPlaceholder<State> = .none
  ) where State == Operation.State {
    @Dependency(\.defaultOperationClient) var defaultClient
    let store = (client ?? defaultClient).store(for: operation, initialState: initialState)
    self.init(store: store, scheduler: scheduler, placeholder: placeholder)
  }

  /// Creates a shared operation that observes a store.
  ///
  /// The wrapper subscribes to the store, which starts a run when the store runs by itself and
  /// has no other subscriber.
  ///
  /// - Parameters:
  ///   - store: The store.
  ///   - scheduler: Where the store's state changes are applied to the wrapper.
  ///   - placeholder: What the wrapper shows while the store has no result; see
  ///     ``SharedOperationPlaceholder``.
  public init(
    store: OperationStore<State>,
    scheduler: some SharedOperationStateScheduler & Sendable = .synchronous,
    placeholder: SharedOperationPlaceholder<State> = .none
  ) {
    self.init(
      reference: SharedOperationReference(
        store: store,
        isBacked: true,
        scheduler: scheduler,
        placeholder: placeholder
      )
    )
  }

  /// Creates an unbacked shared operation: one with state but no operation.
  ///
  /// Assign a shared operation created from an operation to its projected value before running
  /// it; running it before that reports an issue and fails with
  /// ``UnbackedSharedOperationError``.
  ///
  /// - Parameter initialState: The state.
  public init(initialState: State) {
    let store = OperationStore.detached(
      operation: UnbackedOperation<State>(),
      initialState: initialState
    )
    self.init(
      reference: SharedOperationReference(store: store, isBacked: false, scheduler: .synchronous)
    )
  }

  private init(reference: SharedOperationReference<State>) {
    self.box = SharedOperationBox(reference)
  }
}

// MARK: - State

extension SharedOperation {
  /// Whether the wrapper was created from an operation.
  ///
  /// It is `false` for wrappers created with ``init(initialState:)`` or an `init(wrappedValue:)`
  /// initializer, until a backed wrapper is assigned to the projected value. Reading it registers
  /// an Observation dependency, so the assignment is observable.
  public var isBacked: Bool {
    let reference = self.reference
    reference.accessState()
    return reference.isBacked
  }

  /// The store the wrapper observes.
  ///
  /// Reading it registers an Observation dependency on the wrapper's state, as the members of
  /// the store read through it may change with the state.
  public var store: OperationStore<State> {
    let reference = self.reference
    reference.accessState()
    return reference.store
  }

  /// The current value, as last applied by the scheduler, or the placeholder while the store has
  /// no result; setting it writes it to the store.
  ///
  /// Reading it is the same as reading the wrapped value, and setting it is the same as
  /// `withLock { $0 = newValue }`. To change the value based on its current value, use
  /// ``withLock(_:fileID:filePath:line:column:)``, which reads and writes in one step.
  public var currentValue: State.StateValue {
    get { self.shownValue.value }
    nonmutating set { self.withLock { $0 = newValue } }
  }

  /// Whether the wrapped value is a placeholder rather than the store's value.
  ///
  /// It is `true` while the wrapper shows the placeholder it was created with (see
  /// ``SharedOperationPlaceholder``), that is while its store has received neither a value nor an
  /// error. Reading it registers an Observation dependency, so observers are told when the store's
  /// first result ends the placeholder and when the wrapper is re-pointed:
  ///
  /// ```swift
  /// var opacity: Double {
  ///   self.$posts.isPlaceholder ? 0.5 : 1
  /// }
  /// ```
  public var isPlaceholder: Bool {
    self.shownValue.isPlaceholder
  }

  /// The value the wrapper shows and whether it is a placeholder; registers an Observation
  /// dependency on the wrapper's reference and its state.
  private var shownValue: (value: State.StateValue, isPlaceholder: Bool) {
    let current = self.box.current
    return current.reference.shownValue(previousValue: current.previousValue)
  }

  /// The store's state, as last applied by the scheduler.
  ///
  /// It never shows a placeholder: while the wrapper shows one, `state.currentValue` is the
  /// store's value.
  public var state: State {
    self.reference.state
  }

  /// Whether the operation is running.
  public var isLoading: Bool {
    self.reference.state.isLoading
  }

  /// The latest error, if the latest result was a failure.
  public var error: State.Failure? {
    self.reference.state.error
  }
}

// MARK: - Dynamic member lookup

extension SharedOperation {
  /// Reads a member of the state, such as `$value.status`, `$value.activeTasks` or
  /// `$value.history`.
  ///
  /// Reading it registers an Observation dependency. It reads the store's state, never a
  /// placeholder.
  ///
  /// - Parameter keyPath: The member.
  /// - Returns: Its value in the state last applied by the scheduler.
  public subscript<Value: Sendable>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
    self.reference.state[keyPath: keyPath]
  }

  /// Reads a member of the store, such as `$value.isStale`, `$value.subscriberCount`,
  /// `$value.path` or `$value.isAutomaticRunningEnabled`.
  ///
  /// The value comes from the store at once, not through the scheduler. Reading it registers an
  /// Observation dependency on the state, so observers are told when the store's state changes.
  ///
  /// - Parameter keyPath: The member.
  /// - Returns: Its value.
  public subscript<Value: Sendable>(
    dynamicMember keyPath: KeyPath<OperationStore<State>, Value>
  ) -> Value {
    let reference = self.reference
    reference.accessState()
    return reference.store[keyPath: keyPath]
  }

  /// Reads or writes a writable member of the store, such as `$value.context`.
  ///
  /// - Parameter keyPath: The member.
  /// - Returns: Its value.
  public subscript<Value: Sendable>(
    dynamicMember keyPath: ReferenceWritableKeyPath<OperationStore<State>, Value>
  ) -> Value {
    get {
      let reference = self.reference
      reference.accessState()
      return reference.store[keyPath: keyPath]
    }
    nonmutating set { self.reference.store[keyPath: keyPath] = newValue }
  }
}

// MARK: - Changing the value

extension SharedOperation {
  /// Changes the current value with exclusive access to the store, and writes it to the store.
  ///
  /// The store records the new value as a successful result and notifies its subscribers; this
  /// wrapper shows it at once, whatever its scheduler. `body` receives the store's value, never a
  /// placeholder, and the write ends the placeholder, as the store then has a result.
  ///
  /// ```swift
  /// $count.withLock { $0 += 1 }
  /// ```
  ///
  /// - Parameters:
  ///   - body: Changes the value. When it throws, the store is left as it was.
  ///   - fileID: The file of the call.
  ///   - filePath: The path of the file of the call.
  ///   - line: The line of the call.
  ///   - column: The column of the call.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  public func withLock<R>(
    _ body: (inout State.StateValue) throws -> R,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) rethrows -> R {
    let reference = self.reference
    let result = try reference.store.withExclusiveAccess { store in
      var value = store.currentValue
      let result = try body(&value)
      store.currentValue = value
      return result
    }
    reference.refresh()
    return result
  }

  /// Runs `body` with exclusive access to the store, so that several reads and writes happen as
  /// one.
  ///
  /// Reading or writing members one by one is safe, but another thread may change the store
  /// between two of them. Inside `body`, no other thread can:
  ///
  /// ```swift
  /// $count.withExclusiveAccess { count in
  ///   if count.wrappedValue < 10 {
  ///     count.withLock { $0 += 1 }
  ///   }
  /// }
  /// ```
  ///
  /// - Parameter body: The work to do with exclusive access.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  public func withExclusiveAccess<T>(_ body: (Self) throws -> sending T) rethrows -> sending T {
    try self.store.withExclusiveAccess { _ in try body(self) }
  }

  /// Records a value or an error as if the operation produced it.
  ///
  /// - Parameters:
  ///   - result: The value or error.
  ///   - context: The context of the update; the store's context by default.
  public func setResult(
    to result: Result<State.StateValue, State.Failure>,
    using context: OperationContext? = nil
  ) {
    self.store.setResult(to: result, using: context)
  }

  /// Restores the store's initial state and cancels its runs in flight.
  ///
  /// - Parameter context: The context of the reset; the store's context by default.
  public func resetState(using context: OperationContext? = nil) {
    self.store.resetState(using: context)
  }
}

// MARK: - Running

extension SharedOperation {
  /// Runs the operation and waits for it, discarding its value.
  ///
  /// The same as ``run(using:handler:)``; for code written against `@Shared`'s `load()`.
  ///
  /// - Throws: The error of the run.
  public func load() async throws {
    try await self.run()
  }

  /// Runs the operation and waits for its value.
  ///
  /// - Parameters:
  ///   - context: The context of the run; the store's context by default.
  ///   - handler: Receives the events of this run only; it does not count as a subscriber.
  /// - Returns: The value of the run.
  /// - Throws: The error of the run.
  @discardableResult
  public func run(
    using context: OperationContext? = nil,
    handler: OperationEventHandler<State> = OperationEventHandler()
  ) async throws(State.Failure) -> State.OperationValue {
    try await self.store.run(using: context, handler: handler)
  }

  /// Creates a run of the operation without starting it.
  ///
  /// The state starts loading at once; the run starts when the task is first awaited.
  ///
  /// - Parameter context: The context of the run; the store's context by default.
  /// - Returns: The task of the run.
  @discardableResult
  public func runTask(
    using context: OperationContext? = nil
  ) -> OperationTask<State.OperationValue, State.Failure> {
    self.store.runTask(using: context)
  }
}

// MARK: - Equatable

extension SharedOperation: Equatable where State.StateValue: Equatable {
  /// Whether two wrappers show equal values, whether or not they observe the same store.
  ///
  /// - Parameters:
  ///   - lhs: A wrapper.
  ///   - rhs: Another wrapper.
  /// - Returns: Whether their current values are equal.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.wrappedValue == rhs.wrappedValue
  }
}
