import Foundation
import Operation
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `OperationClient+Inspection tests` {
  private let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 500))

  private func client() -> OperationClient {
    var context = OperationContext()
    context.operationClock = self.clock
    return OperationClient(defaultContext: context)
  }

  @Test func `A Snapshot Describes Every Store, Ordered By Path`() async throws {
    let client = self.client()
    let succeededQuery = SteppedQuery(path: ["b", "succeeded"])
    let failedQuery = SteppedQuery(path: ["a", "failed"])
    let succeeded = client.store(for: succeededQuery)
    let failed = client.store(for: failedQuery)
    let loading = client.store(for: SteppedQuery(path: ["c", "loading"]))

    succeededQuery.steps.release(0, returning: 1)
    try await succeeded.fetch()
    failedQuery.steps.release(0, with: .failure(TestError()))
    _ = try? await failed.fetch()
    let subscription = loading.subscribe { _ in }
    failed.invalidate()

    let snapshot = client.snapshot()
    #expect(snapshot.takenAt == Date(timeIntervalSince1970: 500))
    #expect(snapshot.stores.map(\.path) == [failed, succeeded, loading].map(\.path.description))
    let (a, b, c) = (snapshot.stores[0], snapshot.stores[1], snapshot.stores[2])
    #expect(a.phase == .failure)
    #expect(a.errorUpdateCount == 1)
    #expect(a.errorDescription == String(describing: TestError()))
    #expect(a.isInvalidated)
    #expect(a.isStale)
    #expect(b.phase == .success)
    #expect(b.valueUpdateCount == 1)
    #expect(b.valueLastUpdatedAt == Date(timeIntervalSince1970: 500))
    #expect(b.stateType == "QueryState<Int, Error>")
    #expect(c.phase == .loading)
    #expect(c.subscriberCount == 1)
    #expect(c.activeTaskCount == 1)
    #expect(c.historyCount == nil)
    subscription.cancel()
  }

  @Test func `Mutations Report Their History And Paginated Stores Their Pages`() async throws {
    let client = self.client()
    let mutation = client.store(for: EchoMutation())
    try await mutation.mutate(with: "a")
    try await mutation.mutate(with: "b")
    let pages = client.store(for: TestPaginated([0: "zero", 1: "one"]))
    try await pages.fetchNextPage()
    try await pages.fetchNextPage()

    let snapshot = client.snapshot()
    #expect(snapshot.stores.first { $0.path == mutation.path.description }?.historyCount == 2)
    #expect(snapshot.stores.first { $0.path == pages.path.description }?.pageCount == 2)
  }

  @Test func `A Cancelled Run Shows As Cancelled`() async {
    let client = self.client()
    let store = client.store(for: SteppedQuery(path: ["cancelled"]))
    let run = Task { try await store.fetch() }
    run.cancel()
    _ = try? await run.value
    #expect(client.snapshot().stores.first?.phase == .cancelled)
  }

  @Test func `A Snapshot Round Trips Through JSON And Can Be Filtered By Path`() async throws {
    let client = self.client()
    _ = client.store(for: SteppedQuery(path: ["feed", 1]))
    _ = client.store(for: SteppedQuery(path: ["profile"]))
    let snapshot = client.snapshot(matching: ["feed"])
    #expect(snapshot.stores.count == 1)
    let data = try JSONEncoder().encode(snapshot)
    #expect(try JSONDecoder().decode(OperationClientSnapshot.self, from: data) == snapshot)
    #expect(snapshot.stores.first?.phase == .idle)
  }
}
