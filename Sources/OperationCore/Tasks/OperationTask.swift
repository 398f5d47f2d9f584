import OperationSynchronization

/// A unit of work that runs at most once, however many times and from wherever it is awaited.
///
/// Stores create an `OperationTask` for every run of an operation, and a state keeps the tasks
/// that are in flight (for example ``QueryState/activeTasks``). The task is a value, but its run
/// state is shared: copies, ``map(_:)`` and ``mapError(_:)`` results have the same ``id``, start
/// the same work, and see the same result.
///
/// ```swift
/// let task = store.fetchTask()
/// let post = try await task.runIfNeeded()
/// let same = try await task.runIfNeeded()  // Does not fetch again.
/// ```
///
/// Before its work starts, the task runs every task it was scheduled after
/// (``schedule(after:)-(OperationTask<V,F>)``) concurrently and ignores their errors.
///
/// Cancellation: ``cancel()`` cancels a running task; a task cancelled before it starts starts
/// its work already cancelled when it is first awaited, so cooperative work throws
/// `CancellationError` and work that ignores cancellation completes. A caller of
/// ``runIfNeeded()`` that is cancelled cancels the task.
public struct OperationTask<Value: Sendable, Failure: Error>: Identifiable, Sendable {
  /// The context the task's work receives when it starts.
  ///
  /// Changing it after the task started has no effect.
  public var context: OperationContext

  @usableFromInline let core: OperationTaskCore
  @usableFromInline let extract:
    (@Sendable (Result<any Sendable, any Error>) -> Result<Value, Failure>)?

  /// Creates a task.
  ///
  /// - Parameters:
  ///   - context: The context the work receives; ``OperationContext/operationRunningTaskIdentifier``
  ///     is set to the task's id while it runs.
  ///   - work: The work of the task, run at most once.
  public init(
    context: OperationContext,
    work:
      @escaping @Sendable (OperationTaskIdentifier, OperationContext) async throws(Failure) ->
      Value
  ) {
    self.init(context: context) { core, context in
      do throws(Failure) {
        return .success(try await work(core.id, context))
      } catch {
        return .failure(error)
      }
    }
  }

  /// Creates a task whose work receives the running task's core and context, and returns its
  /// result as the task keeps it: a `Value` or a `Failure`, erased.
  ///
  /// A store's runs make their task and their erased result themselves, which spares each run
  /// the layers that would only do that.
  @inlinable
  init(context: OperationContext, runningWork work: @escaping OperationTaskCore.Work) {
    self.context = context
    self.extract = nil
    self.core = OperationTaskCore(work: work)
  }

  /// The task that runs with `core` and `context`, inside the work that
  /// ``init(context:runningWork:)`` gives them to.
  @inlinable
  init(running core: OperationTaskCore, context: OperationContext) {
    self.init(core: core, context: context, extract: nil)
  }

  @usableFromInline
  init(
    core: OperationTaskCore,
    context: OperationContext,
    extract: (@Sendable (Result<any Sendable, any Error>) -> Result<Value, Failure>)?
  ) {
    self.core = core
    self.context = context
    self.extract = extract
  }

  /// The identifier that copies and mapped views of this task share.
  public var id: OperationTaskIdentifier {
    self.core.id
  }

  /// The name, priority and executor of the task, stored in ``context``.
  public var configuration: OperationTaskConfiguration {
    get { self.context.operationTaskConfiguration }
    set { self.context.operationTaskConfiguration = newValue }
  }

  /// The id and configuration of the task, for descriptions.
  public var info: OperationTaskInfo {
    OperationTaskInfo(id: self.id, configuration: self.configuration)
  }
}

// MARK: - Running

extension OperationTask {
  /// Starts the work if it has not started, and waits for its result.
  ///
  /// The first call creates one Swift `Task` from ``configuration``; later calls wait for the
  /// same task, or return its result at once when it has finished. Cancelling the waiting caller
  /// cancels the task.
  ///
  /// - Returns: The value of the work.
  /// - Throws: The error of the work.
  @discardableResult
  @inlinable
  public func runIfNeeded() async throws(Failure) -> Value {
    try self.value(of: await self.core.run(context: self.context))
  }

