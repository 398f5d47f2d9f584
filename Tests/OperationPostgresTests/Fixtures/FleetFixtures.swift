import Foundation
import Operation
import OperationPostgres
import OperationSynchronization
import OperationTestSupport
import PostgresNIO
import Testing

/// An upstream service that counts its calls and can hold each one until the test opens its
/// gate.
final class Upstream: Sendable {
  struct Failure: Error, CustomStringConvertible {
    var description: String { "upstream answered 503" }
  }

  private struct State {
    var calls = 0
    var gates = [Int: Gate]()
    var started = [Int: Gate]()
    var failing = Set<Int>()
  }

  private let state = Lock(State())

  /// The number of calls that reached the service.
  var calls: Int { self.state.withLock { $0.calls } }

  /// Holds call `number` (from 1) until its gate opens.
  func hold(call number: Int) -> Gate {
    self.state.withLock { state in
      let gate = Gate()
      state.gates[number] = gate
      return gate
    }
  }

  /// Makes call `number` fail.
  func fail(call number: Int) {
    self.state.withLock { _ = $0.failing.insert(number) }
  }

  /// Opened once call `number` has started.
  func started(call number: Int) -> Gate {
    self.state.withLock { state in
      if let gate = state.started[number] { return gate }
      let gate = Gate()
      state.started[number] = gate
      return gate
    }
  }

  func call(_ name: String) async throws -> String {
    let (number, gate, fails) = self.state.withLock { state in
      state.calls += 1
      return (state.calls, state.gates[state.calls], state.failing.contains(state.calls))
    }
    self.started(call: number).open()
    if let gate {
      // NB: A held call ends when its caller is cancelled, as a real request does.
      await withTaskCancellationHandler {
        await gate.wait()
      } onCancel: {
        gate.open()
      }
      try Task.checkCancellation()
    }
    if fails { throw Failure() }
    return "\(name) #\(number)"
  }
}

/// A query for one item of the upstream service.
struct ItemQuery: QueryRequest, Sendable {
  let id: Int
  let upstream: Upstream

  var path: OperationPath { ["fleet-item", self.id] }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<String, any Error>
  ) async throws -> String {
    try await self.upstream.call("item \(self.id)")
  }
}

/// Collects values from any thread.
final class Recorder<Value: Sendable>: Sendable {
  private let storage = Lock([Value]())

  var values: [Value] { self.storage.withLock { $0 } }

  func record(_ value: Value) {
    self.storage.withLock { $0.append(value) }
  }
}

/// One instance of a fleet in a test: its fleet (listening), its own delayer, client and cache.
struct FleetMember: Sendable {
  let fleet: PostgresFleet
  let delayer: ManualDelayer
  let client: OperationClient
  let cache: PersistentQueryCache
  let problems: Recorder<String>

  func item(
    _ id: Int,
    upstream: Upstream,
    maxAge: OperationDuration? = nil,
    maxWait: OperationDuration = .seconds(60)
  ) -> ModifiedOperation<ItemQuery, _FleetCoalescingModifier<ItemQuery>> {
    ItemQuery(id: id, upstream: upstream)
      .coalesced(
        across: self.fleet,
        cache: self.cache,
        reusingValuesYoungerThan: maxAge,
        maxWait: maxWait
      )
  }
}

extension TestPostgres {
  /// Runs `body` with `count` listening members of one fleet on a fresh namespace.
  ///
  /// Each member's fleet waits on a delayer of its own (`manualDelays`) or on the real clock.
  static func withFleet(
    count: Int,
    clock: ManualOperationClock = ManualOperationClock(date: Date(timeIntervalSince1970: 1_000)),
    leaseDuration: OperationDuration = .seconds(10),
    manualDelays: Bool = true,
    _ body: ([FleetMember], PostgresClient, PostgresNamespace) async throws -> Void
  ) async throws {
    try await self.withClient { client, namespace in
      var members = [FleetMember]()
      for index in 0..<count {
        let persistence = try await PostgresPersistence(
          client: client,
          namespace: namespace,
          timeout: TestPostgres.callTimeout
        )
        let delayer = ManualDelayer()
        let problems = Recorder<String>()
        let fleet = try await PostgresFleet(
          persistence: persistence,
          instance: "instance-\(index)",
          leaseDuration: leaseDuration,
          clock: clock,
          delayer: manualDelays ? delayer : ClockDelayer(clock: ContinuousClock()),
          onProblem: { problems.record($0.description) }
        )
        let cache = try await PersistentQueryCache(
          storage: persistence,
          clock: clock,
          writeDelay: .zero,
          onProblem: { problems.record($0.description) }
        )
        members.append(
          FleetMember(
            fleet: fleet,
            delayer: delayer,
            client: OperationClient(),
            cache: cache,
            problems: problems
          )
        )
      }
      try await withThrowingTaskGroup(of: Void.self) { group in
        for member in members {
          group.addTask { try await member.fleet.run() }
        }
        for member in members {
          await member.fleet.waitUntilListening()
        }
        do {
          try await body(members, client, namespace)
        } catch {
          group.cancelAll()
          throw error
        }
        group.cancelAll()
      }
    }
  }
}
