extension OperationClient {
  /// What a client is tuned for: an app's screens, or a server's requests.
  ///
  /// An app keeps few stores that its screens observe, and reruns them when the network comes
  /// back. A server sees a new key with nearly every request, observes almost none of its stores
  /// and must keep its memory bounded, so its profile
  /// - bounds the client's stores (``StoreLimits``: 10,000 stores by default), evicting the least
  ///   recently used unobserved stores first;
  /// - evicts unobserved stores unused for a while (5 minutes by default), whatever the platform,
  ///   with one timer for the whole cache (``StoreLimits/maxIdleAge``) instead of the timer per
  ///   store of ``OperationContext/collectionDelay``, which it turns off;
  /// - never reruns stores on reconnection or activation;
  /// - keeps deduplication and retries as they are.
  ///
  /// ```swift
  /// let client = OperationClient(profile: .server)
  /// let bounded = OperationClient(profile: .server(maxStoreCount: 50_000, maxByteCount: 256 << 20))
  /// ```
  ///
  /// `OperationClient(profile:defaultContext:)` comes with the `Operation` module, which has the
  /// default store creator.
  public struct Profile: Sendable {
    /// The limits of the client's store cache; `nil` for none.
    public var storeLimits: StoreLimits?

    /// Whether stores rerun when the network reconnects or the application becomes active.
    public var rerunsOnReconnection: Bool

    /// Creates a profile.
    ///
    /// - Parameters:
    ///   - storeLimits: The limits of the client's store cache; `nil` for none.
    ///   - rerunsOnReconnection: Whether stores rerun on reconnection and activation.
    public init(storeLimits: StoreLimits? = nil, rerunsOnReconnection: Bool = true) {
      self.storeLimits = storeLimits
      self.rerunsOnReconnection = rerunsOnReconnection
    }

    /// An app's defaults: no limit on stores, the context's own collection delay (5 minutes on
    /// Apple platforms, none elsewhere), reruns on reconnection.
    public static var app: Self {
      Self()
    }

    /// A server's defaults: at most 10,000 stores, unobserved stores evicted after 5 minutes
    /// unused, no reruns on reconnection.
    public static var server: Self {
      .server()
    }

    /// A server's profile with its own bounds.
    ///
    /// - Parameters:
    ///   - maxStoreCount: The most stores the client keeps.
    ///   - maxByteCount: The most bytes of values the client keeps, as `estimatedByteCount`
    ///     measures them; `nil` for no limit.
    ///   - estimatedByteCount: Estimates the size of a value.
    ///   - maxIdleAge: How long an unobserved store may go unused.
    /// - Returns: The profile.
    public static func server(
      maxStoreCount: Int = 10_000,
      maxByteCount: Int? = nil,
      estimatedByteCount: @escaping @Sendable (any Sendable) -> Int = StoreLimits
        .defaultEstimatedByteCount(of:),
      maxIdleAge: OperationDuration = .seconds(300)
    ) -> Self {
      Self(
        storeLimits: StoreLimits(
          maxStoreCount: maxStoreCount,
          maxByteCount: maxByteCount,
          maxIdleAge: maxIdleAge,
          estimatedByteCount: estimatedByteCount
        ),
        rerunsOnReconnection: false
      )
    }

    /// Writes the profile's entries on a client's default context: with an idle age, the cache
    /// collects the stores, so the per-store collection delay is turned off.
    ///
    /// - Parameter context: The context.
    public func apply(to context: inout OperationContext) {
      if self.storeLimits?.maxIdleAge != nil {
        context.collectionDelay = nil
      }
    }
  }
}
