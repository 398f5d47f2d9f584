public import OperationCore

/// Runs the processes of the ``ProcessState`` properties of a class: cancels the previous run,
/// starts a task, and sets the running, finished and failed states for you.
///
/// Conform a model to `ProcessSupport` and pass the key path of a state property to one of the
/// `run` methods. It works with any class; with an `@Observable` model, every state change is
/// observed:
///
/// ```swift
/// enum Action { case save, delete }
///
/// @MainActor @Observable
/// final class DocumentModel: ProcessSupport {
///   var action: ProcessState<Action> = .idle
///
///   func save() {
///     run(\.action, as: .save) {
///       try await storage.save(document)
///     }
///   }
///
///   func delete() {
///     run(\.action, as: .delete) {
///       try await storage.delete(document)
///     }
///   }
/// }
/// ```
///
/// For a state with a single purpose, use ``SingleProcessState`` and leave out `as:`; every run
/// gets a new ``SingleProcess``.
///
/// ## Runs
///
/// A `run` call cancels the task still running a process of the same property of the same
/// object, sets ``ProcessState/running(_:)`` (unless the same process is already running, or
/// `silently` is `true`), and runs the block:
///
/// - Returning sets ``ProcessState/finished(_:)``.
/// - `CancellationError` leaves the state as it is, and so does any outcome of a run whose task
///   was cancelled: a replaced or cancelled run never changes the state again.
/// - ``CancelProcess`` acts like ``cancel(_:)`` and ``ResetProcess`` like ``reset(_:)``.
/// - Any other error sets ``ProcessState/failed(process:error:)``.
///
/// The methods that return a `Task` run the process in a new task, which the object keeps until
/// it ends so that ``cancel(_:)`` and ``reset(_:)`` can reach it. Their `async` twins run it in
/// the calling task instead and return when it ends; cancel the calling task to stop them.
///
/// Tasks are kept per object and per property, so runs on different objects or properties never
/// cancel each other.
///
/// > Note: `ObservableObject` classes work too: point the key path at a `@Published` property.
public protocol ProcessSupport: AnyObject {}

// MARK: - Cancel and reset

extension ProcessSupport {
  /// Cancels the task running a process; the state is left as it is.
  ///
  /// - Parameter state: The key path of the state.
  @MainActor
  public func cancel<ProcessKind>(
    _ state: ReferenceWritableKeyPath<Self, ProcessState<ProcessKind>>
  ) {
    self.processBinding(state).cancel()
  }

  /// Sets a state to ``ProcessState/idle`` (unless it already is), then cancels the task running
  /// a process.
  ///
  /// - Parameter state: The key path of the state.
  @MainActor
  public func reset<ProcessKind>(_ state: ReferenceWritableKeyPath<Self, ProcessState<ProcessKind>>)
  {
    self.processBinding(state).reset()
  }
}

// MARK: - Run

extension ProcessSupport {
  /// Runs a process in a new task.
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - process: The process that runs.
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - priority: The priority of the task.
  ///   - block: The work of the process.
  /// - Returns: The task of the run; there is no need to keep it.
  @MainActor
  @discardableResult
  public func run<ProcessKind: Equatable>(
    _ state: ReferenceWritableKeyPath<Self, ProcessState<ProcessKind>>,
    as process: ProcessKind,
    silently runSilently: Bool = false,
    priority: TaskPriority? = nil,
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Void
  ) -> Task<Void, Never> {
    self.processBinding(state).run(process, silently: runSilently, priority: priority, block: block)
  }

  /// Runs a process in the calling task.
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - process: The process that runs.
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - block: The work of the process.
  @MainActor
  public func run<ProcessKind: Equatable>(
    _ state: ReferenceWritableKeyPath<Self, ProcessState<ProcessKind>>,
    as process: ProcessKind,
    silently runSilently: Bool = false,
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Void
  ) async {
    await self.processBinding(state).run(process, silently: runSilently, block: block)
  }

  /// Runs a process in a new task, calling `onInterrupt` at set times while it runs.
  ///
  /// The interrupts accumulate: `[.seconds(2), .seconds(3)]` calls `onInterrupt(.seconds(2))`
  /// two seconds after the start and `onInterrupt(.seconds(5))` five seconds after the start.
  /// Interrupts stop when the block ends. An error thrown by `onInterrupt` cancels the block and
  /// ends the run with that error, for example a ``TimeoutError``.
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - process: The process that runs.
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - interrupts: The delays between the calls of `onInterrupt`.
  ///   - delayer: Times the interrupts; sleeps the task by default.
  ///   - priority: The priority of the task.
  ///   - block: The work of the process.
  ///   - onInterrupt: Called with the time since the start after each interrupt.
  /// - Returns: The task of the run; there is no need to keep it.
  @MainActor
  @discardableResult
  public func run<ProcessKind: Equatable>(
    _ state: ReferenceWritableKeyPath<Self, ProcessState<ProcessKind>>,
    as process: ProcessKind,
    silently runSilently: Bool = false,
    interrupts: [Duration],
    delayer: any OperationDelayer & Sendable = TaskSleepDelayer(),
    priority: TaskPriority? = nil,
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Void,
    @_implicitSelfCapture onInterrupt:
      @escaping @MainActor (_ accumulatedDelay: Duration) throws
      -> Void
  ) -> Task<Void, Never> {
    self.processBinding(state).run(
      process,
      silently: runSilently,
      interrupts: interrupts,
      delayer: delayer,
      priority: priority,
      block: block,
      onInterrupt: onInterrupt
    )
  }

