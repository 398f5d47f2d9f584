import Foundation
import Operation
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `OperationInstrument tests` {
  private func client(_ instrument: RecordingInstrument) -> OperationClient {
    var context = OperationContext()
    context.operationInstruments = [instrument]
    return OperationClient(defaultContext: context)
  }

  @Test func `A Successful Run Is Observed From Start To Success`() async throws {
    let instrument = RecordingInstrument()
    let store = self.client(instrument).store(for: TestQuery())
    try await store.fetch()
    #expect(instrument.log == ["start TestQuery", "end success"])
  }

  @Test func `A Failure With Retries Records Each Retry And One Failed Run`() async {
    let instrument = RecordingInstrument()
    let store = self.client(instrument).store(for: FailingQuery().retry(limit: 2))
    await #expect(throws: TestError.self) { try await store.fetch() }
    let path = store.path.description
    #expect(
      instrument.log == [
        "start FailingQuery", "retried 1 at \(path)", "retried 2 at \(path)", "end failure",
      ]
    )
  }

  @Test func `A Run That Joins A Run In Flight Is Recorded As A Join`() async throws {
    let instrument = RecordingInstrument()
    let query = GatedQuery()
    let store = self.client(instrument).store(for: query.deduplicated())
    let first = Task { try await store.fetch() }
    await query.started.wait()
    let second = Task { try await store.fetch() }
    await instrument.waitForEvents(1)
    query.gate.open()
    _ = try await (first.value, second.value)
    #expect(instrument.log.filter { $0.hasPrefix("joined") }.count == 1)
    #expect(instrument.log.filter { $0 == "end success" }.count == 2)
  }

  @Test func `A Cancelled Run Ends Cancelled`() async {
    let instrument = RecordingInstrument()
    let query = GatedQuery()
    let store = self.client(instrument).store(for: query)
    let run = Task { try await store.fetch() }
    await query.started.wait()
    run.cancel()
    query.gate.open()
    _ = try? await run.value
    #expect(instrument.log.last == "end cancelled")
  }

  @Test func `A Timed Out Run Records The Timeout And Ends Timed Out`() async {
    let instrument = RecordingInstrument()
    let delayer = ManualDelayer()
    let query = GatedQuery()
    let store = self.client(instrument).store(
      for: query.timeout(after: .seconds(1)).delayer(delayer)
    )
    let run = Task { try await store.fetch() }
    await delayer.waitForDelays(count: 1)
    delayer.resumeAll()
    await #expect(throws: OperationTimeoutError.self) { try await run.value }
    query.gate.open()
    #expect(instrument.log.contains { $0.hasPrefix("timedOut") })
    #expect(instrument.log.last == "end timeout")
  }

  @Test func `A Collected Store Is Recorded As Evicted`() async {
    let instrument = RecordingInstrument()
    let delayer = ManualDelayer()
    var context = OperationContext()
    context.operationInstruments = [instrument]
    context.collectionDelay = .seconds(1)
    context.collectionDelayer = delayer
    // NB: A clock that does not move leaves the end of the delay to the delayer.
    context.operationClock = ManualOperationClock()
    let client = OperationClient(defaultContext: context)
    let store = client.store(for: TestQuery())
    await delayer.waitForDelays(count: 1)
    delayer.resumeAll()
    await instrument.waitForEvents(1)
    #expect(instrument.log == ["evicted \(store.path.description)"])
  }

  @Test func `Each Attempt Of A Run That May Retry Is Observed Inside The Run`() async {
    let instrument = RecordingInstrument(observesNestedWork: true)
    let store = self.client(instrument).store(for: FailingQuery().retry(limit: 1))
    await #expect(throws: TestError.self) { try await store.fetch() }
    #expect(
      instrument.log == [
        "start FailingQuery",
        "attempt 1", "end attempt 1 failure", "retried 1 at \(store.path.description)",
        "attempt 2", "end attempt 2 failure",
        "end failure",
      ]
    )
  }

  @Test func `A Run Without Retries Has No Attempts`() async throws {
    let instrument = RecordingInstrument(observesNestedWork: true)
    let store = self.client(instrument).store(for: TestQuery().retry(limit: 0))
    try await store.fetch()
    #expect(instrument.log == ["start TestQuery", "end success"])
  }

  @Test func `Each Page Is Observed Inside The Run`() async throws {
    let instrument = RecordingInstrument(observesNestedWork: true)
    let store = self.client(instrument).store(for: TestPaginated([0: "zero", 1: "one"]))
    try await store.fetchNextPage()
    try await store.fetchNextPage()
    #expect(
      instrument.log == [
        "start TestPaginated", "page 0", "end page 0 success", "end success",
        "start TestPaginated", "page 1", "end page 1 success", "end success",
      ]
    )
  }

  @Test func `Observations Wrap Their Work, The First Instrument Outermost`() async throws {
    let lines = ValueRecorder<String>()
    var context = OperationContext()
    context.operationInstruments = [
      WrappingInstrument(name: "outer", lines: lines),
      WrappingInstrument(name: "inner", lines: lines),
    ]
    let client = OperationClient(defaultContext: context)
    let query = TestQuery()
    try await client.store(for: query).fetch()
    #expect(lines.values == ["outer in", "inner in", "inner out", "outer out"])
  }

  @Test func `A Run's Duration Is Read From The Context's Clock`() async {
    #expect(await self.durations(ofARunThatMovesTheClockBy: 2.5) == [.seconds(2.5)])
  }

  @Test func `A Clock That Steps Back During A Run Gives It A Zero Duration`() async {
    #expect(await self.durations(ofARunThatMovesTheClockBy: -1) == [.zero])
  }

  /// The durations an instrument hears for a run that moves the context's clock by `seconds`.
  private func durations(ofARunThatMovesTheClockBy seconds: TimeInterval) async -> [Duration] {
    let clock = ManualOperationClock()
    let instrument = DurationInstrument()
    var context = OperationContext()
    context.operationInstruments = [instrument]
    context.operationClock = clock
    let client = OperationClient(defaultContext: context)
    await client.store(for: ClockAdvancingQuery(clock: clock, seconds: seconds)).fetch()
    return instrument.durations.values
  }

  @Test func `The Modifier Instruments One Operation`() async throws {
    let instrument = RecordingInstrument()
    let client = OperationClient()
    try await client.store(for: TestQuery().instrumented(with: instrument)).fetch()
    _ = try? await client.store(for: FailingQuery()).fetch()
    #expect(instrument.log == ["start TestQuery", "end success"])
  }
}

