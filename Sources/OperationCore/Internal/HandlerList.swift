import OperationSynchronization

/// A thread-safe list of handlers that an observer or specification calls when its value changes.
///
/// Each handler stays in the list until the subscription returned by ``add(_:)`` ends. Callers
/// take a snapshot with ``handlers`` and call the handlers themselves, after releasing any lock of
/// their own, so that no user code runs while a lock is held.
final class HandlerList<Handler: Sendable>: Sendable {
  private let subscribers = Lock(Subscribers<Handler>())

  /// The number of handlers in the list.
  var count: Int {
    self.subscribers.withLock { $0.count }
  }

  /// A snapshot of the handlers, in no particular order.
  var handlers: ContiguousArray<Handler> {
    self.subscribers.withLock { $0.handlers }
  }

  /// Adds a handler and returns the subscription that removes it.
  func add(_ handler: Handler) -> OperationSubscription {
    let id = self.subscribers.withLock { $0.add(handler) }
    return OperationSubscription { [weak self] in
      self?.subscribers.withLock { _ = $0.remove(id: id) }
    }
  }
}