  /// Runs a process in the calling task, calling `onInterrupt` at set times while it runs.
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - process: The process that runs.
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - interrupts: The delays between the calls of `onInterrupt`; they accumulate.
  ///   - delayer: Times the interrupts; sleeps the task by default.
  ///   - block: The work of the process.
  ///   - onInterrupt: Called with the time since the start after each interrupt; an error it
  ///     throws ends the run.
  @MainActor
  public func run<ProcessKind: Equatable>(
    _ state: ReferenceWritableKeyPath<Self, ProcessState<ProcessKind>>,
    as process: ProcessKind,
    silently runSilently: Bool = false,
    interrupts: [Duration],
    delayer: any OperationDelayer & Sendable = TaskSleepDelayer(),
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Void,
    @_implicitSelfCapture onInterrupt:
      @escaping @MainActor (_ accumulatedDelay: Duration) throws
      -> Void
  ) async {
    await self.processBinding(state).run(
      process,
      silently: runSilently,
      interrupts: interrupts,
      delayer: delayer,
      block: block,
      onInterrupt: onInterrupt
    )
  }
}

// MARK: - Single process

extension ProcessSupport {
  /// Runs a new ``SingleProcess`` in a new task.
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - priority: The priority of the task.
  ///   - block: The work of the process.
  /// - Returns: The task of the run; there is no need to keep it.
  @MainActor
  @discardableResult
  public func run(
    _ state: ReferenceWritableKeyPath<Self, SingleProcessState>,
    silently runSilently: Bool = false,
    priority: TaskPriority? = nil,
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Void
  ) -> Task<Void, Never> {
    self.processBinding(state).run(silently: runSilently, priority: priority, block: block)
  }

  /// Runs a new ``SingleProcess`` in the calling task.
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - block: The work of the process.
  @MainActor
  public func run(
    _ state: ReferenceWritableKeyPath<Self, SingleProcessState>,
    silently runSilently: Bool = false,
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Void
  ) async {
    await self.processBinding(state).run(silently: runSilently, block: block)
  }

  /// Runs a new ``SingleProcess`` in a new task, calling `onInterrupt` at set times while it
  /// runs.
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - interrupts: The delays between the calls of `onInterrupt`; they accumulate.
  ///   - delayer: Times the interrupts; sleeps the task by default.
  ///   - priority: The priority of the task.
  ///   - block: The work of the process.
  ///   - onInterrupt: Called with the time since the start after each interrupt; an error it
  ///     throws ends the run.
  /// - Returns: The task of the run; there is no need to keep it.
  @MainActor
  @discardableResult
  public func run(
    _ state: ReferenceWritableKeyPath<Self, SingleProcessState>,
    silently runSilently: Bool = false,
    interrupts: [Duration],
    delayer: any OperationDelayer & Sendable = TaskSleepDelayer(),
    priority: TaskPriority? = nil,
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Void,
    @_implicitSelfCapture onInterrupt:
      @escaping @MainActor (_ accumulatedDelay: Duration) throws
      -> Void
  ) -> Task<Void, Never> {
    self.processBinding(state).run(
      silently: runSilently,
      interrupts: interrupts,
      delayer: delayer,
      priority: priority,
      block: block,
      onInterrupt: onInterrupt
    )
  }

  /// Runs a new ``SingleProcess`` in the calling task, calling `onInterrupt` at set times while
  /// it runs.
  ///
  /// - Parameters:
  ///   - state: The key path of the state.
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - interrupts: The delays between the calls of `onInterrupt`; they accumulate.
  ///   - delayer: Times the interrupts; sleeps the task by default.
  ///   - block: The work of the process.
  ///   - onInterrupt: Called with the time since the start after each interrupt; an error it
  ///     throws ends the run.
  @MainActor
  public func run(
    _ state: ReferenceWritableKeyPath<Self, SingleProcessState>,
    silently runSilently: Bool = false,
    interrupts: [Duration],
    delayer: any OperationDelayer & Sendable = TaskSleepDelayer(),
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Void,
    @_implicitSelfCapture onInterrupt:
      @escaping @MainActor (_ accumulatedDelay: Duration) throws
      -> Void
  ) async {
    await self.processBinding(state).run(
      silently: runSilently,
      interrupts: interrupts,
      delayer: delayer,
      block: block,
      onInterrupt: onInterrupt
    )
  }
}

// MARK: - Binding

extension ProcessSupport {
  /// The binding over a state property of this object, whose task slot is the object's slot for
  /// that property: every method of the protocol forwards to it.
  @MainActor
  func processBinding<ProcessKind>(
    _ state: ReferenceWritableKeyPath<Self, ProcessState<ProcessKind>>
  ) -> ProcessBinding<ProcessKind> {
    ProcessBinding(controller: StateController(self, state))
  }
}
