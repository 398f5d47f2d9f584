import Foundation
import Operation
import OperationDemoSupport
import OperationPersistence

/// Step 9: mutations made while the server is offline wait in a durable outbox on SQLite, and
/// reach the server once each, in order, when it comes back.
enum OutboxStep {
  /// The number of posts created offline.
  private static let count = 3
  private static let createKey = "POST /posts/add"

  static func run(_ env: DemoEnvironment) async {
    env.terminal.step(9, "The outbox: mutations made offline, delivered when the server returns")
    env.terminal.note(
      "Post.DurableCreateMutation(api:).durable(in: outbox, kind: \"create-post\"), on a"
    )
    env.terminal.note(
      "MutationOutbox(storage: SQLitePersistence(path:), networkObserver: DemoNetwork.observer)."
    )
    env.terminal.note(
      "Each mutate(with:) writes an entry to SQLite, then waits for its delivery; the request"
    )
    env.terminal.note("carries the entry's Idempotency-Key, which the server applies once.")
    env.terminal.note(
      "The mutation holds its PostsAPI: the outbox delivers with a context of its own, not the"
    )
    env.terminal.note("client's, so context.postsAPI would be the default (dummyjson.com) there.")

    let directory = FileManager.default.temporaryDirectory
      .appending(path: "operation-demo-outbox-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let outbox: MutationOutbox
    do {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      outbox = try await MutationOutbox(
        storage: try SQLitePersistence(path: directory.appending(path: "outbox.sqlite").path),
        networkObserver: DemoNetwork.observer,
        retryDelay: .constant(.milliseconds(50)),
        maxAttempts: 10
      )
    } catch {
      env.checks.expect(false, "the outbox's SQLite file could not be opened or claimed: \(error)")
      return
    }
    let mutation = Post.DurableCreateMutation(api: env.api).durable(in: outbox, kind: "create-post")
    let enqueuedKeys = Locked([String]())
    let delivered = Locked(0)
    let subscription = outbox.subscribe { event in
      Self.show(event, env.terminal)
      switch event {
      case .enqueued(let entry): enqueuedKeys.withLock { $0.append(entry.idempotencyKey) }
      case .delivered: delivered.withLock { $0 += 1 }
      // NB: Each delivery attempt sends one request, outside the store's run: the metrics check
      // leaves these out by route, and compares the server's count with this one.
      case .sending: env.recordRequestOutsideStores(route: RequestRoute.createPostIdempotently)
      default: break
      }
    }
    defer { subscription.cancel() }
    do {
      try await outbox.resume()
    } catch {
      env.checks.expect(false, "the outbox could not resume: \(error)")
      return
    }

    let postsBefore = env.server?.catalog.posts.count ?? 0
    let mark = env.server?.answerCount ?? 0
    let trafficMark = env.api.traffic.requestCount
    Self.setOffline(true, env)
    DemoNetwork.observer.send(status: .disconnected)
    env.terminal.event("network", "disconnected")

    let store = env.client.store(for: mutation)
    let arguments = (1...Self.count).map {
      Post.CreateMutation.Arguments(
        userId: 9,
        title: "Written offline #\($0)",
        body: "Created by the demo while the server was offline, through the outbox."
      )
    }
    var runs = [Task<Post, any Error>]()
    for (index, argument) in arguments.enumerated() {
      runs.append(Task { try await store.mutate(with: argument) })
      // NB: One at a time, so that the entries' order (their lane's order) is the titles'.
      guard await Self.waitForOutbox(outbox, within: .seconds(10), until: { $0.count > index })
      else {
        env.checks.expect(false, "the outbox did not write mutation #\(index + 1) within 10 s")
        runs.forEach { $0.cancel() }
        Self.setOffline(false, env)
        DemoNetwork.observer.send(status: .connected)
        return
      }
    }
    try? await Task.sleep(for: env.options.offlineDuration)
    let statistics = try? await outbox.statistics()
    env.terminal.event(
      "outbox",
      "statistics(): \(statistics?.queued ?? 0) queued, \(statistics?.inFlight ?? 0) in flight, "
        + "\(statistics?.failed ?? 0) failed"
    )
    env.checks.record(
      .heldWhileOffline(
        queued: statistics?.queued ?? 0,
        expected: Self.count,
        requestsReachingRoute: env.server?.requestCount(
          where: { $0 == Self.createKey },
          since: mark
        )
          ?? (env.api.traffic.requestCount - trafficMark)
      )
    )

    Self.setOffline(false, env)
    env.terminal.event("network", "connected")
    DemoNetwork.observer.send(status: .connected)
    let results = await Self.results(of: runs, within: .seconds(15))
    let posts = results.compactMap { try? $0.get() }
    for (index, result) in results.enumerated() {
      env.terminal.event(
        "create post · durable",
        "mutate(with:) #\(index + 1) returned "
          + ((try? result.get()).map { describe(post: $0) } ?? "an error: \(result)")
      )
    }
    let returnedTheirPosts =
      posts.count == Self.count && posts.map(\.title) == arguments.map(\.title)
      && Set(posts.map(\.id)).count == Self.count
    env.checks.expect(
      returnedTheirPosts,
      returnedTheirPosts
        ? "each of the \(Self.count) mutate(with:) calls returned its own post once delivered: "
          + "posts " + posts.map { "\($0.id)" }.joined(separator: ", ")
        : "\(posts.count) of the \(Self.count) mutate(with:) calls returned a post, with "
          + "the titles \(posts.map(\.title)) and the ids \(posts.map(\.id))"
    )
    let entriesLeft = (try? await outbox.entries().count) ?? -1
    env.checks.record(
      .outboxEmptied(entriesLeft: entriesLeft, delivered: delivered.withLock { $0 })
    )

    guard let server = env.server else {
      env.terminal.note(
        "With --base-url the server's own ledger cannot be read; the demo stops here."
      )
      return
    }
    let keys = enqueuedKeys.withLock { $0 }
    let applied = server.idempotencyLedger.appliedKeysByPath
    env.checks.record(.appliedExactlyOnce(expectedKeys: keys, appliedKeysByPath: applied))
    env.checks.record(
      .appliedInOrder(expectedKeysByPath: ["/posts/add": keys], appliedKeysByPath: applied)
    )
    let postsAfter = server.catalog.posts.count
    env.checks.expect(
      postsAfter - postsBefore == Self.count,
      "the server holds \(postsAfter - postsBefore) new post(s), \(Self.count) expected"
    )

    // NB: As if the app had sent the first mutation again after a crash, with the same key.
    env.terminal.note(
      "The demo sends the first post again with its key, as a resend after a crash:"
    )
    // NB: A plain API call, outside the client's stores, which the metrics check leaves out.
    env.recordRequestOutsideStores(route: RequestRoute.createPostIdempotently)
    let replayed = try? await env.api.addPost(arguments[0], idempotencyKey: keys.first ?? "")
    env.terminal.event(
      "server",
      "answered the repeated key with " + (replayed.map { describe(post: $0) } ?? "an error")
    )
    env.checks.record(
      .replayAnsweredWithFirst(
        firstId: posts.first?.id,
        replayedId: replayed?.id,
        postsBefore: postsAfter,
        postsAfter: server.catalog.posts.count
      )
    )
  }

  private static func show(_ event: MutationOutbox.Event, _ terminal: Terminal) {
    let entry = event.entry
    let key = "\(entry.idempotencyKey.prefix(8))…"
    let text =
      switch event {
      case .enqueued: "enqueued entry \(entry.id) (key \(key)), written to SQLite"
      case .sending: "sending entry \(entry.id), attempt \(entry.attempts)"
      case .requeued: "entry \(entry.id) queued again: \(entry.lastError ?? "an error")"
      case .delivered: "delivered entry \(entry.id) and removed it"
      case .failed: "entry \(entry.id) failed for good: \(entry.lastError ?? "an error")"
      case .retried: "entry \(entry.id) retried"
      case .discarded: "entry \(entry.id) discarded"
      case .storageFailed(_, let error): "entry \(entry.id) could not be written: \(error)"
      case .claimLost(_, let error): "entry \(entry.id) belongs to another worker: \(error)"
      }
    terminal.event("outbox", text)
  }

  private static func setOffline(_ isOffline: Bool, _ env: DemoEnvironment) {
    if let server = env.server {
      server.isOffline = isOffline
    } else {
      env.api.traffic.isOffline = isOffline
    }
  }

  /// Waits until the outbox's entries satisfy a condition, checking after each change the outbox
  /// reports.
  ///
  /// - Returns: Whether they did within the time.
  private static func waitForOutbox(
    _ outbox: MutationOutbox,
    within timeout: Duration,
    until condition: @escaping @Sendable ([MutationOutbox.Entry]) -> Bool
  ) async -> Bool {
    let (changes, change) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let subscription = outbox.subscribe { _ in change.yield() }
    defer { subscription.cancel() }
    change.yield()
    return await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        for await _ in changes where condition((try? await outbox.entries()) ?? []) {
          return true
        }
        return false
      }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return false
      }
      let first = await group.next() ?? false
      group.cancelAll()
      return first
    }
  }

  /// The runs' results, or fewer when the time runs out first.
  private static func results(
    of runs: [Task<Post, any Error>],
    within timeout: Duration
  ) async -> [Result<Post, any Error>] {
    await withTaskGroup(of: [Result<Post, any Error>]?.self) { group in
      group.addTask {
        var results = [Result<Post, any Error>]()
        for run in runs {
          results.append(await run.result)
        }
        return results
      }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first ?? []
    }
  }
}
