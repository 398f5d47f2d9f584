#if canImport(Darwin)
  // NB: Dispatch because `DispatchSource.makeMemoryPressureSource` is how Apple platforms report
  // memory pressure, on a `DispatchQueue`; this source exists on Apple platforms only.
  public import Dispatch

  /// A memory pressure source backed by `DispatchSource.makeMemoryPressureSource`.
  ///
  /// It is the default source of ``OperationClient/DefaultStoreCache`` on Apple platforms.
  public struct DispatchMemoryPressureSource: MemoryPressureSource, Sendable {
    private let queue: DispatchQueue?

    /// Creates a source that delivers notifications on `queue`.
    ///
    /// - Parameter queue: The queue that runs the handler; a global queue when `nil`.
    public init(queue: DispatchQueue? = nil) {
      self.queue = queue
    }

    /// Starts a dispatch memory pressure source that forwards every event to `handler`.
    ///
    /// - Parameter handler: Receives each severity.
    /// - Returns: A subscription that cancels the dispatch source.
    public func subscribe(
      with handler: @escaping @Sendable (MemoryPressure) -> Void
    ) -> OperationSubscription {
      // NB: Dispatch sources are thread-safe objects (reading `data`, `cancel()`), but the SDK
      // does not mark the `DispatchSourceMemoryPressure` existential `Sendable`.
      nonisolated(unsafe) let source = DispatchSource.makeMemoryPressureSource(
        eventMask: .all,
        queue: self.queue
      )
      source.setEventHandler { handler(MemoryPressure(from: source.data)) }
      source.activate()
      return OperationSubscription { source.cancel() }
    }
  }

  extension MemoryPressureSource where Self == DispatchMemoryPressureSource {
    /// A dispatch memory pressure source that delivers on a global queue.
    public static var dispatch: Self {
      DispatchMemoryPressureSource()
    }

    /// A dispatch memory pressure source that delivers on `queue`.
    ///
    /// - Parameter queue: The queue that runs the handler.
    /// - Returns: The source.
    public static func dispatch(queue: DispatchQueue?) -> Self {
      DispatchMemoryPressureSource(queue: queue)
    }
  }

  extension MemoryPressure {
    /// Converts a dispatch memory pressure event; the bits are the same.
    ///
    /// - Parameter event: The dispatch event.
    public init(from event: DispatchSource.MemoryPressureEvent) {
      self.init(rawValue: Int(truncatingIfNeeded: event.rawValue))
    }
  }
#endif
