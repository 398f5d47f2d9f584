import OperationSynchronization

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
///
/// Equality: a subscription made with ``init(onCancel:)`` equals its copies only. A
/// `combined(_:)` subscription equals any other combination
/// of equal parts in the same order, and ``empty`` equals every empty subscription.
public struct OperationSubscription: Sendable {
  private let storage: Storage

  private enum Storage: Sendable {
    // NB: ``empty`` has nothing to cancel and no box; stores make one for every controller that
    // has nothing to watch, and a box costs two allocations.
    case empty
    case single(Box)
    // NB: The parts define equality and hashing; the box cancels them, once, when the combined
    // subscription is cancelled or its last copy is released.
    case combined([OperationSubscription], Box)
  }

  /// Creates a subscription that calls `onCancel` once, when it ends.
  ///
  /// - Parameter onCancel: The work that ends the subscription.
  public init(onCancel: @escaping @Sendable () -> Void) {
    self.storage = .single(Box(onCancel: onCancel))
  }

  /// A subscription that does nothing when cancelled; all empty subscriptions are equal.
  public static var empty: Self {
    Self(storage: .empty)
  }

  private init(storage: Storage) {
    self.storage = storage
  }

  /// Ends the subscription; later calls do nothing.
  public func cancel() {
    switch self.storage {
    case .empty: break
    case .single(let box), .combined(_, let box): box.cancel()
    }
  }

  /// A subscription that cancels all of `subscriptions` at once.
  ///
  /// Cancelling the combined subscription, or releasing its last copy, cancels each part once.
  /// Combined subscriptions compare and hash by their parts, in the order given:
  ///
  /// ```swift
  /// OperationSubscription.combined(first, second) == .combined(first, second)  // true
  /// OperationSubscription.combined(first, second) == .combined(second, first)  // false
  /// OperationSubscription.combined([]) == .combined([])  // true
  /// ```
  ///
  /// - Parameter subscriptions: The subscriptions to combine.
  /// - Returns: The combined subscription.
  public static func combined(
    _ subscriptions: some Collection<OperationSubscription>
  ) -> Self {
    let subscriptions = Array(subscriptions)
    let box = Box {
      for subscription in subscriptions {
        subscription.cancel()
      }
    }
    return Self(storage: .combined(subscriptions, box))
  }

  /// A subscription that cancels all of `subscriptions` at once; see
  /// `combined(_:)`.
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
  /// Whether two handles are the same subscription, or combine equal parts in the same order.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    switch (lhs.storage, rhs.storage) {
    case (.empty, .empty): true
    case (.single(let lhs), .single(let rhs)): lhs === rhs
    case (.combined(let lhs, _), .combined(let rhs, _)): lhs == rhs
    default: false
    }
  }

  /// Hashes the identity of a subscription, or the parts of a combined one.
  public func hash(into hasher: inout Hasher) {
    switch self.storage {
    case .empty:
      hasher.combine(0)
    case .single(let box):
      hasher.combine(1)
      hasher.combine(ObjectIdentifier(box))
    case .combined(let parts, _):
      hasher.combine(2)
      hasher.combine(parts)
    }
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
