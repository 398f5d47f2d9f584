import OperationCore

/// The interrupts of a run: when to call the handler, and the delayer that times them.
struct InterruptSchedule {
  let interrupts: [Duration]
  let delayer: any OperationDelayer & Sendable
  let onInterrupt: @MainActor (_ accumulatedDelay: Duration) throws -> Void

  /// Runs `body` with these interrupts.
  @MainActor
  func run<T>(_ body: @escaping @MainActor () async throws -> T) async throws -> T {
    try await withInterrupts(
      self.interrupts,
      delayer: self.delayer,
      onInterrupt: self.onInterrupt,
      body: body
    )
  }
}

extension InterruptSchedule? {
  /// Runs `body`, with the interrupts if there are any.
  @MainActor
  func run<T>(_ body: @escaping @MainActor () async throws -> T) async throws -> T {
    guard let self else { return try await body() }
    return try await self.run(body)
  }
}

// MARK: - Loadable

extension StateController {
  /// A controller for a loadable state.
  init<Value>(
    read: @escaping @MainActor () -> State,
    write: @escaping @MainActor (State) -> Void,
    slot: any TaskSlot
  ) where State == LoadableState<Value> {
    self.init(
      read: read,
      write: write,
      slot: slot,
      resetState: { $0.isAbsent ? nil : .absent },
      isCancelRequest: { $0 is CancelLoadable },
      isResetRequest: { $0 is ResetLoadable }
    )
  }
}

@MainActor
extension RunPlan {
  /// A load whose block returns the value.
  static func loading<Value>(
    silently: Bool,
    interrupts: InterruptSchedule? = nil,
    block: @escaping @MainActor () async throws -> Value
  ) -> Self where State == LoadableState<Value> {
    Self(
      silently: silently,
      starting: { $0.isLoading ? nil : .loading },
      failed: { .error($0) },
      body: { _ in .loaded(try await interrupts.run(block)) }
    )
  }

  /// A load whose block yields states.
  static func loading<Value>(
    silently: Bool,
    interrupts: InterruptSchedule? = nil,
    yieldingBlock block:
      @escaping @MainActor (_ yield: (LoadableState<Value>) -> Void)
      async throws -> Void
  ) -> Self where State == LoadableState<Value> {
    Self(
      silently: silently,
      starting: { $0.isLoading ? nil : .loading },
      failed: { .error($0) },
      body: { yield in
        try await interrupts.run { try await block(yield) }
        return nil
      }
    )
  }
}

// MARK: - Process

extension StateController {
  /// A controller for a process state.
  init<ProcessKind>(
    read: @escaping @MainActor () -> State,
    write: @escaping @MainActor (State) -> Void,
    slot: any TaskSlot
  ) where State == ProcessState<ProcessKind> {
    self.init(
      read: read,
      write: write,
      slot: slot,
      resetState: { $0.isIdle ? nil : .idle },
      isCancelRequest: { $0 is CancelProcess },
      isResetRequest: { $0 is ResetProcess }
    )
  }
}

@MainActor
extension RunPlan {
  /// A run of `process`.
  static func running<ProcessKind: Equatable>(
    _ process: ProcessKind,
    silently: Bool,
    interrupts: InterruptSchedule? = nil,
    block: @escaping @MainActor () async throws -> Void
  ) -> Self where State == ProcessState<ProcessKind> {
    Self(
      silently: silently,
      starting: { $0.isRunning(process) ? nil : .running(process) },
      failed: { .failed(process: process, error: $0) },
      body: { _ in
        try await interrupts.run(block)
        return .finished(process)
      }
    )
  }
}
