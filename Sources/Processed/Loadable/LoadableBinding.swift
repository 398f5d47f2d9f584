public import OperationCore

#if canImport(SwiftUI)
  public import SwiftUI
#endif

/// Loads a ``LoadableState`` that lives somewhere else: the projected value of ``Loadable``
/// (`$numbers`), or any state you reach with a getter and a setter.
///
/// A binding owns the task of its loads; copies of a binding share it. Make a binding once and
/// keep it, so that ``cancel()`` reaches the load it started:
///
/// ```swift
/// @MainActor @Observable
/// final class NumbersModel {
///   var numbers: LoadableState<[Int]> = .absent
///
///   @ObservationIgnored lazy var numbersLoader = LoadableBinding(
///     get: { self.numbers },
///     set: { self.numbers = $0 }
///   )
/// }
///
/// model.numbersLoader.load { try await api.numbers() }
/// ```
///
/// The loads behave as those of ``LoadableSupport``: a load cancels the binding's previous one;
/// `CancellationError` and cancelled loads leave the state as it is; ``CancelLoadable`` cancels,
/// ``ResetLoadable`` resets, and any other error sets ``LoadableState/error(_:)``.
///
/// The binding is also a property wrapper, to pass a loadable state to a child:
///
/// ```swift
/// struct NumbersSection {
///   @LoadableBinding var numbers: LoadableState<[Int]>
///
///   func reload() {
///     $numbers.load { try await api.numbers() }
///   }
/// }
///
/// let section = NumbersSection(numbers: model.$numbers)
/// ```
@MainActor
@propertyWrapper
public struct LoadableBinding<Value> {
  let controller: StateController<LoadableState<Value>>

  /// Creates a binding over a state that a getter reads and a setter writes.
  ///
  /// - Parameters:
  ///   - get: Reads the state.
  ///   - set: Writes the state.
  public init(
    get: @escaping @MainActor () -> LoadableState<Value>,
    set: @escaping @MainActor (LoadableState<Value>) -> Void
  ) {
    self.init(controller: StateController(read: get, write: set, slot: OwnedTaskSlot()))
  }

  init(controller: StateController<LoadableState<Value>>) {
    self.controller = controller
  }

  /// A binding to a state that never changes; its loads run, but their states are dropped.
  ///
  /// - Parameter state: The state.
  /// - Returns: The binding.
  public static func constant(_ state: LoadableState<Value>) -> Self {
    Self(get: { state }, set: { _ in })
  }

  /// The state; setting it cancels the running load first.
  public var wrappedValue: LoadableState<Value> {
    get { self.controller.read() }
    nonmutating set { self.controller.assign(newValue) }
  }

  /// The binding itself, so that `$numbers.load { … }` works on a `@LoadableBinding` property.
  public var projectedValue: Self {
    self
  }

  /// Cancels the running load; the state is left as it is.
  public func cancel() {
    self.controller.cancel()
  }

  /// Sets the state to ``LoadableState/absent`` (unless it already is), then cancels the running
  /// load.
  public func reset() {
    self.controller.reset()
  }
}

#if canImport(SwiftUI)
  extension LoadableBinding {
    /// Creates a binding over a SwiftUI binding.
    ///
    /// - Parameter binding: The SwiftUI binding to the state.
    public init(_ binding: SwiftUI.Binding<LoadableState<Value>>) {
      self.init(get: { binding.wrappedValue }, set: { binding.wrappedValue = $0 })
    }
  }
#endif

// MARK: - Returning a value

extension LoadableBinding {
  /// Loads the state in a new task with a block that returns the value.
  ///
  /// - Parameters:
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - priority: The priority of the task.
  ///   - block: Loads the value.
  /// - Returns: The task of the load; there is no need to keep it.
  @discardableResult
  public func load(
    silently runSilently: Bool = false,
    priority: TaskPriority? = nil,
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Value
  ) -> Task<Void, Never> {
    self.controller.start(
      RunPlan(LoadRun(), silently: runSilently, block: block),
      priority: priority
    )
  }

  /// Loads the state in the calling task with a block that returns the value.
  ///
  /// - Parameters:
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - block: Loads the value.
  public func load(
    silently runSilently: Bool = false,
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Value
  ) async {
    await self.controller.run(RunPlan(LoadRun(), silently: runSilently, block: block))
  }

