// The complete example of the "Utilizing Run Specifications" article
// (Sources/OperationCore/Documentation.docc/Articles/UtilizingRunSpecifications.md), copied verbatim: the
// example code first, then the tests that the article shows. Keep both in sync with the article.

import Foundation
import Operation
import OperationTestSupport
import Testing

// MARK: - The session and its run specification

/// Whether someone is logged in, as the app's authentication layer knows it.
final class UserSession: @unchecked Sendable {
  // NB: `lock` guards `isLoggedInValue`, `observers` and `nextObserverID`. Observers are called
  // after it is released.
  private let lock = NSLock()
  private var isLoggedInValue = false
  private var observers = [Int: @Sendable () -> Void]()
  private var nextObserverID = 0

  var isLoggedIn: Bool {
    self.lock.withLock { self.isLoggedInValue }
  }

  func logIn() {
    self.update(isLoggedIn: true)
  }

  func logOut() {
    self.update(isLoggedIn: false)
  }

  func observe(_ onChange: @escaping @Sendable () -> Void) -> OperationSubscription {
    let id = self.lock.withLock {
      defer { self.nextObserverID += 1 }
      self.observers[self.nextObserverID] = onChange
      return self.nextObserverID
    }
    return OperationSubscription { [weak self] in
      guard let self else { return }
      self.lock.withLock { _ = self.observers.removeValue(forKey: id) }
    }
  }

  private func update(isLoggedIn: Bool) {
    let observers = self.lock.withLock {
      self.isLoggedInValue = isLoggedIn
      return Array(self.observers.values)
    }
    for observer in observers {
      observer()
    }
  }
}

struct UserLoggedInRunSpecification: OperationRunSpecification, Sendable {
  let session: UserSession

  func isSatisfied(in context: OperationContext) -> Bool {
    self.session.isLoggedIn
  }

  func subscribe(
    in context: OperationContext,
    onChange: @escaping @Sendable () -> Void
  ) -> OperationSubscription {
    self.session.observe(onChange)
  }
}

extension OperationRunSpecification where Self == UserLoggedInRunSpecification {
  static func userLoggedIn(_ session: UserSession) -> Self {
    UserLoggedInRunSpecification(session: session)
  }
}

// MARK: - The inbox

struct InboxQuery: QueryRequest, Hashable {
  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<[String], any Error>
  ) async throws -> [String] {
    ["Welcome back!"]  // Call your server here.
  }
}

extension InboxQuery {
  static func live(
    session: UserSession,
    network: some NetworkObserver & Sendable
  ) -> some QueryRequest<[String], any Error> {
    InboxQuery()
      .stale(after: .seconds(60))
      .enableAutomaticRunning(onlyWhen: .userLoggedIn(session))
      .rerunOnChange(of: .userLoggedIn(session) && .connected(to: network))
  }
}

@Suite struct `Utilizing run specifications article tests` {
  @Test(.timeLimit(.minutes(1)))
  func `The Inbox Loads On Login And Reloads When Stale And The Network Returns`() async {
    let session = UserSession()
    let network = MockNetworkObserver(initialStatus: .connected)
    let clock = ManualOperationClock()
    let client = OperationClient()
    let store = client.store(for: InboxQuery.live(session: session, network: network).clock(clock))

    let fetches = AsyncStream<Void>.makeStream()
    let subscription = store.subscribe(
      with: QueryEventHandler(onFetchingEnded: { _ in fetches.continuation.yield() })
    )
    var fetchesEnded = fetches.stream.makeAsyncIterator()

    // Nobody is logged in, so the first subscriber does not fetch.
    #expect(store.activeTasks.isEmpty)

    // Logging in satisfies both specifications: the store reruns.
    session.logIn()
    await fetchesEnded.next()
    #expect(store.currentValue == ["Welcome back!"])
    #expect(store.valueUpdateCount == 1)

    // The network returns while the inbox is fresh: no rerun.
    network.send(status: .disconnected)
    network.send(status: .connected)
    #expect(store.activeTasks.isEmpty)

    // A minute later the inbox is stale, and the network returning reruns it.
    clock.advance(by: 61)
    network.send(status: .disconnected)
    network.send(status: .connected)
    await fetchesEnded.next()
    #expect(store.valueUpdateCount == 2)

    // After logging out, the store no longer runs by itself.
    session.logOut()
    #expect(!store.isAutomaticRunningEnabled)
    network.send(status: .disconnected)
    network.send(status: .connected)
    #expect(store.activeTasks.isEmpty)
    subscription.cancel()
  }
}
