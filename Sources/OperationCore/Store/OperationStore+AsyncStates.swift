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

      public mutating func next() async -> Element? {
        await self.base.next(isolation: #isolation)
      }

      public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
        await self.base.next(isolation: actor)
      }
    }
  }
}
