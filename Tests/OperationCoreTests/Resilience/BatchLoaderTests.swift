import OperationCore
import OperationSynchronization
import OperationTestSupport
import Testing

@testable import Operation

@Suite struct `BatchLoader tests` {
  /// A batch endpoint that records the ids of each call, answers `id × 10`, leaves out the ids
  /// it is told to, and fails the ids it is told to.
  final class Resolver: Sendable {
    private struct State {
      var calls = [[Int]]()
      var missing = Set<Int>()
      var failing = Set<Int>()
    }

    private let state = Lock(State())

    var calls: [[Int]] { self.state.withLock { $0.calls } }

    func leaveOut(_ ids: Set<Int>) { self.state.withLock { $0.missing = ids } }
    func fail(_ ids: Set<Int>) { self.state.withLock { $0.failing = ids } }

    func resolve(_ ids: [Int]) -> [Int: Result<Int, any Error>] {
      self.state.withLock { state in
        state.calls.append(ids)
        var answer = [Int: Result<Int, any Error>]()
        for id in ids where !state.missing.contains(id) {
          answer[id] = state.failing.contains(id) ? .failure(UpstreamError()) : .success(id * 10)
        }
        return answer
      }
    }
  }

  /// A query of one user by id through a loader.
  struct UserQuery: QueryRequest {
    let loader: BatchLoader<Int, Int>
    let id: Int
    let copy: Int

    var path: OperationPath { ["user", self.id, self.copy] }

    func fetch(
      isolation: isolated (any Actor)?,
      in context: OperationContext,
      with continuation: OperationContinuation<Int, any Error>
    ) async throws -> Int {
      try await self.loader.load(self.id, in: context)
    }
  }

  /// Fetches `ids` through stores of one client, all within one window of `delayer`.
  private func fetch(
    _ ids: [Int],
    loader: BatchLoader<Int, Int>,
    delayer: ManualDelayer,
    retries: Int = 0
  ) async -> [Result<Int, any Error>] {
    let client = OperationClient()
    let fetches = Task {
      await withTaskGroup(of: (Int, Result<Int, any Error>).self) { group in
        for (index, id) in ids.enumerated() {
          group.addTask {
            let store = client.store(
              for: UserQuery(loader: loader, id: id, copy: index).retry(limit: retries)
                .delayer(delayer)
            )
            do {
              return (index, .success(try await store.fetch()))
            } catch {
              return (index, .failure(error))
            }
          }
        }
        var results = [Result<Int, any Error>?](repeating: nil, count: ids.count)
        for await (index, result) in group {
          results[index] = result
        }
        return results.map { $0! }
      }
    }
    // NB: The window's delay starts with the first lookup; every lookup is in the batch once the
    // loader has counted them all.
    await loader.waitForLookups(count: ids.count)
    await delayer.waitForDelays(count: 1)
    delayer.resumeAll()
    return await fetches.value
  }

  @Test func `100 Lookups Of Distinct Ids In One Window Make One Call With 100 Ids`() async throws {
    let resolver = Resolver()
    let loader = BatchLoader<Int, Int>(window: .duration(.milliseconds(5)), maxBatchSize: 1_000) {
      resolver.resolve($0)
    }
    let results = await self.fetch(Array(0..<100), loader: loader, delayer: ManualDelayer())
    #expect(resolver.calls.count == 1)
    #expect(Set(try #require(resolver.calls.first)) == Set(0..<100))
    #expect(try results.map { try $0.get() } == (0..<100).map { $0 * 10 })
    let statistics = loader.statistics
    #expect(statistics.batches == 1 && statistics.ids == 100)
    #expect(statistics.lookups == 100 && statistics.joins == 0)
  }

  @Test func `100 Lookups Of 10 Ids Make One Call With 10 Ids`() async throws {
    let resolver = Resolver()
    let loader = BatchLoader<Int, Int>(window: .duration(.milliseconds(5))) {
      resolver.resolve($0)
    }
    let ids = (0..<100).map { $0 % 10 }
    let results = await self.fetch(ids, loader: loader, delayer: ManualDelayer())
    #expect(resolver.calls.count == 1)
    #expect(Set(try #require(resolver.calls.first)) == Set(0..<10))
    #expect(try results.map { try $0.get() } == ids.map { $0 * 10 })
    #expect(loader.statistics.joins == 90)
  }

  @Test func `An Id Missing From The Answer Fails Only Its Own Store`() async throws {
    let resolver = Resolver()
    resolver.leaveOut([3])
    let loader = BatchLoader<Int, Int>(name: "users", window: .duration(.milliseconds(5))) {
      resolver.resolve($0)
    }
    let results = await self.fetch(Array(0..<5), loader: loader, delayer: ManualDelayer())
    for (id, result) in results.enumerated() where id != 3 {
      #expect(try result.get() == id * 10)
    }
    guard case .failure(let error as BatchLoaderMissingValueError) = results[3] else {
      Issue.record("Expected the missing id to fail, got \(results[3])")
      return
    }
    #expect(error.loader == "users")
    #expect(error.id as? Int == 3)
    #expect(error.description == #"The batch loader "users" found no value for 3."#)
  }

