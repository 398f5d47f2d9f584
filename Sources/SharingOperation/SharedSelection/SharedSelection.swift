import Dependencies
public import OperationCore

// MARK: - SharedSelection

/// A property wrapper that observes one part of an operation's state, and whose observers are told
/// only when that part changes.
///
/// A ``SharedOperation`` tells its observers of every change of its store's state: a fetch that
/// starts, yields, and ends fires them each time, even when a view only shows the title of a post
/// that did not change. A shared selection reads a value derived from the state, compares each new
/// value with the last one (`==`), and tells Observation only when it differs:
///
/// ```swift
/// @MainActor
/// @Observable
/// final class PostTitleModel {
///   @ObservationIgnored
///   @SharedSelection<String?> var title: String?
///
///   init(id: Int) {
///     self._title = SharedSelection(Post.query(for: id)) { $0.currentValue??.title }
///   }
/// }
/// ```
///
/// Make one from a store, from an operation (whose store comes from an `OperationClient`, as for
/// ``SharedOperation``), or from a shared operation with
/// ``SharedOperation/select(_:)-(KeyPath<State,Value>Sendable)``:
///
/// ```swift
/// let isLoading = self.$post.select(\.isLoading)
/// ```
///
/// ## Observation
///
/// Reading the wrapped value registers an Observation dependency that fires only when the
/// selected value changes, when the wrapper's ``SharedOperationStateScheduler`` applies the
/// change. State changes that leave the selected value equal fire nothing. A scheduler that runs
/// late applies the newest selected value, never an older one, and fires nothing when the newest
/// value equals the one shown.
///
/// ## Subscription and lifetime
///
/// The wrapper is built on `OperationSelection`: creating it subscribes to the selection, which
/// subscribes to the store, so the wrapper counts as one subscriber of the store and may start the
/// store's automatic run. Copies of a wrapper share its subscription, which ends when the last
/// copy is released.
///
/// `transform` is your code: it runs with no lock of the library held, once per change of the
/// store's state while the wrapper lives.
///
/// > Note: Swift does not parse a trailing closure in an attribute. To select with a closure in
/// > the attribute itself, pass the closure in the parentheses:
/// > `@SharedSelection(store: store, { $0.currentValue }) var value`.
@propertyWrapper
public struct SharedSelection<Value: Equatable & Sendable>: Sendable {
  private let reference: SharedSelectionReference<Value>

  /// The selected value, as last applied by the scheduler.
  ///
  /// Reading it registers an Observation dependency that fires only when the value changes.
  public var wrappedValue: Value {
    self.reference.value
  }

  /// The wrapper itself, to pass it on with `$value`.
  public var projectedValue: Self {
    self
  }

  /// Creates a shared selection of a value derived from a store's state.
  ///
  /// ```swift
  /// let title = SharedSelection(store: store) { $0.currentValue??.title }
  /// ```
  ///
  /// - Parameters:
  ///   - store: The store.
  ///   - scheduler: Where changes of the selected value are applied to the wrapper.
  ///   - transform: Derives the value from the state; it runs with no lock held.
  public init<State: OperationState & Sendable>(
    store: OperationStore<State>,
    scheduler: some SharedOperationStateScheduler & Sendable = .synchronous,
    _ transform: @escaping @Sendable (State) -> Value
  ) {
    self.init(selection: store.select(transform), scheduler: scheduler)
  }

  /// Creates a shared selection of a member of a store's state.
  ///
  /// ```swift
  /// @SharedSelection(store: store, \.isLoading) var isLoading
  /// ```
  ///
  /// - Parameters:
  ///   - store: The store.
  ///   - keyPath: The member of the state.
  ///   - scheduler: Where changes of the selected value are applied to the wrapper.
  public init<State: OperationState & Sendable>(
    store: OperationStore<State>,
    _ keyPath: any KeyPath<State, Value> & Sendable,
    scheduler: some SharedOperationStateScheduler & Sendable = .synchronous
  ) {
    self.init(selection: store.select(keyPath), scheduler: scheduler)
  }

