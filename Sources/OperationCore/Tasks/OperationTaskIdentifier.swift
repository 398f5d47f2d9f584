import Synchronization

/// An opaque identifier of an ``OperationTask``, unique within the process.
public struct OperationTaskIdentifier: Hashable, Sendable {
  /// The task's number, from 1 up in the order tasks are made.
  let number: Int

  package init() {
    self.number = nextTaskNumber.add(1, ordering: .relaxed).newValue
  }

  /// The identifier with `number`, as ``OperationContext`` keeps it.
  init(number: Int) {
    self.number = number
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
    get { self.runEntries.runningTaskIdentifier }
    set { self.runEntries.runningTaskIdentifier = newValue }
  }
}
