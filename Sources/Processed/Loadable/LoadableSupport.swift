public import OperationCore

/// Loads the ``LoadableState`` properties of a class: cancels the previous load, starts a task,
/// and sets the loading, loaded and error states for you.
///
/// Conform a model to `LoadableSupport` and pass the key path of a state property to one of the
/// `load` methods. It works with any class; with an `@Observable` model, every state change is
/// observed:
///
/// ```swift
/// @MainActor @Observable
/// final class NumbersModel: LoadableSupport {
///   var numbers: LoadableState<[Int]> = .absent
///
///   func loadNumbers() {
///     load(\.numbers) {
///       try await api.numbers()
///     }
///   }
///
///   func cancelLoading() {
///     cancel(\.numbers)
///   }
/// }
/// ```
///
/// ## Runs
///
/// A `load` call cancels the task still loading the same property of the same object, sets
/// ``LoadableState/loading`` (unless the state is already loading, or `silently` is `true`), and
/// runs the block:
///
/// - A returned value sets ``LoadableState/loaded(_:)``. A yielding block sets the states it
///   yields instead.
/// - `CancellationError` leaves the state as it is, and so does any outcome of a run whose task
///   was cancelled: a replaced or cancelled load never changes the state again.
/// - ``CancelLoadable`` acts like ``cancel(_:)`` and ``ResetLoadable`` like ``reset(_:)``.
/// - Any other error sets ``LoadableState/error(_:)``.
///
/// The methods that return a `Task` run the load in a new task, which the object keeps until it
/// ends so that ``cancel(_:)`` and ``reset(_:)`` can reach it. Their `async` twins run the load in
/// the calling task instead and return when it ends; cancel the calling task to stop them.
///
/// Tasks are kept per object and per property: loading `\.numbers` on one object never cancels a
/// load of another object or of another property.
///
/// > Note: `ObservableObject` classes work too: point the key path at a `@Published` property.
public protocol LoadableSupport: AnyObject {}

// MARK: - Cancel and reset

extension LoadableSupport {
  /// Cancels the task loading a state; the state is left as it is.
  ///
  /// - Parameter state: The key path of the state.
  @MainActor
  public func cancel<Value>(_ state: ReferenceWritableKeyPath<Self, LoadableState<Value>>) {
    self.loadableBinding(state).cancel()
  }

  /// Sets a state to ``LoadableState/absent`` (unless it already is), then cancels the task
  /// loading it.
  ///
  /// - Parameter state: The key path of the state.
  @MainActor
  public func reset<Value>(_ state: ReferenceWritableKeyPath<Self, LoadableState<Value>>) {
    self.loadableBinding(state).reset()
  }
}

// MARK: - Returning a value

extension LoadableSupport {
  /// Loads a state in a new task with a block that returns the value.
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - priority: The priority of the task.
  ///   - block: Loads the value.
  /// - Returns: The task of the load; there is no need to keep it.
  @MainActor
  @discardableResult
  public func load<Value>(
    _ state: ReferenceWritableKeyPath<Self, LoadableState<Value>>,
    silently runSilently: Bool = false,
    priority: TaskPriority? = nil,
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Value
  ) -> Task<Void, Never> {
    self.loadableBinding(state).load(silently: runSilently, priority: priority, block: block)
  }

  /// Loads a state in the calling task with a block that returns the value.
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - block: Loads the value.
  @MainActor
  public func load<Value>(
    _ state: ReferenceWritableKeyPath<Self, LoadableState<Value>>,
    silently runSilently: Bool = false,
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Value
  ) async {
    await self.loadableBinding(state).load(silently: runSilently, block: block)
  }

  /// Loads a state in a new task with a block that returns the value, calling `onInterrupt` at
  /// set times while it loads.
  ///
  /// The interrupts accumulate: `[.seconds(2), .seconds(3)]` calls `onInterrupt(.seconds(2))`
  /// two seconds after the start and `onInterrupt(.seconds(5))` five seconds after the start.
  /// Interrupts stop when the block ends. An error thrown by `onInterrupt` cancels the block and
  /// ends the load with that error, for example a ``TimeoutError``:
  ///
  /// ```swift
  /// load(\.numbers, interrupts: [.seconds(2), .seconds(3)]) {
  ///   try await api.numbers()
  /// } onInterrupt: { accumulatedDelay in
  ///   guard accumulatedDelay < .seconds(5) else { throw TimeoutError() }
  ///   showsSlowLoadingHint = true
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - interrupts: The delays between the calls of `onInterrupt`.
  ///   - delayer: Times the interrupts; sleeps the task by default. Inject a test delayer to
  ///     fire the interrupts by hand.
  ///   - priority: The priority of the task.
  ///   - block: Loads the value.
  ///   - onInterrupt: Called with the time since the start after each interrupt.
  /// - Returns: The task of the load; there is no need to keep it.
  @MainActor
  @discardableResult
  public func load<Value>(
    _ state: ReferenceWritableKeyPath<Self, LoadableState<Value>>,
    silently runSilently: Bool = false,
    interrupts: [Duration],
    delayer: any OperationDelayer & Sendable = TaskSleepDelayer(),
    priority: TaskPriority? = nil,
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Value,
    @_implicitSelfCapture onInterrupt:
      @escaping @MainActor (_ accumulatedDelay: Duration) throws
      -> Void
  ) -> Task<Void, Never> {
    self.loadableBinding(state).load(
      silently: runSilently,
      interrupts: interrupts,
      delayer: delayer,
      priority: priority,
      block: block,
      onInterrupt: onInterrupt
    )
  }

