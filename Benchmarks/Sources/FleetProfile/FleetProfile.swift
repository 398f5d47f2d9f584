import Foundation
import Operation
import OperationPostgres
import PostgresNIO
import Synchronization

// Wall-clock figures of OperationPostgres on a real server (see Benchmarks/README.md):
//
//   Scripts/with-postgres.sh Benchmarks/.build/release/FleetProfile invalidations 1000
//   Scripts/with-postgres.sh Benchmarks/.build/release/FleetProfile outbox 3000
//   Scripts/with-postgres.sh Benchmarks/.build/release/FleetProfile latency 200
//   Scripts/with-postgres.sh Benchmarks/.build/release/FleetProfile cache 1000

@main
struct FleetProfile {
  static func main() async throws {
    let arguments = CommandLine.arguments.dropFirst()
    guard let scenario = arguments.first else {
      print("usage: FleetProfile invalidations|outbox|latency|cache [count]")
      return
    }
    let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 1_000
    guard let url = ProcessInfo.processInfo.environment["OPERATION_POSTGRES_URL"],
      let components = URLComponents(string: url), let host = components.host
    else {
      print("Set OPERATION_POSTGRES_URL, or run under Scripts/with-postgres.sh.")
      return
    }
    var configuration = PostgresClient.Configuration(
      host: host,
      port: components.port ?? 5432,
      username: components.user ?? "postgres",
      password: components.password,
      database: components.path.isEmpty ? nil : String(components.path.dropFirst()),
      tls: .disable
    )
    configuration.options.maximumConnections = 40
    let client = PostgresClient(configuration: configuration)
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { await client.run() }
      let namespace = try PostgresNamespace("bench_\(UInt32.random(in: 0...UInt32.max))")
      switch scenario {
      case "invalidations": try await invalidations(count, client, namespace)
      case "outbox": try await outboxThroughput(count, client, namespace)
      case "latency": try await outboxLatency(count, client, namespace)
      case "cache": try await cacheCost(count, client, namespace)
      default: print("unknown scenario \(scenario)")
      }
      group.cancelAll()
    }
  }
}

func percentile(_ values: [Double], _ p: Double) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return .nan }
  return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1_000) }

func elapsed(_ body: () async throws -> Void) async rethrows -> Double {
  let start = ContinuousClock.now
  try await body()
  let duration = ContinuousClock.now - start
  return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

// MARK: - Invalidations

struct Item: QueryRequest, Sendable {
  let id: Int
  var path: OperationPath { ["item", self.id] }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.id
  }
}

func invalidations(_ count: Int, _ client: PostgresClient, _ namespace: PostgresNamespace)
  async throws
{
  let persistence = try await PostgresPersistence(client: client, namespace: namespace)
  let a = try await PostgresFleet(persistence: persistence, instance: "a")
  let b = try await PostgresFleet(persistence: persistence, instance: "b")
  let (clientA, clientB) = (OperationClient(), OperationClient())
  let relays = [a.relayInvalidations(of: clientA), b.relayInvalidations(of: clientB)]
  for id in 0..<count {
    _ = try await clientB.store(for: Item(id: id)).fetch()
  }
  let (stream, continuation) = AsyncStream.makeStream(of: Double.self)
  let subscription = b.subscribe { event in
    if case .invalidationApplied(_, _, let sentAt, let appliedAt) = event {
      continuation.yield(appliedAt.timeIntervalSince(sentAt))
    }
  }
  try await withThrowingTaskGroup(of: Void.self) { group in
    group.addTask { try await a.run() }
    group.addTask { try await b.run() }
    await a.waitUntilListening()
    await b.waitUntilListening()
    var latencies = [Double]()
    let total = await elapsed {
      for id in 0..<count {
        await clientA.invalidate(matching: ["item", id])
      }
      for await latency in stream {
        latencies.append(latency)
        if latencies.count == count { break }
      }
    }
    print(
      "invalidations: \(count) in \(ms(total)); propagation p50 \(ms(percentile(latencies, 0.5))), "
        + "p99 \(ms(percentile(latencies, 0.99))), max \(ms(latencies.max() ?? .nan))"
    )
    group.cancelAll()
  }
  subscription.cancel()
  relays.forEach { $0.cancel() }
}

// MARK: - Outbox

struct Delivery: Codable, Sendable {
  let index: Int
}

final class Deliveries: Sendable {
  let times = Mutex([String: Date]())
  let continuation: AsyncStream<Void>.Continuation
  let stream: AsyncStream<Void>

  init() {
    (self.stream, self.continuation) = AsyncStream.makeStream(of: Void.self)
  }

  func record(_ key: String) {
    let isNew = self.times.withLock { $0.updateValue(Date(), forKey: key) == nil }
    if isNew { self.continuation.yield() }
  }

  func wait(for count: Int) async {
    var seen = 0
    for await _ in self.stream {
      seen += 1
      if seen == count { return }
    }
  }
}

struct Deliver: MutationRequest, Sendable {
  let deliveries: Deliveries
  var path: OperationPath { ["deliver"] }

  func mutate(
    isolation: isolated (any Actor)?,
    with delivery: Delivery,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.deliveries.record(context.idempotencyKey ?? "")
    return delivery.index
  }
}

enum WorkerMode: String {
  case notified, polling
}

