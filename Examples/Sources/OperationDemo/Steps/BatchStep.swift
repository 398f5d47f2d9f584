import Operation
import OperationDemoSupport

/// Step 11: stores that each load one user by id go through one `BatchLoader`, which sends their
/// lookups in one `GET /users?ids=` request.
enum BatchStep {
  /// An id the server does not have.
  private static let unknownID = 9999

  /// One round of lookups: a page of cards, each a store of its own that loads one user.
  private struct Round {
    let page: String
    let title: String
    /// The user of each card, by slot.
    let ids: [Int]
  }

  private static let rounds = [
    Round(
      page: "directory",
      title: "100 cards of 100 different users (ids 1–100)",
      ids: Array(1...100)
    ),
    Round(
      page: "thread",
      title: "100 comments by 10 authors: 100 cards of users 1–10",
      ids: (0..<100).map { $0 % 10 + 1 }
    ),
    Round(
      page: "mentions",
      title: "3 users and an id the server does not have",
      ids: [1, 2, Self.unknownID, 3]
    ),
  ]

  static func run(_ env: DemoEnvironment) async {
    env.terminal.step(11, "A batch loader: 100 stores, one request")
    env.terminal.note(
      "BatchLoader<Int, User>(name: \"users\", window: .duration(.milliseconds(10))) { ids in"
    )
    env.terminal.note("  try await api.users(ids: ids)  // GET /users?ids=1,2,3 }")
    env.terminal.note(
      "Each card is a store of User.CardQuery, whose fetch is loader.load(userID, in: context)."
    )
    env.terminal.note(
      "The window is timed on the store's delayer; the demo's delayer ends it once every lookup"
    )
    env.terminal.note("of the round is in, so that a loaded machine sends the same batch.")
    let requested = Locked([[Int]]())
    let loader = BatchLoader<Int, User>(name: "users", window: .duration(.milliseconds(10))) {
      ids in
      requested.withLock { $0.append(ids) }
      // NB: The loader's request belongs to no store's run: the metrics check leaves its route
      // out, and compares the server's count there with this one.
      env.recordRequestOutsideStores(route: RequestRoute.users)
      env.terminal.event("users loader", "GET /users?ids=\(UserIDList.summary(ids))")
      return try await env.api.users(ids: ids)
    }
    for round in Self.rounds {
      env.terminal.note("\(round.title):")
      let before = loader.statistics
      let serverMark = env.server?.userBatches.count ?? 0
      let requestedMark = requested.withLock { $0.count }
      let results = await Self.fetch(round, through: loader, env)
      let after = loader.statistics
      env.terminal.event(
        "users loader",
        "\(after.lookups - before.lookups) lookup(s), \(after.joins - before.joins) joined an id "
          + "already asked for, \(after.batches - before.batches) batch(es) of "
          + "\(after.ids - before.ids) id(s) in all"
      )
      env.checks.record(
        .oneBatch(
          lookups: after.lookups - before.lookups,
          ids: round.ids,
          requests: env.server.map { Array($0.userBatches.dropFirst(serverMark)) }
            ?? requested.withLock { Array($0.dropFirst(requestedMark)) },
          source: env.server == nil ? "the resolver" : "the server"
        )
      )
      Self.check(results, of: round, env)
    }
    // NB: 204 stores that nothing observes any more; `--inspect` would list every one.
    env.client.clearStores(matching: ["user-card"])
    env.terminal.note("The step removes its cards: client.clearStores(matching: [\"user-card\"]).")
  }

  /// Fetches every card of a round at once.
  ///
  /// - Returns: The result of each card, by slot.
  private static func fetch(
    _ round: Round,
    through loader: BatchLoader<Int, User>,
    _ env: DemoEnvironment
  ) async -> [Result<User, any Error>] {
    let window = LookupCountWindow(
      loader: loader,
      lookups: loader.statistics.lookups + round.ids.count
    )
    let stores = round.ids.enumerated().map { slot, id in
      env.client.store(
        for: User.card(on: round.page, slot: slot, userID: id, loader: loader, window: window)
      )
    }
    return await withTaskGroup(of: (Int, Result<User, any Error>).self) { group in
      for (slot, store) in stores.enumerated() {
        group.addTask {
          do {
            return (slot, .success(try await store.fetch()))
          } catch {
            return (slot, .failure(error))
          }
        }
      }
      var results = [Result<User, any Error>?](repeating: nil, count: stores.count)
      for await (slot, result) in group {
        results[slot] = result
      }
      // NB: Every task of the group returned a result.
      return results.map { $0! }
    }
  }

  /// Checks that each card holds its user, and that only the unknown id failed.
  private static func check(
    _ results: [Result<User, any Error>],
    of round: Round,
    _ env: DemoEnvironment
  ) {
    var correct = 0
    var missing = 0
    var otherFailures = [String]()
    for (id, result) in zip(round.ids, results) {
      switch result {
      case .success(let user) where user.id == id && id != Self.unknownID:
        correct += 1
      case .success(let user):
        otherFailures.append("card of \(id) holds \(user.text)")
      case .failure(let error as BatchLoaderMissingValueError) where id == Self.unknownID:
        env.terminal.event("user \(id) · card", "failure: \(error)")
        missing += 1
      case .failure(let error):
        otherFailures.append("user \(id): \(error)")
      }
    }
    env.checks.record(
      .batchResults(
        stores: round.ids.count,
        correct: correct,
        missing: missing,
        expectedMissing: round.ids.count { $0 == Self.unknownID },
        otherFailures: otherFailures
      )
    )
  }
}

/// The window of the batch step's loader: it ends once the loader has counted `lookups` lookups
/// (or after 10 s), rather than after the window's duration, so that every card of a round is in
/// its batch however slowly the machine starts their tasks.
struct LookupCountWindow: OperationDelayer, Sendable {
  let loader: BatchLoader<Int, User>
  let lookups: Int

  func delay(for duration: OperationDuration) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while self.loader.statistics.lookups < self.lookups, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(1))
    }
  }
}
