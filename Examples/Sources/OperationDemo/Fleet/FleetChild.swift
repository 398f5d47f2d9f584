import Foundation
import Operation
import OperationDemoSupport
import OperationPersistence
import OperationPostgres
import PostgresNIO

/// A child process of the fleet test: one instance of a service, with its `PostgresClient`, its
/// `PostgresFleet`, a client whose invalidations the fleet relays and, on demand, a mutation
/// outbox; it reads ``FleetCommand``s on its standard input and answers with
/// ``FleetChildLine``s on its standard output.
struct FleetChild {
  let instance: String
  let namespace: PostgresNamespace
  let api: PostsAPI
  let leaseMilliseconds: Int

  /// What the commands share.
  private final class Session: Sendable {
    let fleet: PostgresFleet
    let persistence: PostgresPersistence
    let cache: PersistentQueryCache
    let client = OperationClient()
    /// The prepared stores' `isInvalidated`, which also keeps the stores alive.
    let preparedStores = Locked([@Sendable () -> Bool]())
    let latencies = Locked([Double]())
    let outbox = Locked<(MutationOutbox, OperationSubscription)?>(nil)

    init(fleet: PostgresFleet, persistence: PostgresPersistence, cache: PersistentQueryCache) {
      self.fleet = fleet
      self.persistence = persistence
      self.cache = cache
    }
  }

