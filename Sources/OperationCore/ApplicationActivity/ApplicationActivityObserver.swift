/// A source of whether the application is active (in the foreground) or not.
///
/// ``ApplicationIsActiveRunSpecification`` follows one. On Linux there is no system-wide
/// application lifecycle, so feed a ``ManualApplicationActivityObserver`` from your own: a GTK
/// window's focus, a server's drain and resume, a CLI's interactive mode.
///
/// Conformers must call the handler at once with the current state when subscribing, then on
/// changes.
public protocol ApplicationActivityObserver {
  /// Calls `handler` at once with whether the application is active, then on changes.
  ///
  /// - Parameter handler: Receives `true` when the application is active, `false` otherwise.
  /// - Returns: A subscription that stops the calls.
  func subscribe(_ handler: @escaping @Sendable (Bool) -> Void) -> OperationSubscription
}

// MARK: - AnyApplicationActivityObserver

/// A type-erased application activity observer.
///
/// Use ``AnySendableApplicationActivityObserver`` where the observer must be sendable.
public struct AnyApplicationActivityObserver: ApplicationActivityObserver {
  /// The erased observer.
  public let base: any ApplicationActivityObserver

  /// Erases an observer.
  ///
  /// - Parameter base: The observer to erase.
  public init(_ base: any ApplicationActivityObserver) {
    self.base = base
  }

  /// Subscribes to the erased observer.
  ///
  /// - Parameter handler: Receives each activity state.
  /// - Returns: The erased observer's subscription.
  public func subscribe(_ handler: @escaping @Sendable (Bool) -> Void) -> OperationSubscription {
    self.base.subscribe(handler)
  }
}

// MARK: - AnySendableApplicationActivityObserver

/// A type-erased, sendable application activity observer.
public struct AnySendableApplicationActivityObserver: ApplicationActivityObserver, Sendable {
  /// The erased observer.
  public let base: any ApplicationActivityObserver & Sendable

  /// Erases an observer.
  ///
  /// - Parameter base: The observer to erase.
  public init(_ base: any ApplicationActivityObserver & Sendable) {
    self.base = base
  }

  /// Subscribes to the erased observer.
  ///
  /// - Parameter handler: Receives each activity state.
  /// - Returns: The erased observer's subscription.
  public func subscribe(_ handler: @escaping @Sendable (Bool) -> Void) -> OperationSubscription {
    self.base.subscribe(handler)
  }
}
