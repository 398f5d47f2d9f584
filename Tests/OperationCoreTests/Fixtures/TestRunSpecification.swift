import OperationCore
import OperationSynchronization

/// A run specification whose value a test sets, counting its live subscriptions.
final class TestRunSpecification: OperationRunSpecification, Sendable {
  private let state: Lock<Bool>
  private let handlers = Lock([Int: @Sendable () -> Void]())
  private let nextID = Lock(0)

  init(_ value: Bool = false) {
    self.state = Lock(value)
  }

  var subscriberCount: Int {
    self.handlers.withLock { $0.count }
  }

  /// Sets the value and notifies every subscriber.
  func send(_ value: Bool) {
    self.state.withLock { $0 = value }
    let handlers = self.handlers.withLock { Array($0.values) }
    for handler in handlers {
      handler()
    }
  }

  func isSatisfied(in context: OperationContext) -> Bool {
    self.state.withLock { $0 }
  }

  func subscribe(
    in context: OperationContext,
    onChange: @escaping @Sendable () -> Void
  ) -> OperationSubscription {
    let id = self.nextID.withLock { id in
      defer { id += 1 }
      return id
    }
    self.handlers.withLock { $0[id] = onChange }
    return OperationSubscription { [weak self] in
      self?.handlers.withLock { _ = $0.removeValue(forKey: id) }
    }
  }
}
