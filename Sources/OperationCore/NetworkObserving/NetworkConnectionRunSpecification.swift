// MARK: - NetworkConnectionRunSpecification

/// A run specification that holds while a network observer reports a good enough connection.
///
/// The specification is satisfied when the observer's ``NetworkObserver/currentStatus`` is at
/// least the context's ``OperationContext/satisfiedConnectionStatus`` (``NetworkConnectionStatus``
/// orders disconnected < requiresConnection < connected). Lower the threshold for one operation
/// with ``OperationRequest/satisfiedConnectionStatus(_:)`` or
/// ``OperationRequest/completelyOffline(_:)``.
///
/// ```swift
/// let query = PostQuery(id: 1)
///   .enableAutomaticRunning(onlyWhen: .connected(to: .platformDefault))
/// ```
///
/// Subscribing subscribes to the observer; every status the observer reports is a possible
/// change, so observers that call back at once (such as ``MockNetworkObserver``) also call
/// `onChange` at once.
public struct NetworkConnectionRunSpecification<
  Observer: NetworkObserver
>: OperationRunSpecification {
  /// The observer whose status is compared.
  public let observer: Observer

  /// Creates a specification that follows `observer`.
  ///
  /// - Parameter observer: The source of the network status.
  public init(observer: Observer) {
    self.observer = observer
  }

  /// Whether the observer's status is at least the context's satisfied status.
  ///
  /// - Parameter context: The context of the operation.
  /// - Returns: `observer.currentStatus >= context.satisfiedConnectionStatus`.
  public func isSatisfied(in context: OperationContext) -> Bool {
    self.observer.currentStatus >= context.satisfiedConnectionStatus
  }

  /// Calls `onChange` whenever the observer reports a status.
  ///
  /// - Parameters:
  ///   - context: The context of the operation.
  ///   - onChange: Called after each status the observer reports.
  /// - Returns: The observer's subscription.
  public func subscribe(
    in context: OperationContext,
    onChange: @escaping @Sendable () -> Void
  ) -> OperationSubscription {
    self.observer.subscribe { _ in onChange() }
  }
}

extension NetworkConnectionRunSpecification: Sendable where Observer: Sendable {}

extension OperationRunSpecification {
  /// A run specification that holds while `observer` reports a good enough connection.
  ///
  /// - Parameter observer: The source of the network status.
  /// - Returns: A ``NetworkConnectionRunSpecification``.
  public static func connected<Observer>(
    to observer: Observer
  ) -> Self where Self == NetworkConnectionRunSpecification<Observer> {
    NetworkConnectionRunSpecification(observer: observer)
  }
}
