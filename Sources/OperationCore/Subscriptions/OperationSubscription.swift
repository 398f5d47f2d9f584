/// A handle that ends a subscription when cancelled or released.
///
/// Stores, clients, run specifications and observers return one from `subscribe`. The
/// subscription ends on the first ``cancel()``, or when the last copy of the handle is released,
/// whichever comes first; cancelling again does nothing.
///
/// ```swift
/// var subscriptions = Set<OperationSubscription>()
/// store.subscribe(with: handler).store(in: &subscriptions)
/// ```
public struct OperationSubscription: Sendable {
  // NB: `nil` for ``empty``, which has nothing to cancel; stores make one for every controller
  // that has nothing to watch, and a box costs two allocations.
  private let box: Box?

  /// Creates a subscription that calls `onCancel` once, when it ends.
  ///
  /// - Parameter onCancel: The work that ends the subscription.
  public init(onCancel: @escaping @Sendable () -> Void) {
    self.box = Box(onCancel: onCancel)
  }

  /// A subscription that does nothing when cancelled; all empty subscriptions are equal.
  public static var empty: Self {
    Self(box: nil)
  }

  private init(box: Box?) {
    self.box = box
  }

  /// Ends the subscription; later calls do nothing.
  public func cancel() {
    self.box?.cancel()
  }

  /// A subscription that cancels all of `subscriptions` at once.
  ///
  /// - Parameter subscriptions: The subscriptions to combine.
  /// - Returns: The combined subscription.
  public static func combined(
    _ subscriptions: some Collection<OperationSubscription>
  ) -> Self {
    let subscriptions = Array(subscriptions)
    return Self {
      for subscription in subscriptions {
        subscription.cancel()
      }
    }
  }

  /// A subscription that cancels all of `subscriptions` at once.
  ///
  /// - Parameter subscriptions: The subscriptions to combine.
  /// - Returns: The combined subscription.
  public static func combined(_ subscriptions: OperationSubscription...) -> Self {
    Self.combined(subscriptions)
  }

  /// Keeps this subscription alive in a set.
  ///
  /// - Parameter set: The set that holds the subscription.
  public func store(in set: inout Set<OperationSubscription>) {
    set.insert(self)
  }

  /// Keeps this subscription alive in a collection.
  ///
  /// - Parameter collection: The collection that holds the subscription.
  public func store(in collection: inout some RangeReplaceableCollection<OperationSubscription>) {
    collection.append(self)
  }
}

extension OperationSubscription: Hashable {
  /// Whether two handles belong to the same subscription.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.box === rhs.box
  }

  /// Hashes the identity of the subscription.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(self.box.map(ObjectIdentifier.init))
  }
}

extension OperationSubscription {
  private final class Box: Sendable {
    private let onCancel: Lock<(@Sendable () -> Void)?>

    init(onCancel: @escaping @Sendable () -> Void) {
      self.onCancel = Lock(onCancel)
    }

    func cancel() {
      let onCancel = self.onCancel.withLock { onCancel in
        defer { onCancel = nil }
        return onCancel
      }
      onCancel?()
    }

    deinit {
      self.cancel()
    }
  }
}
