import OperationCore
import OperationSynchronization

/// Records events from many tasks, in the order they happened.
package final class EventLog: Sendable {
  private let storage = Lock([String]())

  package init() {}

  package func append(_ event: String) {
    self.storage.withLock { $0.append(event) }
  }

  package var events: [String] {
    self.storage.withLock { $0 }
  }
}
