import Foundation
import OperationSynchronization
import OperationTestSupport
import Testing

@testable import OperationCore

@Suite(.timeLimit(.minutes(1))) struct `OperationStore+Serving tests` {
  private typealias Store = OperationStore<QueryState<Int, any Error>>

  /// The freshness lifetime of every store here.
  private static let lifetime = 60.0

  private let clock = ManualOperationClock()
  private let steps = QuerySteps()
  private let joins = JoinCounter()

  /// A store whose value goes stale 60 seconds after each update, whose fetches wait for
  /// ``steps``, and which has `settings` as its early refresh settings.
  private func makeStore(settings: EarlyRefresh? = EarlyRefresh()) -> Store {
    OperationStore.detached(
      query: SteppedQuery(path: ["served"], steps: self.steps)
        .stale(after: .seconds(Self.lifetime))
        .refreshEarly(settings)
        .instrumented(with: self.joins)
        .clock(self.clock),
      initialValue: nil
    )
  }

  /// Serves the first value: fetch 0 takes `duration` seconds on the clock and returns `value`.
  private func serveFirstValue(
    _ value: Int,
    of store: Store,
    taking duration: TimeInterval = 0
  ) async throws {
    let first = Task { try await store.fetchIfNeeded() }
    await self.steps.waitUntilStarted(0)
    self.clock.advance(by: duration)
    self.steps.release(0, returning: value)
    #expect(try await first.value == value)
  }

  /// Fetches with `count` concurrent callers and returns what each was served.
  private static func serve(_ store: Store, callers count: Int) async throws -> [Int] {
    try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<count {
        group.addTask { try await store.fetchIfNeeded() }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
  }

  /// Returns once the store has no run in flight.
  private static func waitUntilIdle(_ store: Store) async {
    _ = await store.states.first { !$0.state.isLoading }
  }

  // MARK: - Without early refresh

  @Test func `A Fresh Value Is Served Without A Run`() async throws {
    let store = self.makeStore(settings: nil)
    try await self.serveFirstValue(1, of: store)
    self.clock.advance(by: Self.lifetime)

    let served = try await Self.serve(store, callers: 100)
    #expect(served == Array(repeating: 1, count: 100))
    #expect(store.runsInFlightCount == 0)
    #expect(self.steps.startedCount == 1)
  }

  @Test func `Without Settings A Stale Value Is Served After A Run`() async throws {
    let store = self.makeStore(settings: nil)
    try await self.serveFirstValue(1, of: store)
    self.clock.advance(by: Self.lifetime + 1)

    let caller = Task { try await store.fetchIfNeeded() }
    await self.steps.waitUntilStarted(1)
    self.steps.release(1, returning: 2)
    #expect(try await caller.value == 2)
    #expect(self.steps.startedCount == 2)
  }

  @Test func `A Caller Waits For A Fetch In Flight Instead Of Starting A Run`() async throws {
    let store = self.makeStore()
    let fetch = store.fetchTask()
    let fetching = Task { try await fetch.runIfNeeded() }
    await self.steps.waitUntilStarted(0)

    let caller = Task { try await store.fetchIfNeeded() }
    await self.joins.wait(forCount: 1)
    #expect(store.runsInFlightCount == 1)
    self.steps.release(0, returning: 7)
    #expect(try await caller.value == 7)
    #expect(try await fetching.value == 7)
    #expect(self.steps.startedCount == 1)
  }

  // MARK: - Serving window

  @Test func `A Thousand Callers At Expiry Get The Old Value While One Refresh Runs`() async throws
  {
    let store = self.makeStore(settings: EarlyRefresh(servingWindow: .seconds(30)))
    try await self.serveFirstValue(1, of: store)
    self.clock.advance(by: Self.lifetime + 1)

    // NB: Every caller returns while the refresh is held at its step, so none waited for it.
    let served = try await Self.serve(store, callers: 1_000)
    #expect(served == Array(repeating: 1, count: 1_000))
    #expect(store.runsInFlightCount == 1)

    await self.steps.waitUntilStarted(1)
    self.steps.release(1, returning: 2)
    await Self.waitUntilIdle(store)
    #expect(store.currentValue == 2)
    #expect(self.steps.startedCount == 2)
    #expect(try await store.fetchIfNeeded() == 2)
  }

  @Test func `Past The Window A Thousand Callers Wait For One Run`() async throws {
    let store = self.makeStore(settings: EarlyRefresh(servingWindow: .seconds(30)))
    try await self.serveFirstValue(1, of: store)
    self.clock.advance(by: Self.lifetime + 31)

    let callers = Task { try await Self.serve(store, callers: 1_000) }
    await self.steps.waitUntilStarted(1)
    await self.joins.wait(forCount: 999)
    #expect(store.runsInFlightCount == 1)
    self.steps.release(1, returning: 2)
    #expect(try await callers.value == Array(repeating: 2, count: 1_000))
    #expect(self.steps.startedCount == 2)
  }

  @Test func `A Store Without A Value Runs Once For Concurrent Callers`() async throws {
    let store = self.makeStore()
    let callers = Task { try await Self.serve(store, callers: 100) }
    await self.steps.waitUntilStarted(0)
    await self.joins.wait(forCount: 99)
    self.steps.release(0, returning: 3)
    #expect(try await callers.value == Array(repeating: 3, count: 100))
    #expect(self.steps.startedCount == 1)
  }

  @Test func `An Invalidated Store Waits For A Run Even Within The Window`() async throws {
    let store = self.makeStore()
    try await self.serveFirstValue(1, of: store)
    self.clock.advance(by: Self.lifetime + 1)
    store.invalidate()

    let caller = Task { try await store.fetchIfNeeded() }
    await self.steps.waitUntilStarted(1)
    self.steps.release(1, returning: 2)
    #expect(try await caller.value == 2)
  }

  @Test func `A Failed Background Refresh Is Recorded And Not Thrown`() async throws {
    let store = self.makeStore()
    try await self.serveFirstValue(1, of: store)
    self.clock.advance(by: Self.lifetime + 1)

    #expect(try await store.fetchIfNeeded() == 1)
    await self.steps.waitUntilStarted(1)
    #expect(try await store.fetchIfNeeded() == 1)
    self.steps.release(1, with: .failure(TestError()))
    await Self.waitUntilIdle(store)
    #expect(store.error as? TestError == TestError())
    #expect(store.currentValue == 1)
    #expect(try await store.fetchIfNeeded() == 1)
  }

  @Test func `A Cancelled Caller Stops Waiting And The Run Goes On`() async throws {
    let store = self.makeStore()
    let caller = Task { try await store.fetchIfNeeded() }
    await self.steps.waitUntilStarted(0)
    caller.cancel()
    await #expect(throws: CancellationError.self) { try await caller.value }

    self.steps.release(0, returning: 4)
    await Self.waitUntilIdle(store)
    #expect(store.currentValue == 4)
    #expect(store.error == nil)
  }

  // MARK: - Early refresh

  @Test(arguments: [(-0.001, false), (0.001, true)])
  func `A Request Inside The Early Refresh Boundary Starts One Refresh`(
    offset: TimeInterval,
    refreshes: Bool
  ) async throws {
    let beta = 1.5
    let random = 0.25
    let lastRunDuration = 2.0
    let store = self.makeStore(
      settings: EarlyRefresh(beta: beta, random: .constant(random))
    )
    try await self.serveFirstValue(1, of: store, taking: lastRunDuration)
    let updatedAt = try #require(store.valueLastUpdatedAt)
    // NB: A request refreshes when t − δ·β·ln(r) ≥ T, so the boundary is T + δ·β·ln(r).
    let deadline = updatedAt.addingTimeInterval(Self.lifetime)
    let boundary = deadline.addingTimeInterval(lastRunDuration * beta * log(random))

    self.clock.date = boundary.addingTimeInterval(offset)
    #expect(try await store.fetchIfNeeded() == 1)
    #expect(try await store.fetchIfNeeded() == 1)
    #expect(store.runsInFlightCount == (refreshes ? 1 : 0))
    if refreshes {
      await self.steps.waitUntilStarted(1)
      self.steps.release(1, returning: 2)
      await Self.waitUntilIdle(store)
      #expect(store.currentValue == 2)
    }
    #expect(self.steps.startedCount == (refreshes ? 2 : 1))
  }

  @Test func `A Zero Beta Refreshes Only At The Deadline`() async throws {
    let store = self.makeStore(settings: EarlyRefresh(beta: 0, random: .constant(0.01)))
    try await self.serveFirstValue(1, of: store, taking: 10)
    self.clock.advance(by: Self.lifetime - 0.001)
    #expect(try await store.fetchIfNeeded() == 1)
    #expect(store.runsInFlightCount == 0)
  }

  @Test func `Stale Predicates Without A Duration Get No Early Refresh`() async throws {
    let isStale = Lock(false)
    let store = OperationStore.detached(
      query: SteppedQuery(path: ["predicate"], steps: self.steps)
        .staleWhen { _, _ in isStale.withLock { $0 } }
        .refreshEarly(beta: 100, random: .constant(0.01))
        .clock(self.clock),
      initialValue: nil
    )
    try await self.serveFirstValue(1, of: store, taking: 10)
    self.clock.advance(by: 1_000)
    #expect(try await store.fetchIfNeeded() == 1)
    #expect(store.runsInFlightCount == 0)

    isStale.withLock { $0 = true }
    let caller = Task { try await store.fetchIfNeeded() }
    await self.steps.waitUntilStarted(1)
    self.steps.release(1, returning: 2)
    #expect(try await caller.value == 2)
  }

  @Test func `A Store With A Default Value Serves It While Fresh`() async throws {
    let store = OperationStore.detached(
      query: TestQuery().staleWhen { _, _ in false }.defaultValue(5)
    )
    #expect(try await store.fetchIfNeeded() == 5)
    #expect(store.valueUpdateCount == 0)
  }
}

/// An instrument that counts the joins of runs in flight and lets a test wait for a number of
/// them.
private final class JoinCounter: OperationInstrument {
  private struct State {
    var count = 0
    var waiters = [(count: Int, gate: Gate)]()
  }

  private let state = Lock(State())

  func started(_ work: OperationWork) -> (any OperationWorkObservation)? {
    nil
  }

  func record(_ event: OperationInstrumentEvent, in run: OperationRunInfo) {
    guard event == .joinedRunInFlight else { return }
    let ready = self.state.withLock { state in
      state.count += 1
      let ready = state.waiters.filter { $0.count <= state.count }.map(\.gate)
      state.waiters.removeAll { $0.count <= state.count }
      return ready
    }
    for gate in ready {
      gate.open()
    }
  }

  /// Returns once `count` joins were recorded.
  func wait(forCount count: Int) async {
    let gate = Gate()
    let reached = self.state.withLock { state in
      guard state.count < count else { return true }
      state.waiters.append((count, gate))
      return false
    }
    if reached {
      gate.open()
    }
    await gate.wait()
  }
}

@Suite struct `ServingRule tests` {
  typealias Decision = ServingRule.Decision

  /// A rule for a value 10 seconds old that stays fresh for 60, whose last run took 2 seconds,
  /// with a window of 30 seconds and a `β` of 1.
  private static func rule(
    hasValue: Bool = true,
    isInvalidated: Bool = false,
    age: OperationDuration? = .seconds(10),
    freshnessLifetime: OperationDuration? = .seconds(60),
    lastRunDuration: OperationDuration? = .seconds(2),
    settings: EarlyRefresh? = EarlyRefresh(beta: 1, servingWindow: .seconds(30))
  ) -> ServingRule {
    ServingRule(
      hasValue: hasValue,
      isInvalidated: isInvalidated,
      age: age,
      freshnessLifetime: freshnessLifetime,
      lastRunDuration: lastRunDuration,
      settings: settings
    )
  }

  @Test(arguments: [(false, Decision.serve), (true, .wait)])
  func `Without Settings A Value Is Served Only While Fresh`(isStale: Bool, decision: Decision) {
    let rule = Self.rule(settings: nil)
    #expect(rule.decide(isStale: { isStale }, random: { 0.01 }) == decision)
  }

  @Test(arguments: [true, false])
  func `Without A Value Or When Invalidated A Caller Waits`(isStale: Bool) {
    let noValue = Self.rule(hasValue: false)
    let invalidated = Self.rule(isInvalidated: true)
    #expect(noValue.decide(isStale: { isStale }, random: { 1 }) == .wait)
    #expect(invalidated.decide(isStale: { isStale }, random: { 1 }) == .wait)
  }

  @Test(arguments: [
    (61.0, Decision.serveAndRefresh), (90.0, .serveAndRefresh), (90.001, .wait),
  ])
  func `A Value Stale By Its Age Is Served Within The Window`(age: Double, decision: Decision) {
    let rule = Self.rule(age: .seconds(age))
    #expect(rule.decide(isStale: { true }, random: { 1 }) == decision)
  }

  @Test func `A Value Stale Before Its Deadline Is Waited For`() {
    let rule = Self.rule(age: .seconds(10))
    #expect(rule.decide(isStale: { true }, random: { 1 }) == .wait)
  }

  @Test func `Without A Lifetime A Stale Value Is Waited For`() {
    let rule = Self.rule(freshnessLifetime: nil)
    #expect(rule.decide(isStale: { true }, random: { 1 }) == .wait)
    #expect(rule.decide(isStale: { false }, random: { 0.01 }) == .serve)
  }

  @Test(arguments: [(0.5, Decision.serve), (0.01, .serveAndRefresh)])
  func `A Fresh Value Is Refreshed When Its Head Start Reaches The Deadline`(
    random: Double,
    decision: Decision
  ) {
    // NB: 51 seconds old, 9 seconds before the deadline: the head start 2·(−ln r) is 1.4 s for
    // r = 0.5 and 9.2 s for r = 0.01.
    let rule = Self.rule(age: .seconds(51))
    #expect(rule.decide(isStale: { false }, random: { random }) == decision)
  }

  @Test func `A Fresh Value Is Not Refreshed Early Before A Run Was Measured`() {
    let draws = CallCounter()
    let rule = Self.rule(age: .seconds(59.9), lastRunDuration: nil)
    let decision = rule.decide(isStale: { false }) {
      draws.increment()
      return 0.01
    }
    #expect(decision == .serve)
    #expect(draws.value == 0)
  }
}