  /// Starts the work without waiting for it; does nothing if it already started.
  package func start() {
    self.core.start(context: self.context)
  }

  /// A handle that cancels this task, whose type does not depend on the task's value and
  /// failure types; stores keep their runs by it.
  @inlinable
  package var handle: OperationTaskHandle {
    OperationTaskHandle(core: self.core)
  }

  /// Cancels the task.
  ///
  /// A running task's Swift `Task` is cancelled; a task that has not started starts already
  /// cancelled; a finished task is not affected.
  public func cancel() {
    self.core.cancel()
  }

  /// Whether the work has started; stays `true` after it finishes.
  public var hasStarted: Bool {
    self.core.phase != .pending
  }

  /// Whether the work is running now.
  public var isRunning: Bool {
    self.core.phase == .running
  }

  /// Whether the work has finished.
  public var isFinished: Bool {
    self.core.phase == .finished
  }
  /// The number of tasks this task is scheduled after, for tests of scheduling.
  package var dependencyCount: Int {
    self.core.dependencyCount
  }

  /// Whether the task was cancelled before it finished.
  public var isCancelled: Bool {
    self.core.isCancelled
  }

  /// The result of the work, once it has finished.
  public var finishedResult: Result<Value, Failure>? {
    self.core.finishedResult.map(self.convert)
  }

  private func convert(_ result: Result<any Sendable, any Error>) -> Result<Value, Failure> {
    Result { () throws(Failure) in try self.value(of: result) }
  }

  /// The value of the work, or its error thrown, from the result its core keeps erased.
  @inlinable
  func value(of result: Result<any Sendable, any Error>) throws(Failure) -> Value {
    if let extract {
      return try extract(result).get()
    }
    // NB: The core erases the work's typed result; it only ever holds `Value` and `Failure`
    // values of the task that created it, so these casts cannot fail. Unwrapped without a
    // `Result<Value, Failure>`, a generic type that unspecialized code looks up on every call.
    switch result {
    case .success(let value): return Self.unwrap(value)
    case .failure(let error): throw error as! Failure
    }
  }

  /// The value that a result erased, without the runtime's dynamic cast (about 250
  /// instructions a run).
  @inlinable
  static func unwrap(_ value: any Sendable) -> Value {
    // NB: `value` is opened as `Erased`, the type it was erased from. Every task erases its
    // work's value as `Value`, also when `Value` is an existential or a class (the container
    // records the static type), so the bit cast is a copy of a value as the type it already is.
    // The cast is the fallback for an erasure that ever records another type.
    func exactly<Erased>(_ value: Erased) -> Value? {
      Erased.self == Value.self ? unsafeBitCast(value, to: Value.self) : nil
    }
    return exactly(value) ?? (value as! Value)
  }
}

// MARK: - Dependencies

extension OperationTask {
  /// Makes this task wait for another task to finish before its work starts.
  ///
  /// The other task's errors are ignored. Scheduling after the same task twice, or after a task
  /// once this one started, has no effect. A schedule that would make a cycle is not added and is
  /// reported as an issue in debug builds.
  ///
  /// - Parameter task: The task to wait for.
  public func schedule<V, F>(after task: OperationTask<V, F>) {
    self.core.addDependency(task.core, info: task.info, ownInfo: self.info) {
      _ = try? await task.runIfNeeded()
    }
  }

  /// Makes this task wait for other tasks to finish before its work starts.
  ///
  /// - Parameter tasks: The tasks to wait for.
  public func schedule<V, F>(after tasks: some Sequence<OperationTask<V, F>>) {
    for task in tasks {
      self.schedule(after: task)
    }
  }
}

// MARK: - Mapping

extension OperationTask {
  /// A view of this task whose value is transformed.
  ///
  /// The view shares the id and run state of this task: running it runs this task.
  ///
  /// - Parameter transform: Transforms the value.
  /// - Returns: The mapped task.
  public func map<NewValue: Sendable>(
    _ transform: @escaping @Sendable (Value) -> NewValue
  ) -> OperationTask<NewValue, Failure> {
    let convert = self.convert
    return OperationTask<NewValue, Failure>(core: self.core, context: self.context) { result in
      convert(result).map(transform)
    }
  }

