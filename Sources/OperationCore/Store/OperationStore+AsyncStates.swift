import OperationSynchronization

extension OperationStore {
  /// The store's states as an `AsyncSequence`: the state at subscription first, then the changes,
  /// of which a consumer that falls behind gets only the newest.
  ///
  /// Each iterator subscribes to the store (which may start an automatic run) and unsubscribes
  /// when it is released or its task is cancelled.
  ///
  /// Buffering contract:
  /// - The first element is the state the store had when the iterator subscribed. It is always
  ///   delivered, however many changes happen before the first call to `next()`.
  /// - After it, the iterator holds at most ``AsyncStates/bufferedChangeLimit`` changes (8), the
  ///   newest. A consumer that is slower than the store skips the older states that were replaced
  ///   while it was busy and always reaches the latest one; it never falls further behind than
  ///   that many states, and memory stays bounded. The few states it keeps let a consumer that
  ///   was briefly busy still see a run's `loading` state before its value.
  /// - A consumer that keeps up (that is waiting in `next()` when the store changes) receives
  ///   every change, in order.
  /// - Elements are never repeated; the sequence ends (`next()` returns `nil`) when the iterating
  ///   task is cancelled.
  ///
  /// ```swift
  /// for await element in store.states {
  ///   print(element.state.status)
  /// }
  /// ```
  public var states: AsyncStates {
    AsyncStates(store: self)
  }

  /// An `AsyncSequence` of a store's states; see ``OperationStore/states`` for what it buffers.
  public struct AsyncStates: AsyncSequence, Sendable {
    /// A state and the context it changed in.
    public struct Element: Sendable {
      /// The state.
      public let state: State

      /// The context of the change.
      public let context: OperationContext
    }

    let store: OperationStore<State>

    /// The most changes an iterator keeps for a consumer that has not asked for them yet; older
    /// ones are dropped.
    public static var bufferedChangeLimit: Int { 8 }

    /// Subscribes to the store and returns an iterator over its states.
    ///
    /// - Returns: An iterator whose first element is the state at subscription.
    public func makeAsyncIterator() -> AsyncIterator {
      // NB: The store sends the current state to a new subscriber first. That state goes to a
      // stream of its own, so that it is never replaced; every later state goes to a stream that
      // keeps only the newest few.
      let (initial, initialContinuation) = AsyncStream<Element>.makeStream(
        bufferingPolicy: .bufferingNewest(1)
      )
      let (changes, changesContinuation) = AsyncStream<Element>.makeStream(
        bufferingPolicy: .bufferingNewest(Self.bufferedChangeLimit)
      )
      let isFirst = Lock(true)
      let subscription = self.store.subscribe(
        with: OperationEventHandler { state, context in
          let element = Element(state: state, context: context)
          let wasFirst = isFirst.withLock { isFirst in
            defer { isFirst = false }
            return isFirst
          }
          if wasFirst {
            initialContinuation.yield(element)
            initialContinuation.finish()
          } else {
            changesContinuation.yield(element)
          }
        }
      )
      changesContinuation.onTermination = { _ in subscription.cancel() }
      return AsyncIterator(
        initial: initial.makeAsyncIterator(),
        changes: changes.makeAsyncIterator(),
        subscription: subscription
      )
    }

    /// The iterator of ``OperationStore/AsyncStates``.
    public struct AsyncIterator: AsyncIteratorProtocol {
      var initial: AsyncStream<Element>.AsyncIterator?
      var changes: AsyncStream<Element>.AsyncIterator
      let subscription: OperationSubscription

      /// The next state, waiting for a change when there is none yet.
      ///
      /// - Returns: The next state, or `nil` once the iterating task is cancelled.
      public mutating func next() async -> Element? {
        await self.next(isolation: #isolation)
      }

      /// The next state, waiting on an actor for a change when there is none yet.
      ///
      /// - Parameter actor: The actor to wait on.
      /// - Returns: The next state, or `nil` once the iterating task is cancelled.
      public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
        if var initial = self.initial.take() {
          // NB: `nil` here means the task was cancelled before the first state; the changes
          // stream then ends too.
          if let element = await initial.next(isolation: actor) {
            return element
          }
        }
        return await self.changes.next(isolation: actor)
      }
    }
  }
}