  /// Loads the state in a new task with a block that returns the value, calling `onInterrupt`
  /// at set times while it loads.
  ///
  /// The interrupts accumulate: `[.seconds(2), .seconds(3)]` calls `onInterrupt(.seconds(2))`
  /// two seconds after the start and `onInterrupt(.seconds(5))` five seconds after the start.
  /// Interrupts stop when the block ends. An error thrown by `onInterrupt` cancels the block and
  /// ends the load with that error.
  ///
  /// - Parameters:
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - interrupts: The delays between the calls of `onInterrupt`.
  ///   - delayer: Times the interrupts; sleeps the task by default.
  ///   - priority: The priority of the task.
  ///   - block: Loads the value.
  ///   - onInterrupt: Called with the time since the start after each interrupt.
  /// - Returns: The task of the load; there is no need to keep it.
  @discardableResult
  public func load(
    silently runSilently: Bool = false,
    interrupts: [Duration],
    delayer: any OperationDelayer & Sendable = TaskSleepDelayer(),
    priority: TaskPriority? = nil,
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Value,
    @_implicitSelfCapture onInterrupt:
      @escaping @MainActor (_ accumulatedDelay: Duration) throws
      -> Void
  ) -> Task<Void, Never> {
    let schedule = InterruptSchedule(interrupts, delayer, onInterrupt)
    return self.controller.start(
      RunPlan(LoadRun(), silently: runSilently, interrupts: schedule, block: block),
      priority: priority
    )
  }

  /// Loads the state in the calling task with a block that returns the value, calling
  /// `onInterrupt` at set times while it loads.
  ///
  /// - Parameters:
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - interrupts: The delays between the calls of `onInterrupt`; they accumulate.
  ///   - delayer: Times the interrupts; sleeps the task by default.
  ///   - block: Loads the value.
  ///   - onInterrupt: Called with the time since the start after each interrupt; an error it
  ///     throws ends the load.
  public func load(
    silently runSilently: Bool = false,
    interrupts: [Duration],
    delayer: any OperationDelayer & Sendable = TaskSleepDelayer(),
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Value,
    @_implicitSelfCapture onInterrupt:
      @escaping @MainActor (_ accumulatedDelay: Duration) throws
      -> Void
  ) async {
    let schedule = InterruptSchedule(interrupts, delayer, onInterrupt)
    await self.controller.run(
      RunPlan(LoadRun(), silently: runSilently, interrupts: schedule, block: block)
    )
  }
}

// MARK: - Yielding states

extension LoadableBinding {
  /// Loads the state in a new task with a block that yields states.
  ///
  /// The block sets the state with `yield`, as often as it likes; returning keeps the last
  /// yielded state.
  ///
  /// - Parameters:
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - priority: The priority of the task.
  ///   - block: Loads the value, yielding states.
  /// - Returns: The task of the load; there is no need to keep it.
  @discardableResult
  public func load(
    silently runSilently: Bool = false,
    priority: TaskPriority? = nil,
    @_implicitSelfCapture block:
      @escaping @MainActor (
        _ yield: (_ state: LoadableState<Value>) -> Void
      ) async throws -> Void
  ) -> Task<Void, Never> {
    self.controller.start(
      RunPlan(LoadRun(), silently: runSilently, yieldingBlock: block),
      priority: priority
    )
  }

  /// Loads the state in the calling task with a block that yields states.
  ///
  /// - Parameters:
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - block: Loads the value, yielding states.
  public func load(
    silently runSilently: Bool = false,
    @_implicitSelfCapture block:
      @escaping @MainActor (
        _ yield: (_ state: LoadableState<Value>) -> Void
      ) async throws -> Void
  ) async {
    await self.controller.run(RunPlan(LoadRun(), silently: runSilently, yieldingBlock: block))
  }

  /// Loads the state in a new task with a block that yields states, calling `onInterrupt` at
  /// set times while it loads.
  ///
  /// - Parameters:
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - interrupts: The delays between the calls of `onInterrupt`; they accumulate.
  ///   - delayer: Times the interrupts; sleeps the task by default.
  ///   - priority: The priority of the task.
  ///   - block: Loads the value, yielding states.
  ///   - onInterrupt: Called with the time since the start after each interrupt; an error it
  ///     throws ends the load.
  /// - Returns: The task of the load; there is no need to keep it.
  @discardableResult
  public func load(
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
    let schedule = InterruptSchedule(interrupts, delayer, onInterrupt)
    return self.controller.start(
      RunPlan(LoadRun(), silently: runSilently, interrupts: schedule, yieldingBlock: block),
      priority: priority
    )
  }

  /// Loads the state in the calling task with a block that yields states, calling
  /// `onInterrupt` at set times while it loads.
  ///
  /// - Parameters:
  ///   - runSilently: Whether to skip the ``LoadableState/loading`` state.
  ///   - interrupts: The delays between the calls of `onInterrupt`; they accumulate.
  ///   - delayer: Times the interrupts; sleeps the task by default.
  ///   - block: Loads the value, yielding states.
  ///   - onInterrupt: Called with the time since the start after each interrupt; an error it
  ///     throws ends the load.
  public func load(
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
    let schedule = InterruptSchedule(interrupts, delayer, onInterrupt)
    await self.controller.run(
      RunPlan(LoadRun(), silently: runSilently, interrupts: schedule, yieldingBlock: block)
    )
  }
}