  /// A view of this task whose error is transformed.
  ///
  /// - Parameter transform: Transforms the error.
  /// - Returns: The mapped task.
  public func mapError<NewFailure: Error>(
    _ transform: @escaping @Sendable (Failure) -> NewFailure
  ) -> OperationTask<Value, NewFailure> {
    let convert = self.convert
    return OperationTask<Value, NewFailure>(core: self.core, context: self.context) { result in
      convert(result).mapError(transform)
    }
  }
}

extension OperationTask: Hashable {
  /// Whether two tasks share an identifier, and so the same run.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.id == rhs.id
  }

  /// Hashes the task's identifier.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(self.id)
  }
}

// MARK: - OperationTaskInfo

/// The identity and configuration of an ``OperationTask``, for descriptions and diagnostics.
public struct OperationTaskInfo: Identifiable, Hashable, Sendable {
  /// The identifier of the task.
  public let id: OperationTaskIdentifier

  /// The configuration of the task.
  public let configuration: OperationTaskConfiguration

  package init(id: OperationTaskIdentifier, configuration: OperationTaskConfiguration) {
    self.id = id
    self.configuration = configuration
  }

  /// Whether two infos have the same task identifier and name.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.id == rhs.id && lhs.configuration.name == rhs.configuration.name
  }

  /// Hashes the task identifier and name.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(self.id)
    hasher.combine(self.configuration.name)
  }
}

extension OperationTaskInfo: CustomStringConvertible {
  /// The task's name and identifier, such as `[Fetch Posts](ID: OperationTaskIdentifier(#1))`.
  public var description: String {
    "[\(self.configuration.name ?? "Unnamed OperationTask")](ID: \(self.id.debugDescription))"
  }
}

// MARK: - OperationTaskCore

/// The shared run state of an ``OperationTask`` and its copies.
@usableFromInline
final class OperationTaskCore: Sendable {
  @usableFromInline typealias Work =
    @Sendable (OperationTaskCore, OperationContext) async -> Result<any Sendable, any Error>

  enum Phase: Equatable {
    case pending
    case running
    case finished
  }

  private struct Dependency {
    let core: OperationTaskCore
    let run: @Sendable () async -> Void
  }

  /// The Swift task that runs the work.
  ///
  /// NB: It throws, though its work never does: `Task<_, Never>` takes a non-throwing closure,
  /// which the standard library converts to the throwing one that the runtime runs through a
  /// reabstraction thunk, one more asynchronous frame in every run. A waiter folds the error that
  /// never comes into the result.
  @usableFromInline typealias RunTask = Task<Result<any Sendable, any Error>, any Error>

  private struct State {
    var task: RunTask?
    var result: Result<any Sendable, any Error>?
    var isCancelled = false
    var info: OperationTaskInfo?
    var dependencies = [Dependency]()
  }

  @usableFromInline let id = OperationTaskIdentifier()
  private let work: Work
  private let state = Lock(State())

  @usableFromInline
  init(work: @escaping Work) {
    self.work = work
  }

  var phase: Phase {
    self.state.withLock { state in
      if state.result != nil { return .finished }
      return state.task == nil ? .pending : .running
    }
  }

  var isCancelled: Bool {
    self.state.withLock { $0.isCancelled }
  }

  var finishedResult: Result<any Sendable, any Error>? {
    self.state.withLock { $0.result }
  }

  @usableFromInline
  func run(context: OperationContext) async -> Result<any Sendable, any Error> {
    let task = self.start(context: context)
    guard let task else {
      return self.state.withLock { $0.result! }
    }
    return await withTaskCancellationHandler {
      do {
        return try await task.value
      } catch {
        return .failure(error)
      }
    } onCancel: {
      self.cancel()
    }
  }

  @discardableResult
  @usableFromInline
  func start(context: OperationContext) -> RunTask? {
    let (task, isNew, isCancelled) = self.state.withLock { state in
      if state.result != nil {
        return (nil as RunTask?, false, false)
      }
      if let task = state.task {
        return (task, false, false)
      }
      // NB: Dependencies are added only before the task starts, so they are read here, under
      // the lock that starts it, rather than by the task under the lock once more.
      let dependencies = state.dependencies
      let task = RunTask(configuration: context.operationTaskConfiguration) {
        await self.execute(context: context, dependencies: dependencies)
      }
      state.task = task
      return (task, true, state.isCancelled)
    }
    if isNew && isCancelled {
      task?.cancel()
    }
    return task
  }

