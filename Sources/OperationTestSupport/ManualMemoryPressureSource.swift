public import OperationCore
import OperationSynchronization

/// A memory pressure source that notifies only when a test tells it to.
///
/// Give it to `OperationClient.DefaultStoreCache` to test which stores are evicted under
/// pressure, without waiting for the system to run out of memory:
///
/// ```swift
/// let source = ManualMemoryPressureSource()
/// let client = OperationClient(storeCache: DefaultStoreCache(memoryPressureSource: source))
/// let store = client.store(for: PostQuery(id: 1))
///
/// source.send(.warning)
/// #expect(client.store(with: store.path) == nil)
/// ```
///
/// ``send(_:)`` calls every handler synchronously, in subscription order, before it returns.
public final class ManualMemoryPressureSource: MemoryPressureSource, Sendable {
  private struct State {
    var handlers = [(id: Int, handler: @Sendable (MemoryPressure) -> Void)]()
    var nextID = 0
  }

  private let state = Lock(State())

  /// Creates a source without subscribers.
  public init() {}

  /// The number of active subscriptions.
  public var subscriberCount: Int {
    self.state.withLock { $0.handlers.count }
  }

  /// Notifies every subscriber of `pressure`, synchronously.
  ///
  /// - Parameter pressure: The severity to report.
  public func send(_ pressure: MemoryPressure) {
    let handlers = self.state.withLock { $0.handlers.map(\.handler) }
    for handler in handlers {
      handler(pressure)
    }
  }

  /// Registers `handler` until the subscription ends.
  ///
  /// - Parameter handler: Receives each severity passed to ``send(_:)``.
  /// - Returns: A subscription that removes the handler when cancelled or released.
  public func subscribe(
    with handler: @escaping @Sendable (MemoryPressure) -> Void
  ) -> OperationSubscription {
    let id = self.state.withLock { state in
      defer { state.nextID += 1 }
      state.handlers.append((state.nextID, handler))
      return state.nextID
    }
    return OperationSubscription { [weak self] in
      self?.state.withLock { state in state.handlers.removeAll { $0.id == id } }
    }
  }
}