  /// Loads a state in the calling task with a block that returns the value, calling
  /// `onInterrupt` at set times while it loads.
  ///
  /// The interrupts accumulate and stop when the block ends; an error thrown by `onInterrupt`
  /// cancels the block and ends the load with that error.
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - interrupts: The delays between the calls of `onInterrupt`.
  ///   - delayer: Times the interrupts; sleeps the task by default.
  ///   - block: Loads the value.
  ///   - onInterrupt: Called with the time since the start after each interrupt.
  @MainActor
  public func load<Value>(
    _ state: ReferenceWritableKeyPath<Self, LoadableState<Value>>,
    silently runSilently: Bool = false,
    interrupts: [Duration],
    delayer: any OperationDelayer & Sendable = TaskSleepDelayer(),
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Value,
    @_implicitSelfCapture onInterrupt:
      @escaping @MainActor (_ accumulatedDelay: Duration) throws
      -> Void
  ) async {
    await self.loadableBinding(state).load(
      silently: runSilently,
      interrupts: interrupts,
      delayer: delayer,
      block: block,
      onInterrupt: onInterrupt
    )
  }
}

// MARK: - Yielding states

extension LoadableSupport {
  /// Loads a state in a new task with a block that yields states.
  ///
  /// The block sets the state with `yield`, as often as it likes; returning keeps the last
  /// yielded state:
  ///
  /// ```swift
  /// load(\.numbers) { yield in
  ///   var numbers = [Int]()
  ///   for try await number in api.numberStream() {
  ///     numbers.append(number)
  ///     yield(.loaded(numbers))
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - priority: The priority of the task.
  ///   - block: Loads the value, yielding states.
  /// - Returns: The task of the load; there is no need to keep it.
  @MainActor
  @discardableResult
  public func load<Value>(
    _ state: ReferenceWritableKeyPath<Self, LoadableState<Value>>,
    silently runSilently: Bool = false,
    priority: TaskPriority? = nil,
    @_implicitSelfCapture block:
      @escaping @MainActor (
        _ yield: (_ state: LoadableState<Value>) -> Void
      ) async throws -> Void
  ) -> Task<Void, Never> {
    self.loadableBinding(state).load(silently: runSilently, priority: priority, block: block)
  }

  /// Loads a state in the calling task with a block that yields states.
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - block: Loads the value, yielding states.
  @MainActor
  public func load<Value>(
    _ state: ReferenceWritableKeyPath<Self, LoadableState<Value>>,
    silently runSilently: Bool = false,
    @_implicitSelfCapture block:
      @escaping @MainActor (
        _ yield: (_ state: LoadableState<Value>) -> Void
      ) async throws -> Void
  ) async {
    await self.loadableBinding(state).load(silently: runSilently, block: block)
  }

  /// Loads a state in a new task with a block that yields states, calling `onInterrupt` at set
  /// times while it loads.
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - interrupts: The delays between the calls of `onInterrupt`; they accumulate.
  ///   - delayer: Times the interrupts; sleeps the task by default.
  ///   - priority: The priority of the task.
  ///   - block: Loads the value, yielding states.
  ///   - onInterrupt: Called with the time since the start after each interrupt; an error it
  ///     throws ends the load.
  /// - Returns: The task of the load; there is no need to keep it.
  @MainActor
  @discardableResult
  public func load<Value>(
    _ state: ReferenceWritableKeyPath<Self, LoadableState<Value>>,
    silently runSilently: Bool = false,
    interrupts: [Duration],
    delayer: any OperationDelayer & Sendable = TaskSleepDelayer(),
    priority: TaskPriority? = nil,
    @_implicitSelfCapture block:
      @escaping @MainActor (
        _ yield: (_ state: LoadableState<Value>) -> Void
      ) async throws -> Void,
    @_implicitSelfCapture onInterrupt:
      @escaping @MainActor (_ accumulatedDelay: Duration) throws
      -> Void
  ) -> Task<Void, Never> {
    self.loadableBinding(state).load(
      silently: runSilently,
      interrupts: interrupts,
      delayer: delayer,
      priority: priority,
      block: block,
      onInterrupt: onInterrupt
    )
  }

  /// Loads a state in the calling task with a block that yields states, calling `onInterrupt`
  /// at set times while it loads.
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - interrupts: The delays between the calls of `onInterrupt`; they accumulate.
  ///   - delayer: Times the interrupts; sleeps the task by default.
  ///   - block: Loads the value, yielding states.
  ///   - onInterrupt: Called with the time since the start after each interrupt; an error it
  ///     throws ends the load.
  @MainActor
  public func load<Value>(
    _ state: ReferenceWritableKeyPath<Self, LoadableState<Value>>,
    silently runSilently: Bool = false,
    interrupts: [Duration],
    delayer: any OperationDelayer & Sendable = TaskSleepDelayer(),
    @_implicitSelfCapture block:
      @escaping @MainActor (
        _ yield: (_ state: LoadableState<Value>) -> Void
      ) async throws -> Void,
    @_implicitSelfCapture onInterrupt:
      @escaping @MainActor (_ accumulatedDelay: Duration) throws
      -> Void
  ) async {
    await self.loadableBinding(state).load(
      silently: runSilently,
      interrupts: interrupts,
      delayer: delayer,
      block: block,
      onInterrupt: onInterrupt
    )
  }
}

// MARK: - Binding

extension LoadableSupport {
  /// The binding over a state property of this object, whose task slot is the object's slot for
  /// that property: every method of the protocol forwards to it.
  @MainActor
  func loadableBinding<Value>(
    _ state: ReferenceWritableKeyPath<Self, LoadableState<Value>>
  ) -> LoadableBinding<Value> {
    LoadableBinding(controller: StateController(self, state))
  }
}
