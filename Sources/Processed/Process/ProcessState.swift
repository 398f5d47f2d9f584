// NB: `localizedDescription` (for `debugDescription`) lives in Foundation, not in
// FoundationEssentials.
import Foundation

/// The state of a process that produces no value, such as saving or deleting: idle, running,
/// failed or finished.
///
/// `ProcessKind` says which process the state is about, so that one state can track several
/// processes that never run at the same time:
///
/// ```swift
/// enum Action { case save, delete }
///
/// switch model.action {
/// case .idle: EmptyView()
/// case .running(.save): Text("Saving…")
/// case .running(.delete): Text("Deleting…")
/// case .failed(let action, let error): ErrorView(action, error)
/// case .finished(let action): DoneView(action)
/// }
/// ```
///
/// For a state with a single purpose use ``SingleProcessState``, whose kind is ``SingleProcess``.
/// ``ProcessSupport``, ``Process`` and ``ProcessBinding`` set the states for you while they run.
public enum ProcessState<ProcessKind> {
  /// No process has run, or the state was reset.
  case idle

  /// A process is running.
  case running(ProcessKind)

  /// A process failed with an error.
  case failed(process: ProcessKind, error: any Error)

  /// A process finished.
  case finished(ProcessKind)
}

/// The state of a process with a single purpose.
public typealias SingleProcessState = ProcessState<SingleProcess>

// MARK: - Transitions

extension ProcessState {
  /// Sets the state to ``running(_:)``.
  ///
  /// - Parameter process: The process that starts.
  public mutating func start(_ process: ProcessKind) {
    self = .running(process)
  }

  /// Sets the state to ``running(_:)`` with a new ``SingleProcess``.
  public mutating func start() where ProcessKind == SingleProcess {
    self.start(SingleProcess())
  }

  /// Moves a ``running(_:)`` state to ``finished(_:)`` with the same process; does nothing in
  /// any other state.
  public mutating func finish() {
    guard case .running(let process) = self else { return }
    self = .finished(process)
  }

  /// Moves a ``running(_:)`` state to ``failed(process:error:)`` with the same process; does
  /// nothing in any other state.
  ///
  /// - Parameter error: The error.
  public mutating func fail(with error: any Error) {
    guard case .running(let process) = self else { return }
    self = .failed(process: process, error: error)
  }

  /// Sets the state to ``idle``.
  public mutating func reset() {
    self = .idle
  }
}

// MARK: - Setters

extension ProcessState {
  /// Sets the state to ``idle``.
  public mutating func setIdle() {
    self = .idle
  }

  /// Sets the state to ``running(_:)``.
  ///
  /// - Parameter process: The running process.
  public mutating func setRunning(_ process: ProcessKind) {
    self = .running(process)
  }

  /// Sets the state to ``running(_:)`` with a new ``SingleProcess``.
  public mutating func setRunning() where ProcessKind == SingleProcess {
    self = .running(SingleProcess())
  }

  /// Sets the state to ``failed(process:error:)``.
  ///
  /// - Parameters:
  ///   - process: The failed process.
  ///   - error: The error.
  public mutating func setFailed(_ process: ProcessKind, error: any Error) {
    self = .failed(process: process, error: error)
  }

  /// Sets the state to ``failed(process:error:)`` with a new ``SingleProcess``.
  ///
  /// - Parameter error: The error.
  public mutating func setFailed(with error: any Error) where ProcessKind == SingleProcess {
    self = .failed(process: SingleProcess(), error: error)
  }

  /// Sets the state to ``finished(_:)``.
  ///
  /// - Parameter process: The finished process.
  public mutating func setFinished(_ process: ProcessKind) {
    self = .finished(process)
  }

  /// Sets the state to ``finished(_:)`` with a new ``SingleProcess``.
  public mutating func setFinished() where ProcessKind == SingleProcess {
    self = .finished(SingleProcess())
  }
}

// MARK: - Queries

extension ProcessState {
  /// Whether the state is ``idle``.
  public var isIdle: Bool {
    if case .idle = self { return true }
    return false
  }

  /// Whether the state is ``running(_:)``.
  public var isRunning: Bool {
    if case .running = self { return true }
    return false
  }

  /// Whether the state is ``failed(process:error:)``.
  public var hasFailed: Bool {
    if case .failed = self { return true }
    return false
  }

  /// Whether the state is ``finished(_:)``.
  public var hasFinished: Bool {
    if case .finished = self { return true }
    return false
  }

  /// The process of a ``running(_:)``, ``failed(process:error:)`` or ``finished(_:)`` state;
  /// `nil` when ``idle``.
  public var process: ProcessKind? {
    switch self {
    case .idle: nil
    case .running(let process), .failed(let process, _), .finished(let process): process
    }
  }

  /// The error of a ``failed(process:error:)`` state; `nil` otherwise.
  public var error: (any Error)? {
    if case .failed(_, let error) = self { return error }
    return nil
  }
}

extension ProcessState where ProcessKind: Equatable {
  /// Whether `process` is running.
  ///
  /// - Parameter process: The process to look for.
  /// - Returns: Whether the state is ``running(_:)`` with an equal process.
  public func isRunning(_ process: ProcessKind) -> Bool {
    if case .running(let running) = self { return running == process }
    return false
  }

  /// Whether `process` failed.
  ///
  /// - Parameter process: The process to look for.
  /// - Returns: Whether the state is ``failed(process:error:)`` with an equal process.
  public func hasFailed(_ process: ProcessKind) -> Bool {
    if case .failed(let failed, _) = self { return failed == process }
    return false
  }

  /// Whether `process` finished.
  ///
  /// - Parameter process: The process to look for.
  /// - Returns: Whether the state is ``finished(_:)`` with an equal process.
  public func hasFinished(_ process: ProcessKind) -> Bool {
    if case .finished(let finished) = self { return finished == process }
    return false
  }
}

// MARK: - Conformances

extension ProcessState: CustomDebugStringConvertible {
  /// `idle`, `running(<process>)`, `failed(<process>, <localized description>)` or
  /// `finished(<process>)`.
  public var debugDescription: String {
    switch self {
    case .idle: "idle"
    case .running(let process): "running(\(process))"
    case .failed(let process, let error): "failed(\(process), \(error.localizedDescription))"
    case .finished(let process): "finished(\(process))"
    }
  }
}

extension ProcessState: Sendable where ProcessKind: Sendable {}

extension ProcessState: Equatable where ProcessKind: Equatable {
  /// Whether two states are the same case with equal processes.
  ///
  /// > Important: The errors of two ``failed(process:error:)`` states are not compared: the
  /// > comparison answers "did this process fail?". Compare ``error`` yourself to tell errors
  /// > apart.
  ///
  /// - Parameters:
  ///   - lhs: A state.
  ///   - rhs: Another state.
  /// - Returns: Whether the states are equal.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.idle, .idle): true
    case (.running(let lhs), .running(let rhs)): lhs == rhs
    case (.failed(let lhs, _), .failed(let rhs, _)): lhs == rhs
    case (.finished(let lhs), .finished(let rhs)): lhs == rhs
    default: false
    }
  }
}
