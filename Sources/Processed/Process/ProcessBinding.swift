public import OperationCore

#if canImport(SwiftUI)
  public import SwiftUI
#endif

/// Runs the processes of a ``ProcessState`` that lives somewhere else: the projected value of
/// ``Process`` (`$saving`), or any state you reach with a getter and a setter.
///
/// A binding owns the task of its runs; copies of a binding share it. Make a binding once and
/// keep it, so that ``cancel()`` reaches the run it started:
///
/// ```swift
/// @MainActor @Observable
/// final class DocumentModel {
///   var saving: SingleProcessState = .idle
///
///   @ObservationIgnored lazy var saver = ProcessBinding(
///     get: { self.saving },
///     set: { self.saving = $0 }
///   )
/// }
///
/// model.saver.run { try await storage.save(document) }
/// ```
///
/// The runs behave as those of ``ProcessSupport``: a run cancels the binding's previous one;
/// `CancellationError` and cancelled runs leave the state as it is; ``CancelProcess`` cancels,
/// ``ResetProcess`` resets, and any other error sets ``ProcessState/failed(process:error:)``.
@MainActor
@propertyWrapper
public struct ProcessBinding<ProcessKind> {
  let controller: StateController<ProcessState<ProcessKind>>

  /// Creates a binding over a state that a getter reads and a setter writes.
  ///
  /// - Parameters:
  ///   - get: Reads the state.
  ///   - set: Writes the state.
  public init(
    get: @escaping @MainActor () -> ProcessState<ProcessKind>,
    set: @escaping @MainActor (ProcessState<ProcessKind>) -> Void
  ) {
    self.init(controller: StateController(read: get, write: set, slot: OwnedTaskSlot()))
  }

  init(controller: StateController<ProcessState<ProcessKind>>) {
    self.controller = controller
  }

  /// A binding to a state that never changes; its runs run, but their states are dropped.
  ///
  /// - Parameter state: The state.
  /// - Returns: The binding.
  public static func constant(_ state: ProcessState<ProcessKind>) -> Self {
    Self(get: { state }, set: { _ in })
  }

  /// The state; setting it cancels the running process first.
  public var wrappedValue: ProcessState<ProcessKind> {
    get { self.controller.read() }
    nonmutating set { self.controller.assign(newValue) }
  }

  /// The binding itself, so that `$saving.run { … }` works on a `@ProcessBinding` property.
  public var projectedValue: Self {
    self
  }

  /// Cancels the running process; the state is left as it is.
  public func cancel() {
    self.controller.cancel()
  }

  /// Sets the state to ``ProcessState/idle`` (unless it already is), then cancels the running
  /// process.
  public func reset() {
    self.controller.reset()
  }
}

#if canImport(SwiftUI)
  extension ProcessBinding {
    /// Creates a binding over a SwiftUI binding.
    ///
    /// - Parameter binding: The SwiftUI binding to the state.
    public init(_ binding: SwiftUI.Binding<ProcessState<ProcessKind>>) {
      self.init(get: { binding.wrappedValue }, set: { binding.wrappedValue = $0 })
    }
  }
#endif

// MARK: - Run

extension ProcessBinding where ProcessKind: Equatable {
  /// Runs a process in a new task.
  ///
  /// - Parameters:
  ///   - process: The process that runs.
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - priority: The priority of the task.
  ///   - block: The work of the process.
  /// - Returns: The task of the run; there is no need to keep it.
  @discardableResult
  public func run(
    _ process: ProcessKind,
    silently runSilently: Bool = false,
    priority: TaskPriority? = nil,
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Void
  ) -> Task<Void, Never> {
    self.controller.start(
      RunPlan(ProcessRun(process), silently: runSilently, block: block),
      priority: priority
    )
  }

  /// Runs a process in the calling task.
  ///
  /// - Parameters:
  ///   - process: The process that runs.
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - block: The work of the process.
  public func run(
    _ process: ProcessKind,
    silently runSilently: Bool = false,
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Void
  ) async {
    await self.controller.run(RunPlan(ProcessRun(process), silently: runSilently, block: block))
  }