  @Test func `A Batch That Throws Fails Every Lookup In It`() async {
    struct Down: Error {}
    let loader = BatchLoader<Int, Int>(window: .duration(.milliseconds(5))) {
      _ throws -> [Int: Result<Int, any Error>] in throw Down()
    }
    let results = await self.fetch([1, 2, 3], loader: loader, delayer: ManualDelayer())
    for result in results {
      #expect(throws: Down.self) { try result.get() }
    }
  }

  @Test func `Retries Ask Again Only For The Ids That Failed`() async throws {
    let resolver = Resolver()
    resolver.fail([2, 4])
    let delayer = ManualDelayer()
    let loader = BatchLoader<Int, Int>(window: .duration(.milliseconds(5))) {
      resolver.resolve($0)
    }
    let client = OperationClient()
    let fetches = Task {
      await withTaskGroup(of: Int?.self) { group in
        for id in 0..<6 {
          group.addTask {
            let store = client.store(
              for: UserQuery(loader: loader, id: id, copy: 0).retry(limit: 1)
                .backoff(.noBackoff).delayer(delayer)
            )
            return try? await store.fetch()
          }
        }
        return await group.reduce(into: [Int?]()) { $0.append($1) }
      }
    }
    // NB: The first window, then the two failed stores' waits before their retries, then the
    // second window: every wait is on the manual delayer.
    await loader.waitForLookups(count: 6)
    await delayer.waitForDelays(count: 1)
    delayer.resumeAll()
    await delayer.waitForDelays(count: 3)
    resolver.fail([])
    delayer.resumeAll()
    await loader.waitForLookups(count: 8)
    await delayer.waitForDelays(count: 4)
    delayer.resumeAll()
    let values = await fetches.value
    #expect(Set(values.compactMap { $0 }) == Set((0..<6).map { $0 * 10 }))
    #expect(resolver.calls.count == 2)
    #expect(Set(resolver.calls[1]) == [2, 4])
  }

  @Test func `A Lookup Of An Id In Flight Joins Its Call`() async throws {
    let gate = Gate()
    let calls = Lock([[Int]]())
    let loader = BatchLoader<Int, Int>(window: .tick) { ids in
      calls.withLock { $0.append(ids) }
      await gate.wait()
      return Dictionary(uniqueKeysWithValues: ids.map { ($0, .success($0)) })
    }
    let first = Task { try await loader.load(7) }
    await loader.waitForBatches(count: 1)
    let second = Task { try await loader.load(7) }
    await loader.waitForLookups(count: 2)
    gate.open()
    #expect(try await first.value == 7)
    #expect(try await second.value == 7)
    #expect(calls.withLock { $0 } == [[7]])
    #expect(loader.statistics.joins == 1)
  }

  @Test func `A Full Batch Goes At Once, And Its Window Stops Waiting`() async throws {
    let resolver = Resolver()
    let delayer = ManualDelayer()
    let context = OperationContext.delaying(with: delayer)
    let loader = BatchLoader<Int, Int>(window: .duration(.seconds(60)), maxBatchSize: 2) {
      resolver.resolve($0)
    }
    async let a = loader.load(1, in: context)
    async let b = loader.load(2, in: context)
    #expect(try await [a, b] == [10, 20])
    #expect(resolver.calls.map(Set.init) == [[1, 2]])
    // NB: The window of the batch that filled stops waiting.
    await delayer.waitForDelays(count: 1)
    #expect(delayer.cancelledCount == 1)
    #expect(delayer.pendingCount == 0)
  }

  @Test func `A Cancelled Lookup Stops Waiting, And The Batch Goes On For The Others`() async throws
  {
    let resolver = Resolver()
    let delayer = ManualDelayer()
    let context = OperationContext.delaying(with: delayer)
    let loader = BatchLoader<Int, Int>(window: .duration(.seconds(1))) { resolver.resolve($0) }
    let cancelled = Task { try await loader.load(1, in: context) }
    let kept = Task { try await loader.load(2, in: context) }
    await loader.waitForLookups(count: 2)
    cancelled.cancel()
    await #expect(throws: CancellationError.self) { try await cancelled.value }
    await delayer.waitForDelays(count: 1)
    delayer.resumeAll()
    #expect(try await kept.value == 20)
  }
}

extension OperationContext {
  fileprivate static func delaying(with delayer: ManualDelayer) -> Self {
    var context = OperationContext()
    context.operationDelayer = delayer
    return context
  }
}
