import Foundation
import OperationTestSupport
import Processed
import Testing

/// A state of a run, named by what happened, so that one scenario reads the same for a loadable
/// and a process state.
enum Step: Sendable {
  /// `absent`, or `idle`.
  case reset

  /// `loading`, or `running` the process of run `n`.
  case started(Int)

  /// `loaded(n)`, or `finished` the process of run `n`.
  case finished(Int)

  /// `error(error)`, or `failed` with the process of run `n`.
  case failed(Int, any Error & Sendable)
}

/// The interrupts of a run: their delays, the delayer that times them, and the handler.
struct Interrupts {
  var delays: [Duration]
  var delayer: ManualDelayer
  var onInterrupt: @MainActor (_ accumulatedDelay: Duration) throws -> Void
}

/// How a test starts a run: the form that returns the run's task, or the `async` form awaited in
/// a task of the test.
enum Form: CaseIterable, Sendable {
  case task
  case async
}

/// One of the four public ways to drive a state: the support protocol or the binding, of a
/// loadable or a process state. Each test of a shared rule runs against all four.
enum Subject: CaseIterable, Sendable, CustomTestStringConvertible {
  case loadableSupport
  case loadableBinding
  case processSupport
  case processBinding

  static let loadables: [Self] = [.loadableSupport, .loadableBinding]
  static let processes: [Self] = [.processSupport, .processBinding]
  static let bindings: [Self] = [.loadableBinding, .processBinding]

  var testDescription: String {
    switch self {
    case .loadableSupport: "LoadableSupport"
    case .loadableBinding: "LoadableBinding"
    case .processSupport: "ProcessSupport"
    case .processBinding: "ProcessBinding"
    }
  }

  /// Whether this way drives a loadable state.
  var isLoadable: Bool {
    self == .loadableSupport || self == .loadableBinding
  }

  /// A new container driven this way.
  @MainActor
  func harness() -> RunHarness {
    RunHarness(self)
  }
}

/// A state that a ``RunHarness`` recorded.
enum Recorded: Equatable {
  case loadable(LoadableState<Int>)
  case process(SingleProcessState)
}

/// The work of a run in a test.
typealias Work = @MainActor () async throws -> Void

/// The block of a load that yields states.
typealias YieldingBlock = @MainActor (_ yield: (LoadableState<Int>) -> Void) async throws -> Void

/// A container whose state a test drives through one ``Subject``: a ``LoadableContainer`` or a
/// ``ProcessContainer``.
///
/// Run `n` loads the value `n`, or runs the process whose identifier is `n`; its work is the
/// closure the test passes. ``Step``s name the states, so that one test reads the same for
/// every subject.
@MainActor
final class RunHarness {
  let subject: Subject
  let loadable = LoadableContainer()
  let process = ProcessContainer()

  init(_ subject: Subject) {
    self.subject = subject
  }

  /// Every state the container went through, the initial one first.
  var history: [Recorded] {
    self.subject.isLoadable
      ? self.loadable.history.map(Recorded.loadable)
      : self.process.history.map(Recorded.process)
  }

  /// The error of the current state, if any.
  var error: (any Error)? {
    self.subject.isLoadable ? self.loadable.loadable.error : self.process.process.error
  }

  /// `CancelLoadable()` or `CancelProcess()`.
  var cancelRequest: any Error {
    self.subject.isLoadable ? CancelLoadable() : CancelProcess()
  }

  /// `ResetLoadable()` or `ResetProcess()`.
  var resetRequest: any Error {
    self.subject.isLoadable ? ResetLoadable() : ResetProcess()
  }

  /// The process of run `n`, at a fixed date so that every run `n` has an equal one.
  static func process(_ n: Int) -> SingleProcess {
    SingleProcess(id: "\(n)", initializedAt: Date(timeIntervalSince1970: 1_000))
  }

