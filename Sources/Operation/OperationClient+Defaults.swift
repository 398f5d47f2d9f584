import IssueReporting

extension OperationClient {
  /// Creates a client with the default store creator: ``OperationClient/StoreCreator/defaultTesting``
  /// under a test runner, ``OperationClient/StoreCreator/default(retryLimit:backoff:delayer:automaticRunningSpecification:)``
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

  /// The store creator that adds the library's default modifiers to every operation.
  ///
  /// Every operation gets `.retry(limit:)`, `.backoff(_:)` and `.delayer(_:)`, then
  /// `.enableAutomaticRunning(onlyWhen:)` and `.deduplicated()`. The defaults sit outside the
  /// operation's own modifiers, so the operation's own context-setting modifiers win.
  public struct DefaultStoreCreator: StoreCreator, Sendable {
    let retryLimit: Int
    let backoff: OperationBackoffFunction?
    let delayer: (any OperationDelayer & Sendable)?
    let automaticRunningSpecification: AnySendableRunSpecification

    /// Creates a detached store for an operation wrapped in the default modifiers.
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
      let backoff = self.backoff ?? context.operationBackoffFunction
      let delayer = self.delayer ?? context.operationDelayer
      return .detached(
        operation: operation.retry(limit: self.retryLimit)
          .backoff(backoff)
          .delayer(AnySendableDelayer(delayer))
          .enableAutomaticRunning(onlyWhen: self.automaticRunningSpecification)
          .deduplicated(),
        initialState: initialState,
        initialContext: context
      )
    }
  }
}

extension OperationClient.StoreCreator where Self == OperationClient.DefaultStoreCreator {
  /// The defaults for tests: no retries, no backoff, no delays, automatic running on.
  public static var defaultTesting: Self {
    .default(
      retryLimit: 0,
      backoff: .noBackoff,
      delayer: NoDelayer(),
      automaticRunningSpecification: AlwaysRunSpecification(isTrue: true)
    )
  }

  /// The library's defaults.
  ///
  /// - Parameters:
  ///   - retryLimit: The number of retries; 3 by default.
  ///   - backoff: The backoff between retries; the context's (exponential from 1 s) by default.
  ///   - delayer: The delayer retries wait with; the context's by default.
  ///   - automaticRunningSpecification: When stores may run by themselves; always by default.
  /// - Returns: The store creator.
  public static func `default`(
    retryLimit: Int = 3,
    backoff: OperationBackoffFunction? = nil,
    delayer: (any OperationDelayer & Sendable)? = nil,
    automaticRunningSpecification: any OperationRunSpecification & Sendable =
      AlwaysRunSpecification(isTrue: true)
  ) -> Self {
    OperationClient.DefaultStoreCreator(
      retryLimit: retryLimit,
      backoff: backoff,
      delayer: delayer,
      automaticRunningSpecification: AnySendableRunSpecification(automaticRunningSpecification)
    )
  }
}
