import Foundation
import Operation
import OperationPersistence
import OperationServiceLifecycle
import OperationSynchronization
import OperationTestSupport
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing

@Suite(.timeLimit(.minutes(1))) struct `MutationOutboxService tests` {
  private let directory = TemporaryDirectory()

  @Test func `The Service Delivers What Is Enqueued While It Runs`() async throws {
    let outbox = try await self.outbox()
    let upstream = HeldUpstream()
    let mutation = Deliver(upstream: upstream).durable(in: outbox, kind: "deliver")
    try await testGracefulShutdown { trigger in
      let service = Task { try await MutationOutboxService(outbox: outbox).run() }
      let store = OperationClient().store(for: mutation)
      upstream.release()
      #expect(try await store.mutate(with: "a") == "delivered a")
      trigger.triggerGracefulShutdown()
      try await service.value
    }
    #expect(upstream.completed == ["a"])
  }

  @Test func `On Shutdown A Delivery In Flight Finishes Within The Grace Period`() async throws {
    let delayer = ManualDelayer()
    let outbox = try await self.outbox(delayer: delayer)
    let upstream = HeldUpstream()
    let mutation = Deliver(upstream: upstream).durable(in: outbox, kind: "deliver")
    try await testGracefulShutdown { trigger in
      let service = Task {
        try await MutationOutboxService(outbox: outbox, gracePeriod: .seconds(5)).run()
      }
      let run = Task { try await OperationClient().store(for: mutation).mutate(with: "a") }
      await upstream.waitForRequest()

      trigger.triggerGracefulShutdown()
      await delayer.waitForDelays(count: 1)
      #expect(delayer.delays == [.seconds(5)])
      await #expect(throws: MutationOutbox.ClosedError.self) {
        try await outbox.enqueue(kind: "deliver", arguments: "late", lane: "deliver")
      }
      upstream.release()
      #expect(try await run.value == "delivered a")
      try await service.value
    }
    #expect(upstream.started == ["a"])
    #expect(upstream.completed == ["a"])
    #expect(try await outbox.entries().isEmpty)
  }

  @Test func `On Shutdown A Delivery That Outlasts The Grace Period Is Cancelled And Kept`()
    async throws
  {
    let delayer = ManualDelayer()
    let outbox = try await self.outbox(delayer: delayer)
    let upstream = HeldUpstream()
    let mutation = Deliver(upstream: upstream).durable(in: outbox, kind: "deliver")
    try await testGracefulShutdown { trigger in
      let service = Task {
        try await MutationOutboxService(outbox: outbox, gracePeriod: .seconds(5)).run()
      }
      let run = Task { try await OperationClient().store(for: mutation).mutate(with: "a") }
      await upstream.waitForRequest()

      trigger.triggerGracefulShutdown()
      await delayer.waitForDelays(count: 1)
      delayer.resumeNext()
      try await service.value
      await #expect(throws: MutationOutbox.ClosedError.self) { try await run.value }
    }
    #expect(upstream.completed == [])
    #expect(try await outbox.entries().map(\.status) == [.queued])
  }

  @Test func `A Cancelled Service Stops Without Waiting For Its Deliveries`() async throws {
    let delayer = ManualDelayer()
    let outbox = try await self.outbox(delayer: delayer)
    let upstream = HeldUpstream()
    let mutation = Deliver(upstream: upstream).durable(in: outbox, kind: "deliver")
    let service = Task {
      try await MutationOutboxService(outbox: outbox, gracePeriod: .seconds(5)).run()
    }
    let run = Task { try await OperationClient().store(for: mutation).mutate(with: "a") }
    await upstream.waitForRequest()

    service.cancel()
    try await service.value
    await #expect(throws: MutationOutbox.ClosedError.self) { try await run.value }
    #expect(delayer.delays.isEmpty)
    #expect(try await outbox.entries().map(\.status) == [.queued])
  }

  private func outbox(delayer: ManualDelayer = ManualDelayer()) async throws -> MutationOutbox {
    try await MutationOutbox(
      storage: SQLitePersistence(path: self.directory.file("outbox.sqlite")),
      networkObserver: nil,
      delayer: delayer
    )
  }
}

/// A mutation that delivers its text to an upstream that may hold it.
private struct Deliver: MutationRequest {
  let upstream: HeldUpstream

  var path: OperationPath { ["deliver"] }

  func mutate(
    isolation: isolated (any Actor)?,
    with text: String,
    in context: OperationContext,
    with continuation: OperationContinuation<String, any Error>
  ) async throws -> String {
    try await self.upstream.receive(text)
  }
}
