import IssueReporting

extension OperationClient {
  /// Creates a client with the default store creator: ``OperationClient/StoreCreator/defaultTesting``
  /// under a test runner, ``OperationClient/StoreCreator/default(retryLimit:backoff:delayer:automaticRunningSpecification:networkObserver:activityObserver:)``
  /// otherwise.
  ///
  /// - Parameters:
  ///   - defaultContext: The context that new stores start from.
  ///   - storeCache: Where the stores are kept.
  public convenience init(
    defaultContext: OperationContext = OperationContext(),
    storeCache: some StoreCache & Sendable = DefaultStoreCache()
  ) {
    self.init(
      defaultContext: defaultContext,
      storeCache: storeCache,
      storeCreator: isTesting ? .defaultTesting : .default()
    )
  }

  /// Creates a client tuned for an app or a server, with the default store creator.
  ///
  /// ```swift
  /// // A service: bounded stores, collection by age, no reruns on reconnection.
  /// let client = OperationClient(profile: .server)
  /// ```
  ///
  /// The profile writes its entries on `defaultContext` (see ``OperationClient/Profile``), gives
  /// the client a ``OperationClient/DefaultStoreCache`` with the profile's limits (on the
  /// context's ``OperationContext/operationClock`` and ``OperationContext/collectionDelayer``),
  /// and, when the
  /// profile does not rerun on reconnection, a default store creator without network or activity
  /// observers. Under a test runner the store creator is
  /// ``OperationClient/StoreCreator/defaultTesting``, as with ``init(defaultContext:storeCache:)``.
  ///
  /// - Parameters:
  ///   - profile: What the client is tuned for.
  ///   - defaultContext: The context that new stores start from.
  public convenience init(
    profile: Profile,
    defaultContext: OperationContext = OperationContext()
  ) {
    var context = defaultContext
    profile.apply(to: &context)
    let storeCreator: DefaultStoreCreator =
      isTesting
      ? .defaultTesting
      : profile.rerunsOnReconnection
        ? .default() : .default(networkObserver: nil, activityObserver: nil)
    self.init(
      defaultContext: context,
      storeCache: DefaultStoreCache(
        limits: profile.storeLimits,
        clock: context.operationClock,
        delayer: context.collectionDelayer
      ),
      storeCreator: storeCreator
    )
  }

  /// The network observer that default store creators rerun operations with on reconnection.
  ///
  /// `NWPathMonitorObserver` on Apple platforms, `LinuxNetworkObserver` (the kernel's view of
  /// the network interfaces) on Linux, `URLConnectionObserver` on other platforms with
  /// `URLSession`, and an observer that stays connected on WASI. Reading it starts the shared
  /// observer.
  public static var defaultNetworkObserver: (any NetworkObserver & Sendable)? {
    #if canImport(Network) || os(Linux) || os(WASI)
      AnySendableNetworkObserver.platformDefault
    #else
      AnySendableNetworkObserver(URLConnectionObserver.startingShared())
    #endif
  }

  /// The application activity observer that default store creators rerun operations with when
  /// the application becomes active.
  ///
  /// This package has no system observer of application activity yet (upstream observes UIKit,
  /// AppKit and WatchKit notifications on Apple platforms, and Linux has no such notion), so this
  /// is `nil` on every platform. An app or server that knows when it is active passes a
  /// `ManualApplicationActivityObserver` to
  /// ``OperationClient/StoreCreator/default(retryLimit:backoff:delayer:automaticRunningSpecification:networkObserver:activityObserver:)``
  /// and feeds it from its own lifecycle.
  public static var defaultApplicationActivityObserver:
    (any ApplicationActivityObserver & Sendable)?
  {
    nil
  }

  /// The store creator that adds the library's default modifiers to every operation.
  ///
  /// Every operation gets `.retry(limit:)`, `.backoff(_:)` and `.delayer(_:)`. Operations other
  /// than mutations then get `.enableAutomaticRunning(onlyWhen:)`, `.rerunOnChange(of:)` (the
  /// network reconnecting and the application becoming active) and `.deduplicated()`; mutations
  /// (operations whose state is a mutation state, such as a `MutationRequest` with or without a
  /// default value) do not, so their stores never run by themselves. The defaults sit outside the
  /// operation's own modifiers, so the operation's own context-setting modifiers win.
  ///
  /// A default that would only pass runs through is left out: `.retry(limit:)` around an
  /// operation with a `retry` of its own (whose innermost `retry` claims the retries), and
  /// `.deduplicated()` as well when that operation's outermost modifier is `.deduplicated()`, as
  /// in `query.retry(limit: 3).deduplicated()`. Each level of modifiers costs every run a few
  /// thousand instructions.
  public struct DefaultStoreCreator: StoreCreator, Sendable {
    let retryLimit: Int
    let backoff: OperationBackoffFunction?
    let delayer: (any OperationDelayer & Sendable)?
    let automaticRunningSpecification: AnySendableRunSpecification
    let rerunSpecification: AnySendableRunSpecification

