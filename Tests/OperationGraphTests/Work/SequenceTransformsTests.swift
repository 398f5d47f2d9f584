import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct `SequenceTransforms tests` {
  // MARK: - Operations FunctionalOperationsTests

  @Test func `MapEach Transforms Every Element`() async throws {
    let request = WorkScriptedQuery { _ in .success(["Hello World"]) }.mapEach { "\($0) \($0)" }
    #expect(try await OperationRunner(operation: request).run() == ["Hello World Hello World"])
  }

  @Test func `Map On An Array Request Transforms The Whole Array And MapEach Each Element`()
    async throws
  {
    let numbers = WorkScriptedQuery { _ in .success([1, 2, 3]) }
    let count = try await OperationRunner(operation: numbers.map { $0.count }).run()
    let doubled = try await OperationRunner(operation: numbers.mapEach { $0 * 2 }).run()
    #expect(count == 3)
    #expect(doubled == [2, 4, 6])
  }

  @Test func `Filter Keeps The Even Numbers`() async throws {
    let request = WorkScriptedQuery { _ in .success(Array(0..<10)) }.filter { $0.isMultiple(of: 2) }
    #expect(try await OperationRunner(operation: request).run() == [0, 2, 4, 6, 8])
  }

  @Test func `Reduce Sums Zero Through Nine`() async throws {
    let request = WorkScriptedQuery { _ in .success(Array(0...9)) }.reduce(0, +)
    #expect(try await OperationRunner(operation: request).run() == 45)
  }

  @Test(arguments: Transform.allCases)
  func `After A Failing Source The Transform Does Not Run`(transform: Transform) async {
    let calls = WorkRecorder<Int>()
    let source = WorkScriptedQuery<[Int]> { run in .failure(WorkError(run: run)) }
    await #expect(throws: WorkError(run: 1)) {
      try await transform.run(source, calls: calls)
    }
    #expect(calls.all.isEmpty)
  }

  @Test(arguments: Transform.allCases)
  func `After A Cancelled Source The Transform Does Not Run`(transform: Transform) async {
    let calls = WorkRecorder<Int>()
    let source = HeldNumbers()
    let task = Task { try await transform.run(source, calls: calls) }
    await source.started.wait()
    task.cancel()
    source.release.open()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(calls.all.isEmpty)
  }

  // MARK: - Stores and yields

  @Test func `A Filtered Query Is Still A Query For A Store`() async throws {
    let query = WorkScriptedQuery { _ in .success([1, 2, 3, 4]) }
    let filtered = query.filter { $0 > 2 }
    #expect(filtered.path == query.path)
    let store = OperationStore.detached(query: filtered, initialValue: nil)
    #expect(try await store.fetch() == [3, 4])
    #expect(store.currentValue == [3, 4])
  }

  @Test func `Yields Are Transformed Too`() async throws {
    let yields = WorkYields<Int, any Error>()
    let request = YieldingNumbers().reduce(0, +)
    #expect(try await OperationRunner(operation: request).run(with: yields.continuation) == 6)
    #expect(yields.all.map { try? $0.get() } == [3])
  }
}

/// The three transforms, each recording its calls, so one test body covers all of them.
enum Transform: CaseIterable, Sendable {
  case mapEach
  case filter
  case reduce

  func run<Source: OperationRequest>(
    _ source: Source,
    calls: WorkRecorder<Int>
  ) async throws(Source.Failure) where Source.Value == [Int] {
    switch self {
    case .mapEach:
      _ = try await OperationRunner(
        operation: source.mapEach { element in
          calls.append(element)
          return element
        }
      ).run()
    case .filter:
      _ = try await OperationRunner(
        operation: source.filter { element in
          calls.append(element)
          return true
        }
      ).run()
    case .reduce:
      _ = try await OperationRunner(
        operation: source.reduce(0) { sum, element in
          calls.append(element)
          return sum + element
        }
      ).run()
    }
  }
}

/// Returns numbers once a gate opens, even when its task was cancelled meanwhile.
private struct HeldNumbers: OperationRequest, Sendable {
  let started = Gate()
  let release = Gate()

  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<[Int], any Error>
  ) async throws -> [Int] {
    self.started.open()
    await self.release.wait()
    return [1, 2, 3]
  }
}

private struct YieldingNumbers: OperationRequest, Sendable {
  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<[Int], any Error>
  ) async throws -> [Int] {
    continuation.yield([1, 2])
    return [1, 2, 3]
  }
}