  /// Creates a shared selection of a value derived from the state of an operation's store.
  ///
  /// The store comes from `client`; when the client already has a store for the operation's path,
  /// that store is used and `initialState` is ignored.
  ///
  /// - Parameters:
  ///   - operation: The operation.
  ///   - initialState: The state of a new store.
  ///   - client: The client to get the store from; `@Dependency(\.defaultOperationClient)` when
  ///     `nil`.
  ///   - scheduler: Where changes of the selected value are applied to the wrapper.
  ///   - transform: Derives the value from the state; it runs with no lock held.
  public init<Operation: StatefulOperationRequest>(
    _ operation: sending Operation,
    initialState: Operation.State,
    client: OperationClient? = nil,
    scheduler: some SharedOperationStateScheduler & Sendable = .synchronous,
    _ transform: @escaping @Sendable (Operation.State) -> Value
  ) where Operation.State: Sendable {
    @Dependency(\.defaultOperationClient) var defaultClient
    let store = (client ?? defaultClient).store(for: operation, initialState: initialState)
    self.init(store: store, scheduler: scheduler, transform)
  }

  /// Creates a shared selection of a member of the state of an operation's store.
  ///
  /// The store comes from `client`; when the client already has a store for the operation's path,
  /// that store is used and `initialState` is ignored.
  ///
  /// - Parameters:
  ///   - operation: The operation.
  ///   - initialState: The state of a new store.
  ///   - keyPath: The member of the state.
  ///   - client: The client to get the store from; `@Dependency(\.defaultOperationClient)` when
  ///     `nil`.
  ///   - scheduler: Where changes of the selected value are applied to the wrapper.
  public init<Operation: StatefulOperationRequest>(
    _ operation: sending Operation,
    initialState: Operation.State,
    _ keyPath: any KeyPath<Operation.State, Value> & Sendable,
    client: OperationClient? = nil,
    scheduler: some SharedOperationStateScheduler & Sendable = .synchronous
  ) where Operation.State: Sendable {
    @Dependency(\.defaultOperationClient) var defaultClient
    let store = (client ?? defaultClient).store(for: operation, initialState: initialState)
    self.init(store: store, keyPath, scheduler: scheduler)
  }

  /// Creates a shared selection of a value derived from the state of a query's store.
  ///
  /// ```swift
  /// self._title = SharedSelection(Post.query(for: id)) { $0.currentValue??.title }
  /// ```
  ///
  /// - Parameters:
  ///   - query: The query.
  ///   - client: The client to get the store from; `@Dependency(\.defaultOperationClient)` when
  ///     `nil`.
  ///   - scheduler: Where changes of the selected value are applied to the wrapper.
  ///   - transform: Derives the value from the state; it runs with no lock held.
  public init<Query: QueryRequest>(
    _ query: sending Query,
    client: OperationClient? = nil,
    scheduler: some SharedOperationStateScheduler & Sendable = .synchronous,
    _ transform: @escaping @Sendable (QueryState<Query.Value, Query.Failure>) -> Value
  ) where Query.State == QueryState<Query.Value, Query.Failure> {
    self.init(
      query,
      initialState: QueryState(initialValue: nil),
      client: client,
      scheduler: scheduler,
      transform
    )
  }

  /// Creates a shared selection of a member of the state of a query's store.
  ///
  /// ```swift
  /// @SharedSelection(Post.query(for: 1), \.isLoading) var isLoading
  /// ```
  ///
  /// - Parameters:
  ///   - query: The query.
  ///   - keyPath: The member of the state.
  ///   - client: The client to get the store from; `@Dependency(\.defaultOperationClient)` when
  ///     `nil`.
  ///   - scheduler: Where changes of the selected value are applied to the wrapper.
  public init<Query: QueryRequest>(
    _ query: sending Query,
    _ keyPath: any KeyPath<QueryState<Query.Value, Query.Failure>, Value> & Sendable,
    client: OperationClient? = nil,
    scheduler: some SharedOperationStateScheduler & Sendable = .synchronous
  ) where Query.State == QueryState<Query.Value, Query.Failure> {
    self.init(
      query,
      initialState: QueryState(initialValue: nil),
      keyPath,
      client: client,
      scheduler: scheduler
    )
  }

  init<State: OperationState & Sendable>(
    selection: OperationSelection<State, Value>,
    scheduler: some SharedOperationStateScheduler & Sendable
  ) {
    self.reference = SharedSelectionReference(selection: selection, scheduler: scheduler)
  }
}