  /// Runs a process in a new task, calling `onInterrupt` at set times while it runs.
  ///
  /// The interrupts accumulate: `[.seconds(2), .seconds(3)]` calls `onInterrupt(.seconds(2))`
  /// two seconds after the start and `onInterrupt(.seconds(5))` five seconds after the start.
  /// Interrupts stop when the block ends. An error thrown by `onInterrupt` cancels the block and
  /// ends the run with that error.
  ///
  /// - Parameters:
  ///   - process: The process that runs.
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - interrupts: The delays between the calls of `onInterrupt`.
  ///   - delayer: Times the interrupts; sleeps the task by default.
  ///   - priority: The priority of the task.
  ///   - block: The work of the process.
  ///   - onInterrupt: Called with the time since the start after each interrupt.
  /// - Returns: The task of the run; there is no need to keep it.
  @discardableResult
  public func run(
    _ process: ProcessKind,
    silently runSilently: Bool = false,
    interrupts: [Duration],
    delayer: any OperationDelayer & Sendable = TaskSleepDelayer(),
    priority: TaskPriority? = nil,
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Void,
    @_implicitSelfCapture onInterrupt:
      @escaping @MainActor (_ accumulatedDelay: Duration) throws
      -> Void
  ) -> Task<Void, Never> {
    let schedule = InterruptSchedule(interrupts, delayer, onInterrupt)
    return self.controller.start(
      RunPlan(ProcessRun(process), silently: runSilently, interrupts: schedule, block: block),
      priority: priority
    )
  }

  /// Runs a process in the calling task, calling `onInterrupt` at set times while it runs.
  ///
  /// - Parameters:
  ///   - process: The process that runs.
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - interrupts: The delays between the calls of `onInterrupt`; they accumulate.
  ///   - delayer: Times the interrupts; sleeps the task by default.
  ///   - block: The work of the process.
  ///   - onInterrupt: Called with the time since the start after each interrupt; an error it
  ///     throws ends the run.
  public func run(
    _ process: ProcessKind,
    silently runSilently: Bool = false,
    interrupts: [Duration],
    delayer: any OperationDelayer & Sendable = TaskSleepDelayer(),
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Void,
    @_implicitSelfCapture onInterrupt:
      @escaping @MainActor (_ accumulatedDelay: Duration) throws
      -> Void
  ) async {
    let schedule = InterruptSchedule(interrupts, delayer, onInterrupt)
    await self.controller.run(
      RunPlan(ProcessRun(process), silently: runSilently, interrupts: schedule, block: block)
    )
  }
}

// MARK: - Single process

extension ProcessBinding where ProcessKind == SingleProcess {
  /// Runs a new ``SingleProcess`` in a new task.
  ///
  /// - Parameters:
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - priority: The priority of the task.
  ///   - block: The work of the process.
  /// - Returns: The task of the run; there is no need to keep it.
  @discardableResult
  public func run(
    silently runSilently: Bool = false,
    priority: TaskPriority? = nil,
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Void
  ) -> Task<Void, Never> {
    self.run(SingleProcess(), silently: runSilently, priority: priority, block: block)
  }

  /// Runs a new ``SingleProcess`` in the calling task.
  ///
  /// - Parameters:
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - block: The work of the process.
  public func run(
    silently runSilently: Bool = false,
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Void
  ) async {
    await self.run(SingleProcess(), silently: runSilently, block: block)
  }

  /// Runs a new ``SingleProcess`` in a new task, calling `onInterrupt` at set times while it
  /// runs.
  ///
  /// - Parameters:
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - interrupts: The delays between the calls of `onInterrupt`; they accumulate.
  ///   - delayer: Times the interrupts; sleeps the task by default.
  ///   - priority: The priority of the task.
  ///   - block: The work of the process.
  ///   - onInterrupt: Called with the time since the start after each interrupt; an error it
  ///     throws ends the run.
  /// - Returns: The task of the run; there is no need to keep it.
  @discardableResult
  public func run(
    silently runSilently: Bool = false,
    interrupts: [Duration],
    delayer: any OperationDelayer & Sendable = TaskSleepDelayer(),
    priority: TaskPriority? = nil,
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Void,
    @_implicitSelfCapture onInterrupt:
      @escaping @MainActor (_ accumulatedDelay: Duration) throws
      -> Void
  ) -> Task<Void, Never> {
    self.run(
      SingleProcess(),
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
  ///   - runSilently: Whether to skip the ``ProcessState/running(_:)`` state.
  ///   - interrupts: The delays between the calls of `onInterrupt`; they accumulate.
  ///   - delayer: Times the interrupts; sleeps the task by default.
  ///   - block: The work of the process.
  ///   - onInterrupt: Called with the time since the start after each interrupt; an error it
  ///     throws ends the run.
  public func run(
    silently runSilently: Bool = false,
    interrupts: [Duration],
    delayer: any OperationDelayer & Sendable = TaskSleepDelayer(),
    @_implicitSelfCapture block: @escaping @MainActor () async throws -> Void,
    @_implicitSelfCapture onInterrupt:
      @escaping @MainActor (_ accumulatedDelay: Duration) throws
      -> Void
  ) async {
    await self.run(
      SingleProcess(),
      silently: runSilently,
      interrupts: interrupts,
      delayer: delayer,
      block: block,
      onInterrupt: onInterrupt
    )
  }
}
