import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationSynchronization
import OperationTestSupport
import Testing

// The examples of the "Chains, Groups and Graphs" article, as they stand there.

@Suite struct `Chains, Groups and Graphs article tests` {
  @Test func `A Chain Passes Results`() async throws {
    let greeting = NumberQuery()
      .map { number in "\(number + 1)" }
      .map { text in "Hello \(text)!" }

    let value = try await OperationRunner(operation: greeting).run()
    #expect(value == "Hello 2!")
  }

  @Test func `A Failure Is Passed Along As A Value`() async throws {
    let reported = FlakyQuery(attempts: AttemptCounter())
      .mapResult { result in
        switch result {
        case .success(let text): "Loaded \(text)"
        case .failure: "Could not load"
        }
      }
    #expect(await OperationRunner(operation: reported).run() == "Could not load")
  }

  @Test func `Nodes Consume Each Other's Values`() async throws {
    let graph = WorkGraph()
    let number = try graph.add(NumberQuery())
    let text = try graph.add(consuming: number) { number, _ in "\(number + 1)" }
    let hello = try graph.add(consuming: text) { text, _ in "Hello \(text)!" }
    await graph.run()
    #expect(try graph.result(of: hello)?.get() == "Hello 2!")
  }

  @Test func `Groups Join Chains Of Other Types And Keep Their Failure`() async throws {
    let first = NumberQuery().map { "\($0)" }.group()
    let second = FlakyQuery(attempts: AttemptCounter()).map { $0.count }.group()
    let both = first.then(second)
    await #expect(throws: FlakyError.self) { try await OperationRunner(operation: both).run() }
  }

  @Test func `A Group Finishes After Its Children With Their Errors`() async throws {
    let sync = WorkGraph()
    let group = try sync.addGroup(name: "Sync") { group in
      try group.add(name: "Contacts") { _ in "contacts" }
      try group.add(name: "Photos") { _ -> String in throw SyncError() }
    }
    let report = await sync.run()
    #expect(report[group].outcome?.errors.count == 1)
    #expect(report[group].outcome?.errors.first is SyncError)
  }

  @Test(.timeLimit(.minutes(1)))
  func `A Node With A Deadline Fails At It Even When Its Work Ignores Cancellation`()
    async throws
  {
    let legacyExporter = LegacyExporter()
    var context = OperationContext()
    let delayer = ManualDelayer()
    context.operationDelayer = delayer
    let graph = WorkGraph(context: context)
    let export = try graph.add(observers: [TimeoutObserver(timeout: .seconds(30))]) { _ in
      try await legacyExporter.export()  // does not check for cancellation
    }
    let run = Task { await graph.run() }
    await delayer.waitForDelays(count: 1)
    delayer.resumeAll()  // the deadline
    let report = await withTaskCancellationHandler {
      await run.value
    } onCancel: {
      legacyExporter.release.open()
    }
    #expect(report[export].outcome?.isFailed == true)
    #expect(
      report[export].outcome?.errors.map { $0 as? OperationTimeoutError }
        == [OperationTimeoutError(duration: .seconds(30))]
    )
    legacyExporter.release.open()
  }

  @Test func `A Retried Node Waits Through The Context's Delayer`() async throws {
    let delayer = RecordingDelayer()
    var context = OperationContext()
    context.operationDelayer = delayer
    let retries = WorkGraph(context: context)
    let loaded = try retries.add(
      FlakyQuery(attempts: AttemptCounter())
        .retrying(.custom { failureCount, _ in failureCount < 3 }, waiting: .fixed(.seconds(1)))
    )
    await retries.run()
    #expect(try retries.result(of: loaded)?.get() == "Finally")
    #expect(delayer.delays == [.seconds(1), .seconds(1)])
  }

  @Test func `Mutually Exclusive Alerts Run One After The Other`() async throws {
    let probe = ConcurrencyProbe(nodeCount: 2)
    let screens = WorkGraph()
    try screens.add(name: "Error alert", conditions: [AlertPresentation()]) { _ in
      probe.enter(0)
      defer { probe.exit(0) }
      return "error shown"
    }
    try screens.add(name: "Update alert", conditions: [AlertPresentation()]) { _ in
      probe.enter(1)
      defer { probe.exit(1) }
      return "update shown"
    }
    let report = await screens.run()
    #expect(report.succeededCount == 2)
    #expect(probe.maxRunning == 1)
  }

  @Test func `A Failed Dependency Keeps A Guarded Node From Running`() async throws {
    let guarded = WorkGraph()
    let download = try guarded.add { _ -> [UInt8] in throw DownloadError() }
    let unzip = try guarded.add(after: [download], conditions: [NoFailedDependenciesCondition()]) {
      _ in "unzipped"
    }
    await guarded.run()
    let outcome = try #require(guarded.report(of: unzip).outcome)
    #expect(outcome.isNotExecuted)
    #expect(outcome.errors.first as? NoFailedDependenciesError == .failedDependencies)
  }
}

// MARK: - The article's requests

private struct NumberQuery: QueryRequest, Hashable {
  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    1
  }
}

private struct FlakyQuery: QueryRequest, Hashable {
  let attempts: AttemptCounter

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<String, any Error>
  ) async throws -> String {
    guard self.attempts.next() > 2 else { throw FlakyError() }
    return "Finally"
  }
}

/// Counts attempts; equal to itself only, so each example gets its own.
final class AttemptCounter: Hashable, Sendable {
  private let count = Lock(0)

  func next() -> Int {
    self.count.withLock {
      $0 += 1
      return $0
    }
  }

  static func == (lhs: AttemptCounter, rhs: AttemptCounter) -> Bool {
    lhs === rhs
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(self))
  }
}

private struct FlakyError: Error {}
private struct SyncError: Error {}
private struct DownloadError: Error {}
