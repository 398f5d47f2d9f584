/// A source of memory pressure notifications.
///
/// ``OperationClient/DefaultStoreCache`` subscribes to a source and, on every notification,
/// evicts the stores that nobody observes and whose ``OperationContext/evictableMemoryPressure``
/// contains the reported severity.
///
/// The package ships `LinuxMemoryPressureSource` (Linux), `DispatchMemoryPressureSource`
/// (Apple platforms) and, for tests, `ManualMemoryPressureSource` in OperationTestSupport. A
/// source of your own only needs to call the handler:
///
/// ```swift
/// struct AppMemoryWarnings: MemoryPressureSource {
///   let center: NotificationCenter
///
///   func subscribe(
///     with handler: @escaping @Sendable (MemoryPressure) -> Void
///   ) -> OperationSubscription {
///     let token = center.addObserver(forName: .lowMemory, object: nil, queue: nil) { _ in
///       handler(.warning)
///     }
///     return OperationSubscription { center.removeObserver(token) }
///   }
/// }
/// ```
public protocol MemoryPressureSource {
  /// Calls `handler` with the severity of every memory pressure notification, until the returned
  /// subscription ends.
  ///
  /// The handler may be called on any thread.
  ///
  /// - Parameter handler: Receives each severity.
  /// - Returns: A subscription that stops the notifications when cancelled or released.
  func subscribe(
    with handler: @escaping @Sendable (MemoryPressure) -> Void
  ) -> OperationSubscription
}