/// Starts `count` workers; a polling worker reads every lane every 100 ms instead of listening.
func startWorkers(
  _ count: Int,
  mode: WorkerMode,
  persistence: PostgresPersistence,
  deliveries: Deliveries,
  group: inout ThrowingTaskGroup<Void, any Error>
) async throws -> [(MutationOutbox, OperationSubscription)] {
  var outboxes = [(MutationOutbox, OperationSubscription)]()
  for index in 0..<count {
    let fleet = try await PostgresFleet(persistence: persistence, instance: "w\(index)")
    let outbox = try await MutationOutbox(storage: persistence, worker: "w\(index)")
    outbox.register(Deliver(deliveries: deliveries), kind: "deliver")
    try await outbox.resume()
    var wakeUps = OperationSubscription.empty
    switch mode {
    case .notified:
      wakeUps = fleet.wakeOnNotifications(outbox)
      group.addTask { try await fleet.run() }
      await fleet.waitUntilListening()
    case .polling:
      group.addTask {
        while !Task.isCancelled {
          try await Task.sleep(for: .milliseconds(100))
          try await outbox.wake()
        }
      }
    }
    outboxes.append((outbox, wakeUps))
  }
  return outboxes
}

func enqueue(
  _ range: Range<Int>,
  lanes: Int,
  persistence: PostgresPersistence,
  client: PostgresClient
) async throws -> [String: Date] {
  var enqueued = [String: Date]()
  for chunk in stride(from: range.lowerBound, to: range.upperBound, by: 100) {
    let keys = (chunk..<min(chunk + 100, range.upperBound)).map { "key-\($0)" }
    try await client.withTransaction(logger: .init(label: "bench")) { connection in
      for key in keys {
        let index = Int(key.dropFirst(4))!
        try await persistence.enqueueOutboxEntry(
          kind: "deliver",
          arguments: Delivery(index: index),
          lane: "lane-\(index % lanes)",
          idempotencyKey: key,
          on: connection
        )
      }
    }
    let now = Date()
    for key in keys { enqueued[key] = now }
  }
  return enqueued
}

func outboxThroughput(_ count: Int, _ client: PostgresClient, _ namespace: PostgresNamespace)
  async throws
{
  for (workers, mode) in [(1, WorkerMode.notified), (3, .notified), (1, .polling), (3, .polling)] {
    let namespace = try PostgresNamespace("\(namespace.name)_\(mode.rawValue)_\(workers)")
    let persistence = try await PostgresPersistence(client: client, namespace: namespace)
    _ = try await enqueue(0..<count, lanes: 20, persistence: persistence, client: client)
    let deliveries = Deliveries()
    try await withThrowingTaskGroup(of: Void.self) { group in
      let seconds = try await elapsed {
        let outboxes = try await startWorkers(
          workers,
          mode: mode,
          persistence: persistence,
          deliveries: deliveries,
          group: &group
        )
        await deliveries.wait(for: count)
        for (outbox, wakeUps) in outboxes {
          await outbox.close()
          wakeUps.cancel()
        }
      }
      print(
        "outbox \(mode.rawValue), \(workers) worker(s): \(count) entries over 20 lanes in "
          + "\(ms(seconds)), \(Int(Double(count) / seconds)) entries/s"
      )
      group.cancelAll()
    }
  }
}

func outboxLatency(_ count: Int, _ client: PostgresClient, _ namespace: PostgresNamespace)
  async throws
{
  for mode in [WorkerMode.notified, .polling] {
    let namespace = try PostgresNamespace("\(namespace.name)_\(mode.rawValue)")
    let persistence = try await PostgresPersistence(client: client, namespace: namespace)
    let deliveries = Deliveries()
    try await withThrowingTaskGroup(of: Void.self) { group in
      let outboxes = try await startWorkers(
        1,
        mode: mode,
        persistence: persistence,
        deliveries: deliveries,
        group: &group
      )
      var enqueued = [String: Date]()
      // NB: One entry at a time, every 7 ms, as requests of a service write them.
      for index in 0..<count {
        enqueued.merge(
          try await enqueue(
            index..<(index + 1),
            lanes: 20,
            persistence: persistence,
            client: client
          )
        ) { $1 }
        try await Task.sleep(for: .milliseconds(7))
      }
      await deliveries.wait(for: count)
      let times = deliveries.times.withLock { $0 }
      let latencies = enqueued.map { key, date in times[key]!.timeIntervalSince(date) }
      print(
        "outbox \(mode.rawValue): enqueue → delivery p50 \(ms(percentile(latencies, 0.5))), "
          + "p99 \(ms(percentile(latencies, 0.99))) over \(count) entries"
      )
      for (outbox, wakeUps) in outboxes {
        await outbox.close()
        wakeUps.cancel()
      }
      group.cancelAll()
    }
  }
}

// MARK: - Cache

func cacheCost(_ count: Int, _ client: PostgresClient, _ namespace: PostgresNamespace)
  async throws
{
  let persistence = try await PostgresPersistence(client: client, namespace: namespace)
  let value = Data(repeating: 42, count: 256)
  let entries = (0..<count).map { index in
    PersistedQueryEntry(
      key: "key-\(index)",
      version: "v",
      value: value,
      valueUpdatedAt: Date(),
      lastAccessedAt: Date()
    )
  }
  let single = try await elapsed {
    for entry in entries {
      try await persistence.writeCacheEntries(
        [entry],
        accesses: [:],
        bounds: .init(maxEntryCount: nil)
      )
    }
  }
  let batched = try await elapsed {
    try await persistence.writeCacheEntries(
      entries,
      accesses: [:],
      bounds: .init(maxEntryCount: nil)
    )
  }
  let reads = try await elapsed {
    for entry in entries {
      _ = try await persistence.cacheEntry(forKey: entry.key)
    }
  }
  let perValue = { (seconds: Double) in String(format: "%.0f µs", seconds / Double(count) * 1e6) }
  print(
    "cache, 256-byte values: write one per transaction \(perValue(single)), "
      + "write \(count) per transaction \(perValue(batched)) per value, read \(perValue(reads))"
  )
}
