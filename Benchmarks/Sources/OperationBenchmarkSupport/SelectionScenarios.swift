import Operation

// MARK: - (11): a selection that does not change

/// One store whose updates reach 1,000 handlers, either through a selection whose value the
/// updates do not change, or as 1,000 plain subscribers of the store.
///
/// Both forms count the calls of their handlers and receive the same updates: the store's value
/// is set to a new number each time. The selection selects `\.isLoading`, which stays `false`,
/// so after the initial delivery its subscribers are never called.
public final class SelectionFanOut: Sendable {
  /// How the handlers observe the store.
  public enum Form: String, Sendable, CaseIterable {
    /// 1,000 subscribers of `store.select(\.isLoading)`.
    case selection
    /// 1,000 subscribers of the store itself (`store.subscribe { state in … }`).
    case plain
  }

  /// How the handlers observe the store.
  public let form: Form
  /// The number of handlers.
  public let subscriberCount: Int
  private let store: OperationStore<QueryState<Int, any Error>>
  private let subscriptions: [OperationSubscription]
  private let calls: RunCounter

  /// Creates the store and subscribes `subscribers` handlers; each receives its initial value
  /// at once.
  ///
  /// - Parameters:
  ///   - form: How the handlers observe the store.
  ///   - subscribers: The number of handlers.
  public init(_ form: Form, subscribers: Int = 1_000) {
    let store = OperationStore.detached(query: TrivialQuery(), initialValue: nil)
    let calls = RunCounter()
    switch form {
    case .selection:
      let selection = store.select(\.isLoading)
      self.subscriptions = (0..<subscribers).map { _ in
        selection.subscribe { isLoading in
          keep(isLoading)
          calls.increment()
        }
      }
    case .plain:
      self.subscriptions = (0..<subscribers).map { _ in
        store.subscribe { state in
          keep(state)
          calls.increment()
        }
      }
    }
    self.form = form
    self.store = store
    self.calls = calls
    self.subscriberCount = subscribers
  }

  /// The number of handler calls so far, the initial deliveries included.
  public var handlerCalls: Int {
    self.calls.count
  }

  /// Sets the store's value `count` times, to a new number each time.
  public func run(count: Int) {
    for value in 0..<count {
      self.store.currentValue = value
    }
  }
}