  /// Runs the child until its standard input ends or it reads `quit`.
  ///
  /// - Throws: The error that kept the storage or the fleet from starting.
  func run() async throws {
    guard let url = FleetPostgres.url else {
      throw FleetTestError("\(FleetPostgres.variable) is not set")
    }
    let postgres = PostgresClient(
      configuration: try FleetPostgres.configuration(url: url, applicationName: self.instance)
    )
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { await postgres.run() }
      let persistence = try await PostgresPersistence(client: postgres, namespace: self.namespace)
      let instance = self.instance
      let fleet = try await PostgresFleet(
        persistence: persistence,
        instance: self.instance,
        leaseDuration: .milliseconds(self.leaseMilliseconds),
        onProblem: { problem in Self.log("\(instance): \(problem)") }
      )
      // NB: Apart from the group, so that the fleet stops before the client it listens on.
      let listener = Task { try await fleet.run() }
      let session = Session(
        fleet: fleet,
        persistence: persistence,
        cache: try await PersistentQueryCache(storage: persistence)
      )
      let relay = fleet.relayInvalidations(of: session.client)
      let events = fleet.subscribe { event in
        guard case .invalidationApplied(_, _, let sentAt, let appliedAt) = event else { return }
        session.latencies.withLock { $0.append(appliedAt.timeIntervalSince(sentAt) * 1_000) }
      }
      await fleet.waitUntilListening()
      Self.emit(.ready(instance: self.instance))

      for await line in Self.standardInputLines() {
        guard let command = FleetCommand(parsing: line) else {
          Self.emit(.failed("not a command: \(line)"))
          continue
        }
        if command == .quit { break }
        // NB: Each command on a task of its own, so that a fetch held by the server does not
        // keep the child from answering the next command.
        group.addTask {
          do {
            try await self.perform(command, in: session)
          } catch {
            Self.emit(.failed("\(command.text): \(error)"))
          }
        }
      }
      relay.cancel()
      events.cancel()
      if let (outbox, wakeUps) = session.outbox.withLock({ $0 }) {
        wakeUps.cancel()
        await outbox.shutdown(gracePeriod: .seconds(1))
      }
      listener.cancel()
      _ = await listener.result
      group.cancelAll()
    }
  }

  private func perform(_ command: FleetCommand, in session: Session) async throws {
    switch command {
    case .fetch(let key, let callers):
      Self.emit(.fetched(await self.fetch(key: key, callers: callers, in: session)))
    case .prepareStores(let count):
      let stores = (0..<count).map { index in
        session.client.store(
          for: FleetItemQuery.coalesced(
            key: FleetTestRounds.invalidationKey(index),
            api: self.api,
            fleet: session.fleet,
            cache: session.cache
          )
        )
      }
      session.preparedStores.withLock { prepared in
        prepared = stores.map { store in { store.isInvalidated } }
      }
      Self.emit(.storesPrepared(count: count))
    case .invalidate(let first, let count):
      for index in first..<(first + count) {
        await session.client.invalidate(
          matching: ["fleet-item", FleetTestRounds.invalidationKey(index)]
        )
      }
      await session.fleet.flushInvalidations()
      Self.emit(.invalidated(count: count))
    case .statistics:
      Self.emit(.statistics(Self.counters(of: session)))
    case .latencies:
      Self.emit(.latencies(milliseconds: session.latencies.withLock { $0 }))
    case .startOutbox:
      try await self.startOutbox(in: session)
      Self.emit(.outboxStarted)
    case .quit:
      break
    }
  }

  private func fetch(key: String, callers: Int, in session: Session) async -> FleetFetchReport {
    let store = session.client.store(
      for: FleetItemQuery.coalesced(
        key: key,
        api: self.api,
        fleet: session.fleet,
        cache: session.cache
      )
    )
    let before = Self.counters(of: session)
    let entered = Locked(0)
    let results = await withTaskGroup(of: Result<FleetItem, any Error>.self) { group in
      for _ in 0..<callers {
        group.addTask {
          entered.withLock { $0 += 1 }
          do {
            return .success(try await store.fetch())
          } catch {
            return .failure(error)
          }
        }
      }
      // NB: Every caller has called `fetch`, and the store's one run is in flight: the fill has
      // begun, and the parent may release the upstream request.
      while entered.withLock({ $0 }) < callers {
        try? await Task.sleep(for: .milliseconds(1))
      }
      for _ in 0..<1_000 {
        if store.isLoading { break }
        try? await Task.sleep(for: .milliseconds(1))
      }
      Self.emit(.started(key: key))
      var results = [Result<FleetItem, any Error>]()
      for await result in group {
        results.append(result)
      }
      return results
    }
    var byFetcher = [String: Int]()
    var errors = Set<String>()
    for result in results {
      switch result {
      case .success(let item): byFetcher[item.fetchedBy, default: 0] += 1
      case .failure(let error): errors.insert(String(describing: error))
      }
    }
    return FleetFetchReport(
      key: key,
      values: byFetcher.values.reduce(0, +),
      errors: results.count - byFetcher.values.reduce(0, +),
      valuesByFetcher: byFetcher,
      errorMessages: errors.sorted(),
      counters: Self.counters(of: session).subtracting(before)
    )
  }

  private func startOutbox(in session: Session) async throws {
    let instance = self.instance
    let staleClaims = Locked(0)
    let outbox = try await MutationOutbox(
      storage: session.persistence,
      retryDelay: .constant(.milliseconds(50)),
      maxAttempts: 1_000,
      worker: self.instance,
      leaseDuration: .milliseconds(self.leaseMilliseconds),
      onStorageFailure: { entry, error in
        // NB: A stale claim is the fencing at work (another worker took the entry over while
        // this one stalled); the first few are shown, the others counted.
        guard error is MutationOutbox.StaleClaimError else {
          Self.log("\(instance): \(entry.idempotencyKey): \(error)")
          return
        }
        let count = staleClaims.withLock { count in
          count += 1
          return count
        }
        if count <= 3 {
          Self.log("\(instance): \(entry.idempotencyKey): \(error)")
        } else if count == 4 {
          Self.log("\(instance): more stale claims, not shown")
        }
      }
    )
    outbox.register(OutboxItemMutation(api: self.api), kind: OutboxItemMutation.kind)
    let wakeUps = session.fleet.wakeOnNotifications(outbox)
    session.outbox.withLock { $0 = (outbox, wakeUps) }
    try await outbox.resume()
  }

  private static func counters(of session: Session) -> FleetCounters {
    let statistics = session.fleet.statistics
    var counters = FleetCounters()
    counters.invalidationsSent = statistics.invalidationsSent
    counters.invalidationsApplied = statistics.invalidationsApplied
    counters.listenerConnections = statistics.listenerConnections
    counters.fillsLed = statistics.fillsLed
    counters.fillsTakenOver = statistics.fillsTakenOver
    counters.fillsFollowed = statistics.fillsFollowed
    counters.fillsServedFresh = statistics.fillsServedFresh
    counters.fillsRefused = statistics.fillsRefused
    counters.invalidatedStores = session.preparedStores.withLock { $0 }.count { $0() }
    return counters
  }

  /// The lines of the standard input, read on a thread of its own; the stream ends with the
  /// input (when the parent dies or closes it).
  private static func standardInputLines() -> AsyncStream<String> {
    let (lines, continuation) = AsyncStream<String>.makeStream()
    Thread.detachNewThread {
      while let line = readLine() {
        continuation.yield(line)
      }
      continuation.finish()
    }
    return lines
  }

  /// Serializes the writes of lines, so that two lines never interleave.
  private static let output = Locked(FileHandle.standardOutput)

  static func emit(_ line: FleetChildLine) {
    // NB: Written unbuffered, not with `print` and `fflush(nil)`: `fflush(nil)` also takes the
    // lock of standard input, which the reading thread holds while `readLine` waits, so each
    // line would wait for the next command.
    Self.output.withLock { $0.write(Data((line.text + "\n").utf8)) }
  }

  private static func log(_ message: String) {
    FileHandle.standardError.write(Data("fleet-child: \(message)\n".utf8))
  }
}

/// A failure of the fleet test or the fleet demo, with its message.
struct FleetTestError: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) {
    self.description = description
  }
}