  /// The state that `step` stands for.
  func state(_ step: Step) -> Recorded {
    guard self.subject.isLoadable else {
      return switch step {
      case .reset: .process(.idle)
      case .started(let n): .process(.running(Self.process(n)))
      case .finished(let n): .process(.finished(Self.process(n)))
      case .failed(let n, let error): .process(.failed(process: Self.process(n), error: error))
      }
    }
    return switch step {
    case .reset: .loadable(.absent)
    case .started: .loadable(.loading)
    case .finished(let n): .loadable(.loaded(n))
    case .failed(_, let error): .loadable(.error(error))
    }
  }

  /// Whether the current state is the one `step` stands for.
  func isIn(_ step: Step) -> Bool {
    self.history.last == self.state(step)
  }

  /// Expects the history to be the states that `steps` stand for.
  ///
  /// A run sets its starting state only when the state does not already say so, so a
  /// ``Step/started(_:)`` that stands for the same state as the step before it stands for no
  /// assignment: `[.started(1), .started(2)]` is one `loading`, but `running` two processes.
  func expectHistory(_ steps: [Step], sourceLocation: SourceLocation = #_sourceLocation) {
    var expected = [Recorded]()
    for step in steps {
      let state = self.state(step)
      if case .started = step, expected.last == state { continue }
      expected.append(state)
    }
    #expect(self.history == expected, sourceLocation: sourceLocation)
  }

  // MARK: - Runs

  /// Starts run `n` with a form that returns its task.
  func start(
    _ n: Int,
    silently: Bool = false,
    interrupts: Interrupts? = nil,
    work: @escaping Work = {}
  ) -> Task<Void, Never> {
    let (model, block, container, process) = (
      self.loadable, loadBlock(n, work), self.process, Self.process(n)
    )
    switch (self.subject, interrupts) {
    case (.loadableSupport, nil): return model.load(\.loadable, silently: silently, block: block)
    case (.loadableBinding, nil): return model.binding.load(silently: silently, block: block)
    case (.processSupport, nil):
      return container.run(\.process, as: process, silently: silently, block: work)
    case (.processBinding, nil):
      return container.binding.run(process, silently: silently, block: work)
    case (.loadableSupport, let i?):
      return model.load(
        \.loadable,
        silently: silently,
        interrupts: i.delays,
        delayer: i.delayer,
        block: block,
        onInterrupt: i.onInterrupt
      )
    case (.loadableBinding, let i?):
      return model.binding.load(
        silently: silently,
        interrupts: i.delays,
        delayer: i.delayer,
        block: block,
        onInterrupt: i.onInterrupt
      )
    case (.processSupport, let i?):
      return container.run(
        \.process,
        as: process,
        silently: silently,
        interrupts: i.delays,
        delayer: i.delayer,
        block: work,
        onInterrupt: i.onInterrupt
      )
    case (.processBinding, let i?):
      return container.binding.run(
        process,
        silently: silently,
        interrupts: i.delays,
        delayer: i.delayer,
        block: work,
        onInterrupt: i.onInterrupt
      )
    }
  }

  /// Runs run `n` with an `async` form.
  func run(
    _ n: Int,
    silently: Bool = false,
    interrupts: Interrupts? = nil,
    work: @escaping Work = {}
  ) async {
    let (model, block, container, process) = (
      self.loadable, loadBlock(n, work), self.process, Self.process(n)
    )
    switch (self.subject, interrupts) {
    case (.loadableSupport, nil): await model.load(\.loadable, silently: silently, block: block)
    case (.loadableBinding, nil): await model.binding.load(silently: silently, block: block)
    case (.processSupport, nil):
      await container.run(\.process, as: process, silently: silently, block: work)
    case (.processBinding, nil):
      await container.binding.run(process, silently: silently, block: work)
    case (.loadableSupport, let i?):
      await model.load(
        \.loadable,
        silently: silently,
        interrupts: i.delays,
        delayer: i.delayer,
        block: block,
        onInterrupt: i.onInterrupt
      )
    case (.loadableBinding, let i?):
      await model.binding.load(
        silently: silently,
        interrupts: i.delays,
        delayer: i.delayer,
        block: block,
        onInterrupt: i.onInterrupt
      )
    case (.processSupport, let i?):
      await container.run(
        \.process,
        as: process,
        silently: silently,
        interrupts: i.delays,
        delayer: i.delayer,
        block: work,
        onInterrupt: i.onInterrupt
      )
    case (.processBinding, let i?):
      await container.binding.run(
        process,
        silently: silently,
        interrupts: i.delays,
        delayer: i.delayer,
        block: work,
        onInterrupt: i.onInterrupt
      )
    }
  }

