import Foundation
import Operation
import OperationDemoSupport
import OperationPersistence

/// The crash test's child process: an app with a mutation outbox on SQLite, which the parent
/// kills with `SIGKILL` and starts again.
///
/// It prints ``OutboxChildLine``s: `found` for each entry the outbox held at launch, `enqueued`
/// after each enqueue returned (its transaction committed), `ready` once every mutation is
/// enqueued, then `delivered` once the outbox is empty (exit status 0), or `failed` for each
/// entry that failed for good (exit status 1).
struct OutboxCrashChild {
  let databasePath: String
  let api: PostsAPI
  let plan: OutboxCrashPlan
  /// Whether to enqueue the plan's mutations that are not in the outbox yet. A restart after
  /// delivery began does not: the delivered ones are gone from the outbox, and the outbox owns
  /// the others.
  let enqueues: Bool
  let pace: Duration

  /// Runs the child.
  ///
  /// - Returns: Whether the outbox ended empty.
  /// - Throws: The storage's error.
  func run() async throws -> Bool {
    let reachability = await ServerReachability(api: self.api, interval: .milliseconds(20))
    reachability.start()
    defer { reachability.stop() }
    let outbox = try await MutationOutbox(
      storage: try SQLitePersistence(path: self.databasePath),
      networkObserver: reachability.observer,
      retryDelay: .constant(.milliseconds(20)),
      maxAttempts: 1_000,
      classify: Self.classify
    )
    outbox.register(OutboxItemMutation(api: self.api), kind: OutboxItemMutation.kind)

    let found = try await outbox.entries()
    for entry in found {
      Self.emit(.found(entry.idempotencyKey))
    }
    let (changes, change) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let subscription = outbox.subscribe { _ in change.yield() }
    defer { subscription.cancel() }
    try await outbox.resume()

    if self.enqueues {
      let existing = Set(found.map(\.idempotencyKey))
      for mutation in self.plan.mutations where !existing.contains(mutation.key) {
        try await outbox.enqueue(
          kind: OutboxItemMutation.kind,
          arguments: mutation,
          lane: mutation.path,
          idempotencyKey: mutation.key
        )
        Self.emit(.enqueued(mutation.key))
        try await Task.sleep(for: self.pace)
      }
      Self.emit(.ready(entries: try await outbox.entries().count))
    }

    // NB: Checks the storage after each change that the outbox reports, and once first.
    var left = try await outbox.entries()
    var iterator = changes.makeAsyncIterator()
    while left.contains(where: { $0.status != .failed }), await iterator.next() != nil {
      left = try await outbox.entries()
    }
    guard left.isEmpty else {
      for entry in left {
        let error = (entry.lastError ?? "no error").replacing("\n", with: " ")
        Self.emit(.failed(key: entry.idempotencyKey, error: error))
      }
      return false
    }
    Self.emit(.delivered)
    return true
  }

  /// A 4xx answer (other than 404, 408 and 429) is the request's fault: sending it again would
  /// fail again. Everything else (503 while offline, injected 500s, lost connections) may pass.
  private static let classify: @Sendable (any Error) -> MutationOutbox.FailureKind = { error in
    guard case PostsAPIError.status(let code) = error,
      (400..<500).contains(code) && ![404, 408, 429].contains(code)
    else { return .retryable }
    return .permanent
  }

  private static func emit(_ line: OutboxChildLine) {
    print(line.text)
    // NB: Every stream: the parent reads each line as soon as it is printed.
    fflush(nil)
  }
}
