import Foundation
import Operation
import OperationCore
import OperationTestSupport
import Testing

@Suite struct `CircuitBreaker tests` {
  private struct Fixture {
    let clock = ManualOperationClock()
    let upstream = Upstream(.down)
    let events = EventLog()
    let breaker = CircuitBreaker(
      name: "upstream",
      threshold: .consecutiveFailures(3),
      coolDown: .seconds(30)
    )
    let client: OperationClient

    init() {
      var context = OperationContext()
      context.operationClock = self.clock
      context.operationInstruments = [self.events]
      self.client = OperationClient(defaultContext: context)
    }

    func fetch(_ id: Int = 1) async -> Result<Int, any Error> {
      let store = self.client.store(
        for: UpstreamQuery(upstream: self.upstream, id: id).circuitBreaker(self.breaker)
      )
      do {
        return .success(try await store.fetch())
      } catch {
        return .failure(error)
      }
    }

    var transitions: [CircuitBreaker.Transition] {
      self.events.events.compactMap { event in
        guard case .circuitBreakerTransition(_, let from, let to) = event else { return nil }
        return CircuitBreaker.Transition(from: from, to: to)
      }
    }
  }

  @Test func `Opens After The Threshold, Fails Fast, Half-Opens, Closes On A Probe's Success`()
    async throws
  {
    let fixture = Fixture()
    for _ in 0..<3 {
      #expect(try #require(await fixture.fetch().failure) is UpstreamError)
    }
    #expect(fixture.breaker.state(at: fixture.clock.now()) == .open)
    #expect(fixture.upstream.requests == 3)

    // NB: While open, runs fail at once and send nothing.
    for _ in 0..<5 {
      let error = try #require(await fixture.fetch().failure as? CircuitBreakerOpenError)
      #expect(error == CircuitBreakerOpenError(breaker: "upstream", retryAfter: .seconds(30)))
    }
    #expect(fixture.upstream.requests == 3)

    fixture.clock.advance(by: 29)
    #expect(await fixture.fetch().failure is CircuitBreakerOpenError)
    fixture.clock.advance(by: 1)
    #expect(fixture.breaker.state(at: fixture.clock.now()) == .halfOpen)
    fixture.upstream.mode = .up
    #expect(try await fixture.fetch().get() == 1)
    #expect(fixture.breaker.state(at: fixture.clock.now()) == .closed)
    #expect(fixture.upstream.requests == 4)
    #expect(
      fixture.transitions == [
        .init(from: .closed, to: .open), .init(from: .open, to: .halfOpen),
        .init(from: .halfOpen, to: .closed),
      ]
    )
  }

  @Test func `A Probe's Failure Opens The Breaker Again For Another Cool-Down`() async throws {
    let fixture = Fixture()
    for _ in 0..<3 { _ = await fixture.fetch() }
    fixture.clock.advance(by: 30)
    #expect(await fixture.fetch().failure is UpstreamError)
    #expect(fixture.breaker.state(at: fixture.clock.now()) == .open)
    let error = try #require(await fixture.fetch().failure as? CircuitBreakerOpenError)
    #expect(error.retryAfter == .seconds(30))
    #expect(fixture.upstream.requests == 4)
    #expect(
      fixture.transitions == [
        .init(from: .closed, to: .open), .init(from: .open, to: .halfOpen),
        .init(from: .halfOpen, to: .open),
      ]
    )
  }

  @Test func `The Client's Snapshot Lists The Breaker And Its State`() async throws {
    let fixture = Fixture()
    #expect(fixture.client.snapshot().circuitBreakers.isEmpty)
    _ = await fixture.fetch()
    #expect(
      fixture.client.snapshot().circuitBreakers.map(\.state) == [.closed]
    )
    for _ in 0..<2 { _ = await fixture.fetch() }
    _ = await fixture.fetch(2)
    let snapshot = try #require(fixture.client.snapshot().circuitBreakers.first)
    #expect(snapshot.name == "upstream")
    #expect(snapshot.state == .open)
    #expect(snapshot.openings == 1)
    #expect(snapshot.rejections == 1)
    // NB: One breaker, however many stores run through it.
    #expect(fixture.client.snapshot().circuitBreakers.count == 1)
    let json = try JSONEncoder().encode(fixture.client.snapshot())
    let decoded = try JSONDecoder().decode(OperationClientSnapshot.self, from: json)
    #expect(decoded.circuitBreakers.first?.state == .open)
  }

  @Test func `A Snapshot Written Before Breakers Were Listed Still Decodes`() throws {
    let json = #"{"takenAt":0,"stores":[]}"#
    let snapshot = try JSONDecoder().decode(OperationClientSnapshot.self, from: Data(json.utf8))
    #expect(snapshot.circuitBreakers.isEmpty)
  }

  @Test func `Rejections Reach Instruments`() async {
    let fixture = Fixture()
    for _ in 0..<4 { _ = await fixture.fetch() }
    #expect(fixture.events.events.last == .rejectedByCircuitBreaker(breaker: "upstream"))
  }

  @Test func `Errors That Are Not Failures And Cancellations Do Not Open It`() async {
    let breaker = CircuitBreaker(
      name: "lenient",
      threshold: .consecutiveFailures(1),
      isFailure: { !($0 is UpstreamError) }
    )
    let upstream = Upstream(.down)
    let runner = OperationRunner(
      operation: UpstreamQuery(upstream: upstream, id: 1).circuitBreaker(breaker)
    )
    for _ in 0..<3 {
      await #expect(throws: UpstreamError()) { try await runner.run() }
    }
    #expect(breaker.state(at: Date()) == .closed)
    let cancelling = OperationRunner(operation: CancellingQuery().circuitBreaker(breaker))
    for _ in 0..<3 {
      await #expect(throws: CancellationError.self) { try await cancelling.run() }
    }
    #expect(breaker.state(at: Date()) == .closed)
  }

  @Test func `A Failure Rate Opens It Once The Window Has Enough Calls`() async {
    let clock = ManualOperationClock()
    let breaker = CircuitBreaker(
      name: "rate",
      threshold: .failureRate(0.5, minimumCalls: 4, window: .seconds(10))
    )
    let upstream = Upstream(.up)
    let runner = OperationRunner(
      operation: UpstreamQuery(upstream: upstream, id: 1).circuitBreaker(breaker).clock(clock)
    )
    _ = try? await runner.run()
    upstream.mode = .down
    _ = try? await runner.run()
    _ = try? await runner.run()
    #expect(breaker.state(at: clock.now()) == .closed)
    upstream.mode = .up
    _ = try? await runner.run()
    #expect(breaker.state(at: clock.now()) == .closed)
    upstream.mode = .down
    _ = try? await runner.run()
    #expect(breaker.state(at: clock.now()) == .open)
  }
}

private struct CancellingQuery: QueryRequest {
  var path: OperationPath { ["cancelling"] }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    throw CancellationError()
  }
}

extension Result {
  fileprivate var failure: Failure? {
    if case .failure(let error) = self { error } else { nil }
  }
}
