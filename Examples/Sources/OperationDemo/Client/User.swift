import Foundation
import Operation

/// A user of the posts API (`GET /users/{id}`, `GET /users?ids=`), with a few of dummyjson.com's
/// fields: the resilience steps' entity.
struct User: Hashable, Identifiable, Sendable, Codable {
  let id: Int
  var firstName: String
  var lastName: String

  /// Such as `Ada Lovelace (id 1)`.
  var text: String {
    "\(self.firstName) \(self.lastName) (id \(self.id))"
  }
}

extension User {
  /// One user through a circuit breaker, for the circuit-breaker step.
  ///
  /// Every attempt of the retry goes through the breaker, and the handler inside it sees only
  /// the attempts that the breaker let through: those are the requests. A retry would not help
  /// against an open breaker (it refuses again until its cool-down has passed), so the retry
  /// leaves `CircuitBreakerOpenError` alone.
  ///
  /// - Parameters:
  ///   - id: The user's id.
  ///   - breaker: The breaker, shared by every request to the users API.
  ///   - clock: The clock the breaker reads; the step moves it past the cool-down.
  ///   - instrument: Hears the breaker's transitions.
  static func query(
    for id: Int,
    through breaker: CircuitBreaker,
    clock: some OperationClock & Sendable,
    instrument: some OperationInstrument
  ) -> some QueryRequest<Self, any Error> {
    Query(id: id)
      .handleEvents(with: .reportingAttempts(label: "user \(id)"))
      .circuitBreaker(breaker)
      .retry(limit: 2) { _, error in !(error is CircuitBreakerOpenError) }
      .clock(clock)
      .instrumented(with: instrument)
  }

  /// `GET /users/{id}`.
  struct Query: QueryRequest, Hashable {
    let id: Int

    func fetch(
      isolation: isolated (any Actor)?,
      in context: OperationContext,
      with continuation: OperationContinuation<User, any Error>
    ) async throws -> User {
      try await context.postsAPI.user(id: self.id)
    }
  }

  /// A user shown on a card of a page (a directory, a comment thread), loaded through a batch
  /// loader that the page's cards share: each card is a store of its own, and the loader turns
  /// their lookups into one `GET /users?ids=` request.
  ///
  /// The query holds the loader, so it is not `Hashable`: its path names the card.
  struct CardQuery: QueryRequest {
    let page: String
    let slot: Int
    let userID: Int
    let loader: BatchLoader<Int, User>

    var path: OperationPath {
      ["user-card", self.page, self.slot]
    }

    func fetch(
      isolation: isolated (any Actor)?,
      in context: OperationContext,
      with continuation: OperationContinuation<User, any Error>
    ) async throws -> User {
      try await self.loader.load(self.userID, in: context)
    }
  }

  /// The card of a user, whose loader's window is timed on `window`.
  ///
  /// An id that the server does not have is not retried: its lookup would fail the same way.
  static func card(
    on page: String,
    slot: Int,
    userID: Int,
    loader: BatchLoader<Int, User>,
    window: some OperationDelayer & Sendable
  ) -> some QueryRequest<Self, any Error> {
    CardQuery(page: page, slot: slot, userID: userID, loader: loader)
      .retry(limit: 3) { _, error in !(error is BatchLoaderMissingValueError) }
      .delayer(window)
  }
}
