import OperationCore
import Testing

@Suite struct `OperationSubscription tests` {
  @Test func `Cancel Runs The Cancellation Once`() {
    let counter = CallCounter()
    let subscription = OperationSubscription { counter.increment() }
    subscription.cancel()
    subscription.cancel()
    #expect(counter.value == 1)
  }

  @Test func `Cancelling A Copy Cancels The Subscription`() {
    let counter = CallCounter()
    let subscription = OperationSubscription { counter.increment() }
    let copy = subscription
    copy.cancel()
    subscription.cancel()
    #expect(counter.value == 1)
  }

  @Test func `Released Subscription Cancels`() {
    let counter = CallCounter()
    do {
      _ = OperationSubscription { counter.increment() }
    }
    #expect(counter.value == 1)
  }

  @Test func `Subscription Kept In A Collection Stays Alive`() {
    let counter = CallCounter()
    var subscriptions = Set<OperationSubscription>()
    var array = [OperationSubscription]()
    OperationSubscription { counter.increment() }.store(in: &subscriptions)
    OperationSubscription { counter.increment() }.store(in: &array)
    #expect(counter.value == 0)
    subscriptions.removeAll()
    array.removeAll()
    #expect(counter.value == 2)
  }

  @Test func `Combined Cancel Cancels Every Subscription Once`() {
    let first = CallCounter()
    let second = CallCounter()
    let a = OperationSubscription { first.increment() }
    let b = OperationSubscription { second.increment() }
    let combined = OperationSubscription.combined(a, b)
    combined.cancel()
    combined.cancel()
    b.cancel()
    #expect(first.value == 1)
    #expect(second.value == 1)
  }

  @Test func `Copies Are Equal And Hash Alike`() {
    let subscription = OperationSubscription {}
    let copy = subscription
    let other = OperationSubscription {}
    #expect(subscription == copy)
    #expect(subscription.hashValue == copy.hashValue)
    #expect(subscription != other)
    #expect(Set([subscription, copy, other]).count == 2)
  }

  @Test func `Empty Subscriptions Do Nothing And Are Equal`() {
    let empty = OperationSubscription.empty
    empty.cancel()
    empty.cancel()
    #expect(empty == .empty)
    #expect(empty.hashValue == OperationSubscription.empty.hashValue)
    #expect(empty != OperationSubscription {})
  }

  @Test func `Combinations Of The Same Parts Are Equal And Hash Alike`() {
    let first = OperationSubscription {}
    let second = OperationSubscription {}
    let combined = OperationSubscription.combined(first, second)
    let again = OperationSubscription.combined([first, second])
    #expect(combined == again)
    #expect(combined.hashValue == again.hashValue)
    #expect(Set([combined, again]).count == 1)
  }

  @Test func `Empty Combinations Are Equal And Hash Alike`() {
    let combined = OperationSubscription.combined([])
    #expect(combined == .combined([]))
    #expect(combined.hashValue == OperationSubscription.combined([]).hashValue)
  }

  @Test func `Combinations Differ By Their Parts And Their Order`() {
    let first = OperationSubscription {}
    let second = OperationSubscription {}
    let third = OperationSubscription {}
    let combined = OperationSubscription.combined(first, second)
    #expect(combined != .combined(second, first))
    #expect(combined != .combined(first, third))
    #expect(combined != .combined(first))
    #expect(combined != first)
    #expect(OperationSubscription.combined(first) != first)
    #expect(Set([combined, .combined(second, first), .combined(first, third)]).count == 3)
  }

  @Test func `Equal Combinations Cancel Each Part Once`() {
    let counter = CallCounter()
    let part = OperationSubscription { counter.increment() }
    let combined = OperationSubscription.combined(part)
    let again = OperationSubscription.combined(part)
    #expect(combined == again)
    combined.cancel()
    again.cancel()
    #expect(counter.value == 1)
  }

  @Test func `Released Combination Cancels Its Parts`() {
    let first = CallCounter()
    let second = CallCounter()
    do {
      _ = OperationSubscription.combined(
        OperationSubscription { first.increment() },
        OperationSubscription { second.increment() }
      )
    }
    #expect(first.value == 1)
    #expect(second.value == 1)
  }
}