  /// Starts run `n` in `form`: the task a `Task`-returning form returns, or a new task that
  /// awaits an `async` form.
  func launch(
    _ form: Form,
    _ n: Int,
    interrupts: Interrupts? = nil,
    work: @escaping Work = {}
  ) -> Task<Void, Never> {
    switch form {
    case .task: self.start(n, interrupts: interrupts, work: work)
    case .async: Task { await self.run(n, interrupts: interrupts, work: work) }
    }
  }

  /// Starts a load whose block yields states, with a form that returns its task; only for a
  /// loadable subject.
  func start(
    silently: Bool = false,
    interrupts: Interrupts? = nil,
    yielding block: @escaping YieldingBlock
  ) -> Task<Void, Never> {
    precondition(self.subject.isLoadable, "Only a loadable state loads with a yielding block.")
    let model = self.loadable
    switch (self.subject == .loadableBinding, interrupts) {
    case (false, nil): return model.load(\.loadable, silently: silently, block: block)
    case (true, nil): return model.binding.load(silently: silently, block: block)
    case (false, let i?):
      return model.load(
        \.loadable,
        silently: silently,
        interrupts: i.delays,
        delayer: i.delayer,
        block: block,
        onInterrupt: i.onInterrupt
      )
    case (true, let i?):
      return model.binding.load(
        silently: silently,
        interrupts: i.delays,
        delayer: i.delayer,
        block: block,
        onInterrupt: i.onInterrupt
      )
    }
  }

  /// Runs a load whose block yields states, with an `async` form; only for a loadable subject.
  func run(
    silently: Bool = false,
    interrupts: Interrupts? = nil,
    yielding block: @escaping YieldingBlock
  ) async {
    precondition(self.subject.isLoadable, "Only a loadable state loads with a yielding block.")
    let model = self.loadable
    switch (self.subject == .loadableBinding, interrupts) {
    case (false, nil): await model.load(\.loadable, silently: silently, block: block)
    case (true, nil): await model.binding.load(silently: silently, block: block)
    case (false, let i?):
      await model.load(
        \.loadable,
        silently: silently,
        interrupts: i.delays,
        delayer: i.delayer,
        block: block,
        onInterrupt: i.onInterrupt
      )
    case (true, let i?):
      await model.binding.load(
        silently: silently,
        interrupts: i.delays,
        delayer: i.delayer,
        block: block,
        onInterrupt: i.onInterrupt
      )
    }
  }

  // MARK: - Cancel, reset, assign

  /// Cancels the running task.
  func cancel() {
    switch self.subject {
    case .loadableSupport: self.loadable.cancel(\.loadable)
    case .loadableBinding: self.loadable.binding.cancel()
    case .processSupport: self.process.cancel(\.process)
    case .processBinding: self.process.binding.cancel()
    }
  }

  /// Resets the state.
  func reset() {
    switch self.subject {
    case .loadableSupport: self.loadable.reset(\.loadable)
    case .loadableBinding: self.loadable.binding.reset()
    case .processSupport: self.process.reset(\.process)
    case .processBinding: self.process.binding.reset()
    }
  }

  /// Sets the state through the container's binding, as `binding.wrappedValue = …`.
  func assign(_ step: Step) {
    switch self.state(step) {
    case .loadable(let state): self.loadable.binding.wrappedValue = state
    case .process(let state): self.process.binding.wrappedValue = state
    }
  }
}

/// A load block that does `work`, then returns `n`.
private func loadBlock(_ n: Int, _ work: @escaping Work) -> @MainActor () async throws -> Int {
  {
    try await work()
    return n
  }
}