    /// Creates a detached store for an operation with the default modifiers.
    ///
    /// The operation is wrapped in `retry(limit:)` (and, unless it is a mutation, in
    /// `deduplicated()`), except where the wrapper would only pass runs through (see
    /// ``OperationClient/DefaultStoreCreator``); the backoff, the delayer, the automatic-running
    /// specification and the rerun controller are written into the store's context before the
    /// store sets the operation up, which is what those modifiers would do from outside the
    /// operation.
    ///
    /// - Parameters:
    ///   - operation: The operation.
    ///   - context: The client's default context, which also supplies the backoff function and the
    ///     delayer when the creator has none of its own.
    ///   - initialState: The state to start with.
    /// - Returns: The new store.
    public func store<Operation: StatefulOperationRequest>(
      for operation: sending Operation,
      in context: OperationContext,
      with initialState: Operation.State
    ) -> OperationStore<Operation.State> {
      // NB: The defaults that only write to the context are written here, before the store sets
      // the operation up, rather than applied as modifiers (`backoff(_:)`, `delayer(_:)`,
      // `enableAutomaticRunning(onlyWhen:)`, `rerunOnChange(of:)`). The result is the same: a
      // modifier outside the operation writes its entry before the operation's own modifiers, so
      // those still win. But every level of modifiers is a generic type that the runtime looks
      // up on each creation and each run, and four levels fewer make both cheaper.
      var context = context
      context.operationBackoffFunction = self.backoff ?? context.operationBackoffFunction
      context.operationDelayer = AnySendableDelayer(self.delayer ?? context.operationDelayer)
      // NB: A default that would only pass runs through is left out, since each level of
      // modifiers is run by unspecialized generic code, a few thousand instructions per run.
      // Around an operation with a `retry` of its own, the default `retry` would pass every run
      // through (the innermost claims the retries), so it is not added. And when that operation
      // is also `deduplicated()` outermost, as in `query.retry(limit: 3).deduplicated()`, the
      // default `deduplicated()` would make the operation's own one pass its runs through, and
      // is not added either: the store runs the operation's own modifiers, in the order the
      // defaults would add.
      let chain = operation as? any ModifierChain
      let ownsRetry = chain?.appliesRetry == true
      let ownsDeduplication = ownsRetry && chain?.isDeduplicatedOutermost == true
      // NB: A mutation changes data, so a store never runs one by itself: no automatic running,
      // no reruns, and no deduplication of attempts that may carry different arguments. The check
      // is on the state type, so that wrappers such as `defaultValue(_:)` count too.
      if Operation.State.self is any _MutationStateProtocol.Type {
        if ownsRetry {
          return .detached(
            operation: operation,
            initialState: initialState,
            initialContext: context
          )
        }
        return .detached(
          operation: operation.retry(limit: self.retryLimit),
          initialState: initialState,
          initialContext: context
        )
      }
      context.automaticRunningSpecification = self.automaticRunningSpecification
      context.operationControllers.append(
        _RerunOnChangeController<Operation.State, AnySendableRunSpecification>(
          specification: self.rerunSpecification
        )
      )
      if ownsDeduplication {
        return .detached(operation: operation, initialState: initialState, initialContext: context)
      }
      if ownsRetry {
        return .detached(
          operation: operation.deduplicated(),
          initialState: initialState,
          initialContext: context
        )
      }
      return .detached(
        operation: operation.retry(limit: self.retryLimit).deduplicated(),
        initialState: initialState,
        initialContext: context
      )
    }
  }
}

extension OperationClient.StoreCreator where Self == OperationClient.DefaultStoreCreator {
  /// The default store creator for tests: no retries, no backoff, no delays, automatic running
  /// on (except for mutations, which never run by themselves), and no reruns on network or
  /// activity changes.
  public static var defaultTesting: Self {
    .default(
      retryLimit: 0,
      backoff: .noBackoff,
      delayer: NoDelayer(),
      automaticRunningSpecification: AlwaysRunSpecification(isTrue: true),
      networkObserver: nil,
      activityObserver: nil
    )
  }

  /// The default store creator.
  ///
  /// Operations rerun (when subscribed, stale and allowed to run automatically) when the network
  /// reconnects and the application becomes active: with both observers the rerun specification
  /// is `.connected(to:) && .applicationIsActive(observer:)`, with one it is that one, and with
  /// none operations never rerun on a change.
  ///
  /// - Parameters:
  ///   - retryLimit: How many times a failed run is retried.
  ///   - backoff: The backoff between retries; `nil` uses the context's.
  ///   - delayer: The delayer for backoff; `nil` uses the context's.
  ///   - automaticRunningSpecification: When stores may run by themselves.
  ///   - networkObserver: Reruns operations when the network reconnects; `nil` turns that off.
  ///   - activityObserver: Reruns operations when the application becomes active; `nil` turns
  ///     that off.
  /// - Returns: The creator.
  public static func `default`(
    retryLimit: Int = 3,
    backoff: OperationBackoffFunction? = nil,
    delayer: (any OperationDelayer & Sendable)? = nil,
    automaticRunningSpecification: any OperationRunSpecification & Sendable =
      AlwaysRunSpecification(isTrue: true),
    networkObserver: (any NetworkObserver & Sendable)? = OperationClient.defaultNetworkObserver,
    activityObserver: (any ApplicationActivityObserver & Sendable)? = OperationClient
      .defaultApplicationActivityObserver
  ) -> Self {
    let network = networkObserver.map {
      AnySendableRunSpecification(.connected(to: AnySendableNetworkObserver($0)))
    }
    let activity = activityObserver.map {
      AnySendableRunSpecification(.applicationIsActive(observer: $0))
    }
    let rerunSpecification: AnySendableRunSpecification
    switch (network, activity) {
    case (let network?, let activity?):
      rerunSpecification = AnySendableRunSpecification(network && activity)
    case (let network?, nil):
      rerunSpecification = network
    case (nil, let activity?):
      rerunSpecification = activity
    case (nil, nil):
      rerunSpecification = AnySendableRunSpecification(AlwaysRunSpecification(isTrue: false))
    }
    return OperationClient.DefaultStoreCreator(
      retryLimit: retryLimit,
      backoff: backoff,
      delayer: delayer,
      automaticRunningSpecification: AnySendableRunSpecification(automaticRunningSpecification),
      rerunSpecification: rerunSpecification
    )
  }
}
