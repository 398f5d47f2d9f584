extension OperationStore {
  /// The store's states as an `AsyncSequence`: the current state first, then every change.
  ///
  /// Each iterator subscribes to the store (which may start an automatic run) and unsubscribes
  /// when it is released or its task is cancelled. States are buffered, so none is dropped.
  ///
  /// ```swift
  /// for await element in store.states {
  ///   print(element.state.status)
  /// }
  /// ```
  public var states: AsyncStates {
    AsyncStates(store: self)
  }

  /// An `AsyncSequence` of a store's states.
  public struct AsyncStates: AsyncSequence, Sendable {
    /// A state and the context it changed in.
    public struct Element: Sendable {
      /// The state.
      public let state: State

      /// The context of the change.
      public let context: OperationContext
    }

    let store: OperationStore<State>

    /// Subscribes to the store and returns an iterator over its states.
    ///
    /// - Returns: An iterator whose first element is the current state.
    public func makeAsyncIterator() -> AsyncIterator {
      let (stream, continuation) = AsyncStream<Element>.makeStream()
      let subscription = self.store.subscribe(
        with: OperationEventHandler { state, context in
          continuation.yield(Element(state: state, context: context))
        }
      )
      continuation.onTermination = { _ in subscription.cancel() }
      return AsyncIterator(base: stream.makeAsyncIterator(), subscription: subscription)
    }

    /// The iterator of ``OperationStore/AsyncStates``.
    public struct AsyncIterator: AsyncIteratorProtocol {
      var base: AsyncStream<Element>.AsyncIterator
      let subscription: OperationSubscription

      /// The next state, waiting for a change when there is none yet.
      ///
      /// - Returns: The next state, or `nil` once the iterating task is cancelled.
      public mutating func next() async -> Element? {
        await self.base.next(isolation: #isolation)
      }

      /// The next state, waiting on an actor for a change when there is none yet.
      ///
      /// - Parameter actor: The actor to wait on.
      /// - Returns: The next state, or `nil` once the iterating task is cancelled.
      public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
        await self.base.next(isolation: actor)
      }
    }
  }
}
