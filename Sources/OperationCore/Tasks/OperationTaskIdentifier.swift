import Synchronization

/// An opaque identifier of an ``OperationTask``, unique within the process.
public struct OperationTaskIdentifier: Hashable, Sendable {
  private let number: Int

  package init() {
    self.number = nextTaskNumber.add(1, ordering: .relaxed).newValue
  }
}

private let nextTaskNumber = Atomic<Int>(0)

extension OperationTaskIdentifier: CustomDebugStringConvertible {
  /// A description such as `OperationTaskIdentifier(#1)`.
  public var debugDescription: String {
    "OperationTaskIdentifier(#\(self.number))"
  }
}

// MARK: - Context

extension OperationContext {
  /// The identifier of the ``OperationTask`` that is running, inside its work only.
  public var operationRunningTaskIdentifier: OperationTaskIdentifier? {
    get { self[RunningTaskIdentifierKey.self] }
    set { self[RunningTaskIdentifierKey.self] = newValue }
  }

  private enum RunningTaskIdentifierKey: Key {
    static let defaultValue: OperationTaskIdentifier? = nil
  }
}