  func cancel() {
    let task = self.state.withLock { state -> RunTask? in
      guard state.result == nil else { return nil }
      state.isCancelled = true
      return state.task
    }
    task?.cancel()
  }

  private func execute(
    context: OperationContext,
    dependencies: [Dependency]
  ) async -> Result<any Sendable, any Error> {
    if !dependencies.isEmpty {
      await Self.run(dependencies)
    }
    var context = context
    context.operationRunningTaskIdentifier = self.id
    let result = await self.work(self, context)
    // NB: The finished task's handle is let go: a state may keep this task for long (a mutation's
    // history keeps up to `maxHistoryLength` attempts), and the handle keeps the memory of the
    // whole Swift task.
    // Callers that wait hold handles of their own, and a finished task answers from `result`.
    self.state.withLock { state in
      state.result = result
      state.task = nil
    }
    return result
  }

  /// Runs `dependencies` and waits for them.
  ///
  /// NB: Out of `execute`, whose frame every task allocates: inlined, the task group made that
  /// frame 448 bytes instead of 176, though few tasks have dependencies.
  @inline(never)
  private static func run(_ dependencies: [Dependency]) async {
    await withTaskGroup(of: Void.self) { group in
      for dependency in dependencies {
        group.addTask { await dependency.run() }
      }
    }
  }

  func addDependency(
    _ dependency: OperationTaskCore,
    info: OperationTaskInfo,
    ownInfo: OperationTaskInfo,
    run: @escaping @Sendable () async -> Void
  ) {
    dependency.state.withLock { $0.info = info }
    self.state.withLock { $0.info = ownInfo }
    // NB: The cycle check and the new edge happen under one lock that every scheduling takes, so
    // that `a.schedule(after: b)` and `b.schedule(after: a)` on two threads cannot both pass the
    // check and deadlock each other. Tasks' own locks are taken inside it, never the reverse.
    let cycle = schedulingLock.withLock { edgeCount -> [OperationTaskInfo]? in
      if let cycle = dependency.chain(to: self) {
        return cycle
      }
      self.state.withLock { state in
        guard state.task == nil, state.result == nil else { return }
        guard !state.dependencies.contains(where: { $0.core === dependency }) else { return }
        state.dependencies.append(Dependency(core: dependency, run: run))
        edgeCount &+= 1
      }
      return nil
    }
    if let cycle {
      #if DEBUG
        reportWarning(.operationTaskCircularScheduling(info: [ownInfo] + cycle))
      #endif
    }
  }

  /// The cores this task waits for before it runs.
  package var dependencyCount: Int {
    self.state.withLock { $0.dependencies.count }
  }

  private func chain(to target: OperationTaskCore) -> [OperationTaskInfo]? {
    var visited = Set<ObjectIdentifier>()
    func search(_ core: OperationTaskCore) -> [OperationTaskCore]? {
      if core === target { return [core] }
      guard visited.insert(ObjectIdentifier(core)).inserted else { return nil }
      let dependencies = core.state.withLock { $0.dependencies.map(\.core) }
      for dependency in dependencies {
        if let chain = search(dependency) {
          return [core] + chain
        }
      }
      return nil
    }
    return search(self)?.compactMap { core in core.state.withLock { $0.info } }
  }
}

/// Orders every `schedule(after:)`, so that its cycle check and the edge it adds are one step.
///
/// It guards the number of edges ever added, a value of its own: with an empty value, the value's
/// address is the start of the lock's storage, and the thread sanitizer took every thread's
/// unlocked read there (the object's header) for a race with the locked access to the value.
private let schedulingLock = Lock(0)

// MARK: - Handle

/// Cancels an ``OperationTask`` whatever its value and failure types.
@usableFromInline
package struct OperationTaskHandle: Sendable {
  @usableFromInline let core: OperationTaskCore

  @inlinable
  init(core: OperationTaskCore) {
    self.core = core
  }

  /// Cancels the task; see ``OperationTask/cancel()``.
  package func cancel() {
    self.core.cancel()
  }
}
