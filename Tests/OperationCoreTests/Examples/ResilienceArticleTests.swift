import Foundation
import Operation
import OperationSynchronization
import OperationTestSupport
import Testing

/// The examples of the article "Resilience".
@Suite(.timeLimit(.minutes(1))) struct `Resilience article tests` {
  struct HTTPStatusError: RetryAfterProviding, Equatable {
    let status: Int
    let retryAfter: OperationDuration?
  }

  /// An invoice service that answers with the statuses of a script, and notes when each request
  /// arrived.
  final class InvoiceService: Sendable {
    private let state: Lock<(statuses: [Int], requests: [Date])>

    init(statuses: [Int]) {
      self.state = Lock((statuses, []))
    }

    var requests: [Date] { self.state.withLock { $0.requests } }

    func invoice(_ id: Int, retryAfter: String = "7", at now: Date) throws -> String {
      let status = self.state.withLock { state in
        state.requests.append(now)
        return state.statuses.count > 1 ? state.statuses.removeFirst() : state.statuses[0]
      }
      guard status == 200 else {
        throw HTTPStatusError(
          status: status,
          retryAfter: [429, 503].contains(status)
            ? OperationDuration(retryAfterHeader: retryAfter, now: now) : nil
        )
      }
      return "Invoice \(id)"
    }
  }

  struct Invoice: QueryRequest {
    let id: Int
    let service: InvoiceService

    var path: OperationPath { ["invoice", self.id] }

    func fetch(
      isolation: isolated (any Actor)?,
      in context: OperationContext,
      with continuation: OperationContinuation<String, any Error>
    ) async throws -> String {
      try self.service.invoice(self.id, at: context.operationClock.now())
    }
  }

  @Test func `A 429 With Retry-After 7 Delays The Second Attempt By 7 Seconds`() async throws {
    let clock = ManualOperationClock()
    let service = InvoiceService(statuses: [429, 200])
    let request = Invoice(id: 7, service: service)
      .retry(limit: 3)
      .backoff(.exponential(.seconds(1)).honoringRetryAfter(atMost: .seconds(60)))
      .delayer(AdvancingDelayer(clock: clock))
      .clock(clock)
    #expect(try await OperationRunner(operation: request).run() == "Invoice 7")
    #expect(service.requests.map { $0.timeIntervalSince1970 } == [0, 7])
  }

  @Test func `A Budget Of 20 Percent Keeps 1,000 Failing Callers Under 1,300 Requests`() async {
    let service = InvoiceService(statuses: [503])
    let budget = RetryBudget(name: "billing", ratio: 0.2, minimumPerSecond: 10)
    // NB: On a manual clock the budget's window does not move while the callers run, however
    // slow the machine.
    let clock = ManualOperationClock()
    await withTaskGroup(of: Void.self) { group in
      for id in 0..<1_000 {
        group.addTask {
          let request = Invoice(id: id, service: service).retry(limit: 3).retryBudget(budget)
            .delayer(.noDelay).clock(clock)
          _ = try? await OperationRunner(operation: request).run()
        }
      }
    }
    #expect(service.requests.count <= 1_300)
  }

  @Test func `One Budget In A Client's Default Context Covers Its Stores`() async {
    var context = OperationContext()
    context.operationRetryBudget = RetryBudget(name: "client", ratio: 0, minimumPerSecond: 0)
    let client = OperationClient(defaultContext: context)
    let service = InvoiceService(statuses: [503])
    let store = client.store(for: Invoice(id: 1, service: service).retry(limit: 3))
    await #expect(throws: HTTPStatusError.self) { try await store.fetch() }
    #expect(service.requests.count == 1)
  }

  @Test func `A Breaker Shows In The Client's Snapshot`() async throws {
    let client = OperationClient()
    let breaker = CircuitBreaker(
      name: "billing",
      threshold: .consecutiveFailures(5),
      coolDown: .seconds(30)
    )
    let store = client.store(
      for: Invoice(id: 7, service: InvoiceService(statuses: [200])).circuitBreaker(breaker)
    )
    #expect(try await store.fetch() == "Invoice 7")
    let snapshot = try #require(client.snapshot().circuitBreakers.first)
    #expect(snapshot.name == "billing")
    #expect(snapshot.state == .closed)
    #expect(snapshot.openings == 0 && snapshot.rejections == 0)
  }

  @Test func `An Open Breaker's Error Makes A Retry Wait For The Cool-Down`() async throws {
    let clock = ManualOperationClock()
    let service = InvoiceService(statuses: [500, 200])
    let breaker = CircuitBreaker(
      name: "billing",
      threshold: .consecutiveFailures(1),
      coolDown: .seconds(30)
    )
    let request = Invoice(id: 7, service: service)
      .circuitBreaker(breaker)
      .retry(limit: 2)
      .backoff(.exponential(.seconds(1)).honoringRetryAfter(atMost: .seconds(60)))
      .delayer(AdvancingDelayer(clock: clock))
      .clock(clock)
    #expect(try await OperationRunner(operation: request).run() == "Invoice 7")
    // NB: The first attempt fails and opens the breaker; the second, a second later, is refused
    // without a request and says that the breaker half-opens in 29 seconds; the third goes
    // through as its probe, 30 seconds after the breaker opened.
    #expect(service.requests.map { $0.timeIntervalSince1970 } == [0, 30])
    #expect(breaker.state(at: clock.now()) == .closed)
  }

  @Test func `A Search Costs 1 And An Order 5 From One Bucket`() async throws {
    let partner = RateLimiter(name: "partner-api", capacity: 10, refill: 10, per: .seconds(1))
    let delayer = RecordingDelayer()
    let clock = ManualOperationClock()
    let service = InvoiceService(statuses: [200])
    let search = Invoice(id: 1, service: service).rateLimited(by: partner).delayer(delayer)
      .clock(clock)
    let order = Invoice(id: 2, service: service).rateLimited(by: partner, cost: 5)
      .delayer(delayer).clock(clock)
    for _ in 0..<5 {
      _ = try await OperationRunner(operation: search).run()
    }
    _ = try await OperationRunner(operation: order).run()
    #expect(delayer.delays.isEmpty)
    _ = try await OperationRunner(operation: order).run()
    #expect(delayer.delays == [.milliseconds(500)])
  }

  @Test func `A Bulkhead Lets Its Slots Run And Fails The Rest Fast`() async throws {
    let reports = Bulkhead(name: "reports", maxConcurrent: 1, whenFull: .failFast)
    let gate = Gate()
    let started = Gate()
    let slow = OperationRunner(
      operation: GatedReport(gate: gate, started: started).bulkhead(reports)
    )
    let running = Task { try await slow.run() }
    await started.wait()
    await #expect(throws: BulkheadFullError(bulkhead: "reports")) { try await slow.run() }
    gate.open()
    #expect(try await running.value == "Report")
  }

  @Test func `Stores Of 100 Users Make One Request, And A Missing User Fails Alone`() async throws {
    let requests = Lock([[Int]]())
    let users = BatchLoader<Int, String>(name: "users", window: .duration(.milliseconds(1))) {
      ids in
      requests.withLock { $0.append(ids) }
      return Dictionary(uniqueKeysWithValues: ids.filter { $0 != 42 }.map { ($0, "User \($0)") })
    }
    let delayer = ManualDelayer()
    let client = OperationClient()
    let fetches = Task {
      await withTaskGroup(of: (Int, String?).self) { group in
        for id in 0..<100 {
          group.addTask {
            let store = client.store(for: UserQuery(id: id, users: users).delayer(delayer))
            return (id, try? await store.fetch())
          }
        }
        return await group.reduce(into: [Int: String?]()) { $0[$1.0] = $1.1 }
      }
    }
    await users.waitForLookups(count: 100)
    await delayer.waitForDelays(count: 1)
    delayer.resumeAll()
    let names = await fetches.value
    #expect(requests.withLock { $0.count } == 1)
    #expect(names[7] == "User 7")
    #expect(names[42] == .some(nil))
    #expect(names.values.compactMap { $0 }.count == 99)
  }

  struct UserQuery: QueryRequest {
    let id: Int
    let users: BatchLoader<Int, String>

    var path: OperationPath { ["user", self.id] }

    func fetch(
      isolation: isolated (any Actor)?,
      in context: OperationContext,
      with continuation: OperationContinuation<String, any Error>
    ) async throws -> String {
      try await self.users.load(self.id, in: context)
    }
  }

  struct GatedReport: QueryRequest {
    let gate: Gate
    let started: Gate

    var path: OperationPath { ["report"] }

    func fetch(
      isolation: isolated (any Actor)?,
      in context: OperationContext,
      with continuation: OperationContinuation<String, any Error>
    ) async throws -> String {
      self.started.open()
      await self.gate.wait()
      return "Report"
    }
  }
}
