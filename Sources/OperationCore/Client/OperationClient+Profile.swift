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
  /// - serves a stale value at once while it refreshes it, and refreshes values shortly before
  ///   they go stale (``EarlyRefresh``, through ``OperationStore/fetchIfNeeded(using:)``);
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

    /// How serving calls treat stale and nearly stale values (``OperationContext/earlyRefresh``);
    /// `nil` leaves the context's own setting.
    public var earlyRefresh: EarlyRefresh?

    /// Creates a profile.
    ///
    /// - Parameters:
    ///   - storeLimits: The limits of the client's store cache; `nil` for none.
    ///   - rerunsOnReconnection: Whether stores rerun on reconnection and activation.
    ///   - earlyRefresh: How serving calls treat stale and nearly stale values; `nil` leaves the
    ///     context's own setting.
    public init(
      storeLimits: StoreLimits? = nil,
      rerunsOnReconnection: Bool = true,
      earlyRefresh: EarlyRefresh? = nil
    ) {
      self.storeLimits = storeLimits
      self.rerunsOnReconnection = rerunsOnReconnection
      self.earlyRefresh = earlyRefresh
    }

    /// An app's defaults: no limit on stores, the context's own collection delay (5 minutes on
    /// Apple platforms, none elsewhere), reruns on reconnection, no early refresh.
    public static var app: Self {
      Self()
    }

    /// A server's defaults: at most 10,000 stores, unobserved stores evicted after 5 minutes
    /// unused, no reruns on reconnection, stale values served for 30 seconds while they refresh
    /// and early refresh with `β = 1` (``EarlyRefresh/init(beta:servingWindow:random:)``).
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
    ///   - earlyRefresh: How serving calls treat stale and nearly stale values; `nil` to wait
    ///     for a run whenever a value is stale.
    /// - Returns: The profile.
    public static func server(
      maxStoreCount: Int = 10_000,
      maxByteCount: Int? = nil,
      estimatedByteCount: @escaping @Sendable (any Sendable) -> Int = StoreLimits
        .defaultEstimatedByteCount(of:),
      maxIdleAge: OperationDuration = .seconds(300),
      earlyRefresh: EarlyRefresh? = EarlyRefresh()
    ) -> Self {
      Self(
        storeLimits: StoreLimits(
          maxStoreCount: maxStoreCount,
          maxByteCount: maxByteCount,
          maxIdleAge: maxIdleAge,
          estimatedByteCount: estimatedByteCount
        ),
        rerunsOnReconnection: false,
        earlyRefresh: earlyRefresh
      )
    }

    /// Writes the profile's entries on a client's default context: with an idle age, the cache
    /// collects the stores, so the per-store collection delay is turned off; early refresh
    /// settings, when the profile has them, replace the context's.
    ///
    /// - Parameter context: The context.
    public func apply(to context: inout OperationContext) {
      if self.storeLimits?.maxIdleAge != nil {
        context.collectionDelay = nil
      }
      if let earlyRefresh = self.earlyRefresh {
        context.earlyRefresh = earlyRefresh
      }
    }
  }
}