/// Records runs and events as short lines, in order.
private final class RecordingInstrument: OperationInstrument {
  private let lines = ValueRecorder<String>()
  private let events = AsyncCounter()
  private let observesNestedWork: Bool

  init(observesNestedWork: Bool = false) {
    self.observesNestedWork = observesNestedWork
  }

  var log: [String] { self.lines.values }

  func waitForEvents(_ count: Int) async {
    await self.events.wait(for: count)
  }

  func started(_ work: OperationWork) -> (any OperationWorkObservation)? {
    let name: String
    switch work.kind {
    case .run: name = "start \(work.run.operationTypeName ?? "?")"
    case .attempt(let attempt): name = "attempt \(attempt)"
    case .page(let id): name = "page \(id)"
    }
    guard self.observes(work.kind) else { return nil }
    self.lines.record(name)
    return Observation(lines: self.lines, kind: work.kind)
  }

  private func observes(_ kind: OperationWork.Kind) -> Bool {
    if case .run = kind { return true }
    return self.observesNestedWork
  }

  func record(_ event: OperationInstrumentEvent, in run: OperationRunInfo) {
    let path = run.path
    switch event {
    case .retried(let attempt): self.lines.record("retried \(attempt) at \(path.description)")
    case .joinedRunInFlight: self.lines.record("joined")
    case .timedOut: self.lines.record("timedOut")
    case .evicted: self.lines.record("evicted \(path.description)")
    case .persistenceWriteFailed: self.lines.record("persistenceWriteFailed \(path.description)")
    default: self.lines.record("\(event)")
    }
    self.events.increment()
  }

  private struct Observation: OperationWorkObservation {
    let lines: ValueRecorder<String>
    let kind: OperationWork.Kind

    func ended(_ outcome: OperationRunOutcome, duration: Duration) {
      switch self.kind {
      case .run: self.lines.record("end \(outcome.name)")
      case .attempt(let attempt): self.lines.record("end attempt \(attempt) \(outcome.name)")
      case .page(let id): self.lines.record("end page \(id) \(outcome.name)")
      }
    }
  }
}

/// Records the duration of each run.
private final class DurationInstrument: OperationInstrument {
  let durations = ValueRecorder<Duration>()

  func started(_ work: OperationWork) -> (any OperationWorkObservation)? {
    guard case .run = work.kind else { return nil }
    return Observation(durations: self.durations)
  }

  func record(_ event: OperationInstrumentEvent, in run: OperationRunInfo) {}

  private struct Observation: OperationWorkObservation {
    let durations: ValueRecorder<Duration>

    func ended(_ outcome: OperationRunOutcome, duration: Duration) {
      self.durations.record(duration)
    }
  }
}

/// A query that moves a manual clock while it runs, as slow work moves real time.
private struct ClockAdvancingQuery: QueryRequest, Hashable {
  let clock: ManualOperationClock
  let seconds: TimeInterval

  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.clock === rhs.clock && lhs.seconds == rhs.seconds
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(self.clock))
    hasher.combine(self.seconds)
  }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, Never>
  ) async -> Int {
    self.clock.advance(by: self.seconds)
    return 1
  }
}

/// Records when its observations enter and leave the work they wrap.
private struct WrappingInstrument: OperationInstrument {
  let name: String
  let lines: ValueRecorder<String>

  func started(_ work: OperationWork) -> (any OperationWorkObservation)? {
    Observation(name: self.name, lines: self.lines)
  }

  func record(_ event: OperationInstrumentEvent, in run: OperationRunInfo) {}

  private struct Observation: OperationWorkObservation {
    let name: String
    let lines: ValueRecorder<String>

    func perform<Result>(_ body: () async -> Result) async -> Result {
      self.lines.record("\(self.name) in")
      let result = await body()
      self.lines.record("\(self.name) out")
      return result
    }

    func ended(_ outcome: OperationRunOutcome, duration: Duration) {}
  }
}
