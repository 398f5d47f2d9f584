import Foundation
import OperationCore
import OperationTestSupport
import Testing

@Suite struct `OperationStatus tests` {
  typealias Status = OperationStatus<Int, TestError>

  @Test(
    arguments: [
      (Status.idle, OperationStatus<String, TestError>.idle),
      (.loading, .loading),
      (.result(.success(2)), .result(.success("2"))),
      (.result(.failure(TestError())), .result(.failure(TestError()))),
    ]
  )
  func `Map Success Transforms Only A Successful Value`(
    status: Status,
    expected: OperationStatus<String, TestError>
  ) {
    #expect(status.mapSuccess { String($0) } == expected)
  }

  @Test(
    arguments: [
      (Status.idle, OperationStatus<String, TestError>.idle),
      (.loading, .loading),
      (.result(.success(2)), .loading),
      (.result(.success(-2)), .result(.failure(TestError(message: "negative")))),
      (.result(.failure(TestError())), .result(.failure(TestError()))),
    ]
  )
  func `Flat Map Success Replaces Only A Successful Status`(
    status: Status,
    expected: OperationStatus<String, TestError>
  ) {
    let mapped = status.flatMapSuccess { value -> OperationStatus<String, TestError> in
      value < 0 ? .result(.failure(TestError(message: "negative"))) : .loading
    }
    #expect(mapped == expected)
  }

  @Test func `Map Success Rethrows The Transform Error`() {
    #expect(throws: TestError(message: "map")) {
      try Status.result(.success(1)).mapSuccess { _ throws(TestError) -> Int in
        throw TestError(message: "map")
      }
    }
    #expect(throws: Never.self) {
      try Status.idle.mapSuccess { _ throws(TestError) -> Int in throw TestError(message: "map") }
    }
  }

  @Test func `Accessors Describe Each Case`() {
    #expect(Status.idle.isIdle && !Status.idle.isLoading && !Status.idle.isFinished)
    #expect(Status.loading.isLoading && !Status.loading.isFinished && Status.loading.result == nil)
    let success = Status.result(.success(1))
    #expect(success.isFinished && success.isSuccessful && !success.isFailure)
    #expect(success.resultValue == 1 && success.resultError == nil)
    let failure = Status.result(.failure(TestError()))
    #expect(failure.isFinished && failure.isFailure && !failure.isSuccessful)
    #expect(failure.resultError == TestError() && failure.resultValue == nil)
  }

  @Test func `Is Cancelled Only For A Cancellation Error`() {
    #expect(OperationStatus<Int, any Error>.result(.failure(CancellationError())).isCancelled)
    #expect(!OperationStatus<Int, any Error>.result(.failure(TestError())).isCancelled)
    #expect(!OperationStatus<Int, any Error>.result(.success(1)).isCancelled)
    #expect(!OperationStatus<Int, any Error>.loading.isCancelled)
    #expect(!OperationStatus<Int, any Error>.idle.isCancelled)
  }

  @Test func `Query State Status Goes From Idle To Loading To Success To Failure`() async throws {
    let store = OperationStore.detached(
      query: ScriptedQuery([.success(1), .failure(TestError())]),
      initialValue: nil
    )
    store.context.operationClock = IncrementingOperationClock()
    #expect(store.status.isIdle)

    let task = store.fetchTask()
    #expect(store.status.isLoading)

    try await task.runIfNeeded()
    #expect(store.status.resultValue == 1)

    await #expect(throws: TestError()) { try await store.fetch() }
    #expect(store.status.resultError as? TestError == TestError())
  }

  @Test func `Query State Status Is The Newest Of Value And Error`() async throws {
    let clock = ManualOperationClock()
    let store = OperationStore.detached(query: TestQuery(), initialValue: nil)
    store.context.operationClock = clock

    store.setResult(to: .failure(TestError()))
    clock.advance(by: 1)
    try await store.fetch()
    #expect(store.status.resultValue == 1)

    clock.advance(by: 1)
    store.setResult(to: .failure(TestError()))
    #expect(store.status.isFailure)
    #expect(store.currentValue == 1)
  }

  @Test func `Query State Status Is Idle While The Value Is Nil`() {
    let store = OperationStore.detached(query: TestQuery(), initialValue: 1)
    store.currentValue = nil
    #expect(store.valueUpdateCount == 1)
    #expect(store.status.isIdle)
  }
}
