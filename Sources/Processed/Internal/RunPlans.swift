import OperationCore

/// How one kind of run changes its state: the half of a family that ``ControlledState`` leaves
/// out, which for a process depends on the process that runs.
protocol RunKind<State> {
  /// The state the run drives.
  associatedtype State

  /// What the run's work returns: the value of a load, nothing for a process.
  associatedtype Output

  /// The state to set when the run starts, or `nil` when `state` already says so.
  func starting(from state: State) -> State?

  /// The state for the run's output.
  func finished(with output: Output) -> State

  /// The state for an error that ends the run.
  func failed(with error: any Error) -> State

  /// The state for a result that a request yields while it runs, or `nil` to leave the state.
  func yielded(_ result: Result<Output, any Error>) -> State?
}

/// A load: ``LoadableState/loading``, then ``LoadableState/loaded(_:)`` or
/// ``LoadableState/error(_:)``.
struct LoadRun<Value>: RunKind {
  func starting(from state: LoadableState<Value>) -> LoadableState<Value>? {
    state.isLoading ? nil : .loading
  }

  func finished(with output: Value) -> LoadableState<Value> {
    .loaded(output)
  }

  func failed(with error: any Error) -> LoadableState<Value> {
    .error(error)
  }

  func yielded(_ result: Result<Value, any Error>) -> LoadableState<Value>? {
    switch result {
    case .success(let value): .loaded(value)
    case .failure(let error): .error(error)
    }
  }
}

/// A run of `process`: ``ProcessState/running(_:)``, then ``ProcessState/finished(_:)`` or
/// ``ProcessState/failed(process:error:)``. The output of its work is dropped.
struct ProcessRun<ProcessKind: Equatable, Output>: RunKind {
  let process: ProcessKind

  init(_ process: ProcessKind) {
    self.process = process
  }

  func starting(from state: ProcessState<ProcessKind>) -> ProcessState<ProcessKind>? {
    state.isRunning(self.process) ? nil : .running(self.process)
  }

  func finished(with output: Output) -> ProcessState<ProcessKind> {
    .finished(self.process)
  }

  func failed(with error: any Error) -> ProcessState<ProcessKind> {
    .failed(process: self.process, error: error)
  }

  func yielded(_ result: Result<Output, any Error>) -> ProcessState<ProcessKind>? {
    nil
  }
}

extension LoadableState: ControlledState {
  typealias CancelRequest = CancelLoadable
  typealias ResetRequest = ResetLoadable

  static var resetState: Self { .absent }

  var isResetState: Bool { self.isAbsent }
}

extension ProcessState: ControlledState {
  typealias CancelRequest = CancelProcess
  typealias ResetRequest = ResetProcess

  static var resetState: Self { .idle }

  var isResetState: Bool { self.isIdle }
}

// MARK: - Plans

@MainActor
extension RunPlan {
  /// A run of `kind` with its starting and failed states, and `body` as its work.
  init<Kind: RunKind<State>>(
    _ kind: Kind,
    silently: Bool,
    body:
      @escaping @MainActor (_ yield: @escaping @MainActor (State) -> Void) async throws -> State?
  ) {
    self.init(
      silently: silently,
      starting: { kind.starting(from: $0) },
      failed: { kind.failed(with: $0) },
      body: body
    )
  }

  /// A run of `kind` whose block returns its output.
  init<Kind: RunKind<State>>(
    _ kind: Kind,
    silently: Bool,
    interrupts: InterruptSchedule? = nil,
    block: @escaping @MainActor () async throws -> Kind.Output
  ) {
    self.init(kind, silently: silently) { _ in
      kind.finished(with: try await interrupts.run(block))
    }
  }

  /// A run of `kind` whose block yields states; returning keeps the last yielded one.
  init<Kind: RunKind<State>>(
    _ kind: Kind,
    silently: Bool,
    interrupts: InterruptSchedule? = nil,
    yieldingBlock block: @escaping @MainActor (_ yield: (State) -> Void) async throws -> Void
  ) {
    self.init(kind, silently: silently) { yield in
      try await interrupts.run { try await block(yield) }
      return nil
    }
  }
}

// MARK: - Interrupts

/// The interrupts of a run: when to call the handler, and the delayer that times them.
struct InterruptSchedule {
  let interrupts: [Duration]
  let delayer: any OperationDelayer & Sendable
  let onInterrupt: @MainActor (_ accumulatedDelay: Duration) throws -> Void

  init(
    _ interrupts: [Duration],
    _ delayer: any OperationDelayer & Sendable,
    _ onInterrupt: @escaping @MainActor (_ accumulatedDelay: Duration) throws -> Void
  ) {
    self.interrupts = interrupts
    self.delayer = delayer
    self.onInterrupt = onInterrupt
  }
}

extension InterruptSchedule? {
  /// Runs `body`, with the interrupts if there are any.
  @MainActor
  func run<T>(_ body: @escaping @MainActor () async throws -> T) async throws -> T {
    guard let self else { return try await body() }
    return try await withInterrupts(
      self.interrupts,
      delayer: self.delayer,
      onInterrupt: self.onInterrupt,
      body: body
    )
  }
}
