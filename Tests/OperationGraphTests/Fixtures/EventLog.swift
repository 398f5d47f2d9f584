import OperationCore
import OperationSynchronization

/// Records events from many tasks, in the order they happened.
final class EventLog: Sendable {
  private let storage = Lock([String]())

  func append(_ event: String) {
    self.storage.withLock { $0.append(event) }
  }

  var events: [String] {
    self.storage.withLock { $0 }
  }
}
