import OperationSynchronization

// MARK: - ApplicationIsActiveRunSpecification

/// A run specification that holds while the application is active.
///
/// The specification subscribes to its observer as soon as it is created and assumes the
/// application is active until the observer says otherwise. It is satisfied when the context's
/// ``OperationContext/isApplicationActiveRerunningEnabled`` is `true` and the application is
/// active; ``OperationRequest/disableApplicationActiveRerunning(_:)`` turns it off for one
/// operation.
///
/// ```swift
/// let activity = ManualApplicationActivityObserver()
/// let query = PostQuery(id: 1)
///   .enableAutomaticRunning(onlyWhen: .applicationIsActive(observer: activity))
/// ```
///
/// Observation contract:
/// - Subscribing does not call `onChange` at once; read ``isSatisfied(in:)``.
/// - `onChange` is called only when the observer reports a state different from the stored one,
///   on the thread the observer reports on.
/// - Releasing the specification ends its subscription to the observer.
public final class ApplicationIsActiveRunSpecification: OperationRunSpecification, Sendable {
  private struct State {
    var isActive = true
    var observerSubscription = OperationSubscription.empty
  }

  private let state = Lock(State())
  private let handlers = HandlerList<@Sendable () -> Void>()

  /// Creates a specification and subscribes to `observer`.
  ///
  /// - Parameter observer: The source of the application's activity state.
  public init(observer: some ApplicationActivityObserver) {
    let subscription = observer.subscribe { [weak self] isActive in
      self?.receive(isActive)
    }
    self.state.withLock { $0.observerSubscription = subscription }
  }

  /// Whether the application is active and application-active rerunning is enabled.
  ///
  /// - Parameter context: The context of the operation.
  /// - Returns: `context.isApplicationActiveRerunningEnabled && isActive`.
  public func isSatisfied(in context: OperationContext) -> Bool {
    context.isApplicationActiveRerunningEnabled && self.state.withLock { $0.isActive }
  }

  /// Calls `onChange` whenever the application's activity state changes.
  ///
  /// - Parameters:
  ///   - context: The context of the operation, which is ignored.
  ///   - onChange: Called after each change.
  /// - Returns: A subscription that stops the calls.
  public func subscribe(
    in context: OperationContext,
    onChange: @escaping @Sendable () -> Void
  ) -> OperationSubscription {
    self.handlers.add(onChange)
  }

  private func receive(_ isActive: Bool) {
    let changed = self.state.withLock { state in
      guard state.isActive != isActive else { return false }
      state.isActive = isActive
      return true
    }
    guard changed else { return }
    for handler in self.handlers.handlers {
      handler()
    }
  }
}

extension OperationRunSpecification where Self == ApplicationIsActiveRunSpecification {
  /// A run specification that holds while the application is active.
  ///
  /// - Parameter observer: The source of the application's activity state.
  /// - Returns: An ``ApplicationIsActiveRunSpecification``.
  public static func applicationIsActive(observer: some ApplicationActivityObserver) -> Self {
    ApplicationIsActiveRunSpecification(observer: observer)
  }
}
