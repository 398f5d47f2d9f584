import Foundation
import Operation
@_spi(Warnings) import OperationCore
import OperationSynchronization
import OperationTestSupport
import Testing

// Pins every behaviour of upstream's MutationsTests/MutationStoreTests.swift (reference §17),
// with this package's decisions where they differ: running without arguments or history fails
// with MutationArgumentsMissingError instead of trapping, and events end with `mutatingEnded`
// before the final `stateChanged`, as every store event does here.

@Suite struct `OperationStore+Mutation tests` {
  private typealias State = MutationState<String, String, any Error>

  // MARK: - Results and history

  @Test func `Mutate Returns The Value And Shows It`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation())
    let value = try await store.mutate(with: "blob")
    #expect(value == "blob")
    #expect(store.currentValue == "blob")
    #expect(store.valueUpdateCount == 1)
    #expect(store.status.resultValue == "blob")
  }

  @Test func `Mutate Adds Each Attempt To The History`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation())
    try await store.mutate(with: "blob")
    #expect(store.history.count == 1)
    #expect(store.history[0].arguments == "blob")
    #expect(store.history[0].status.isSuccessful)

    try await store.mutate(with: "blob jr")
    #expect(store.history.map(\.arguments) == ["blob", "blob jr"])
    #expect(store.history.map(\.status.resultValue) == ["blob", "blob jr"])
    #expect(store.history.map { try? $0.currentResult?.get() } == ["blob", "blob jr"])
  }

  @Test func `The Store Is Loading From Scheduling Until The Attempt Ends`() async throws {
    let mutation = GatedMutation()
    let store = OperationStore.detached(mutation: mutation)
    let task = store.mutateTask(with: "blob")
    #expect(store.isLoading)
    #expect(store.status.isLoading)

    let running = Task { try await task.runIfNeeded() }
    await mutation.gates.waitUntilStarted("blob")
    #expect(store.isLoading)
    #expect(store.history.count == 1)
    #expect(store.history[0].status.isLoading)
    #expect(store.history[0].arguments == "blob")
    #expect(store.history[0].currentResult == nil)

    mutation.gates.release("blob")
    #expect(try await running.value == "blob")
    #expect(!store.isLoading)
    #expect(!store.history[0].status.isLoading)
  }

  @Test func `A Failed Attempt Throws And Sets The Error`() async {
    let store = OperationStore.detached(mutation: EchoMutation(failingArguments: ["blob"]))
    await #expect(throws: TestError(message: "Failed for blob.")) {
      try await store.mutate(with: "blob")
    }
    #expect(store.error as? TestError == TestError(message: "Failed for blob."))
    #expect(store.errorUpdateCount == 1)
    #expect(store.currentValue == nil)
    #expect(store.status.isFailure)
  }

  @Test func `A Failed Attempt Has A Failure Status In The History`() async {
    let store = OperationStore.detached(mutation: EchoMutation(failingArguments: ["blob"]))
    _ = try? await store.mutate(with: "blob")
    #expect(store.history.count == 1)
    #expect(store.history[0].status.isFailure)
    #expect(store.history[0].arguments == "blob")
  }

  @Test func `An Attempt's Task Can Be Awaited On Its Own`() async throws {
    let mutation = GatedMutation()
    let store = OperationStore.detached(mutation: mutation)
    _ = store.mutateTask(with: "blob")
    let entryTask = store.history[0].task
    #expect(entryTask.id == store.history[0].id)

    mutation.gates.release("blob jr")
    try await store.mutate(with: "blob jr")
    #expect(store.history.map(\.status.isLoading) == [true, false])

    mutation.gates.release("blob")
    #expect(try await entryTask.runIfNeeded() == "blob")
    #expect(store.history.map(\.status.isLoading) == [false, false])
    #expect(store.history.map(\.status.resultValue) == ["blob", "blob jr"])
  }

  // MARK: - Dates

  @Test func `An Attempt Is Dated From Its Scheduling To Its Last Result`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 100))
    let store = OperationStore.detached(mutation: EchoMutation())
    store.context.operationClock = clock
    let task = store.mutateTask(with: "blob")
    #expect(store.history[0].startDate == Date(timeIntervalSince1970: 100))
    #expect(store.history[0].lastUpdatedAt == nil)

    clock.advance(by: 5)
    try await task.runIfNeeded()
    #expect(store.history[0].startDate == Date(timeIntervalSince1970: 100))
    #expect(store.history[0].lastUpdatedAt == Date(timeIntervalSince1970: 105))
  }

  @Test func `The Latest Attempt's Value Date Is The State's`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation())
    store.context.operationClock = IncrementingOperationClock()
    try await store.mutate(with: "blob")
    #expect(store.history[0].lastUpdatedAt != nil)
    #expect(store.history[0].lastUpdatedAt == store.valueLastUpdatedAt)
  }

  @Test func `The Latest Attempt's Error Date Is The State's`() async {
    let store = OperationStore.detached(mutation: EchoMutation(failingArguments: ["blob"]))
    store.context.operationClock = IncrementingOperationClock()
    _ = try? await store.mutate(with: "blob")
    #expect(store.history[0].lastUpdatedAt != nil)
    #expect(store.history[0].lastUpdatedAt == store.errorLastUpdatedAt)
  }

  // MARK: - The latest attempt wins

  @Test func `The Value Follows The Latest Attempt`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation())
    let first = store.mutateTask(with: "blob")
    let second = store.mutateTask(with: "blob jr")

    try await first.runIfNeeded()
    #expect(store.isLoading)
    #expect(store.currentValue == nil)
    #expect(store.history[0].status.resultValue == "blob")

    try await second.runIfNeeded()
    #expect(!store.isLoading)
    #expect(store.currentValue == "blob jr")
  }

  @Test func `Value Counters And Dates Count Only The Latest Attempt`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 10))
    let store = OperationStore.detached(mutation: EchoMutation())
    store.context.operationClock = clock
    let first = store.mutateTask(with: "blob")
    let second = store.mutateTask(with: "blob jr")

    try await first.runIfNeeded()
    #expect(store.valueUpdateCount == 0)
    #expect(store.valueLastUpdatedAt == nil)

    clock.advance(by: 10)
    try await second.runIfNeeded()
    #expect(store.valueUpdateCount == 1)
    #expect(store.valueLastUpdatedAt == Date(timeIntervalSince1970: 20))
  }

  @Test func `The Error Follows The Latest Attempt`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation(failingArguments: ["blob jr"]))
    let first = store.mutateTask(with: "blob")
    let second = store.mutateTask(with: "blob jr")

    try await first.runIfNeeded()
    #expect(store.isLoading)
    #expect(store.error == nil)

    await #expect(throws: TestError.self) { try await second.runIfNeeded() }
    #expect(!store.isLoading)
    #expect(store.error as? TestError == TestError(message: "Failed for blob jr."))
    #expect(store.currentValue == nil)
  }

  @Test func `Error Counters And Dates Count Only The Latest Attempt`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 10))
    let store = OperationStore.detached(
      mutation: EchoMutation(failingArguments: ["blob", "blob jr"])
    )
    store.context.operationClock = clock
    let first = store.mutateTask(with: "blob")
    let second = store.mutateTask(with: "blob jr")

    _ = try? await first.runIfNeeded()
    #expect(store.errorUpdateCount == 0)
    #expect(store.errorLastUpdatedAt == nil)
    #expect(store.error == nil)

    clock.advance(by: 10)
    _ = try? await second.runIfNeeded()
    #expect(store.errorUpdateCount == 1)
    #expect(store.errorLastUpdatedAt == Date(timeIntervalSince1970: 20))
  }

  // MARK: - No automatic running

  @Test func `A Detached Mutation Store Does Not Run By Itself`() {
    let mutation = EchoMutation()
    let store = OperationStore.detached(mutation: mutation)
    #expect(!store.isAutomaticRunningEnabled)
    let subscription = store.subscribe(with: MutationEventHandler())
    #expect(store.history.isEmpty)
    #expect(!store.isLoading)
    #expect(mutation.attempts.value == 0)
    subscription.cancel()
  }

  @Test func `A Client's Mutation Store Does Not Run By Itself`() {
    let client = OperationClient()
    let mutation = EchoMutation()
    let store = client.store(for: mutation)
    #expect(!store.isAutomaticRunningEnabled)
    let subscription = store.subscribe(with: MutationEventHandler())
    #expect(store.history.isEmpty)
    #expect(mutation.attempts.value == 0)
    subscription.cancel()
  }

  // MARK: - Running without arguments or history

  @Test func `Run Without Arguments Or History Fails Without Running`() async {
    let mutation = EchoMutation()
    let store = OperationStore.detached(mutation: mutation)
    let recorder = OperationEventRecorder<State>()
    await withKnownIssue {
      await #expect(throws: MutationArgumentsMissingError()) {
        try await store.run(handler: recorder.eventHandler())
      }
    } matching: { issue in
      issue.comments.contains(
        Comment(rawValue: OperationWarning.mutationWithNoArgumentsOrHistory.message)
      )
    }
    #expect(mutation.attempts.value == 0)
    #expect(store.history.isEmpty)
    #expect(!store.isLoading)
    #expect(store.error == nil)
    #expect(store.errorUpdateCount == 0)
    #expect(store.status.isIdle)
    #expect(recorder.events == [.stateChanged])
  }

  @Test func `Retry Latest Without History Fails Without Running`() async throws {
    let mutation = EchoMutation()
    let store = OperationStore.detached(mutation: mutation)
    await withKnownIssue {
      await #expect(throws: MutationArgumentsMissingError()) {
        try await store.retryLatest()
      }
    } matching: { issue in
      issue.comments.contains(
        Comment(rawValue: OperationWarning.mutationWithNoArgumentsOrHistory.message)
      )
    }
    #expect(mutation.attempts.value == 0)
    #expect(store.history.isEmpty)

    try await store.mutate(with: "blob")
    #expect(try await store.retryLatest() == "blob")
  }

  @Test func `Retry Latest Without History Is Not Retried Or Delayed`() async {
    let delayer = RecordingDelayer()
    let client = OperationClient(
      storeCreator: .default(retryLimit: 3, backoff: .linear(.seconds(1)), delayer: delayer)
    )
    let mutation = EchoMutation()
    let store = client.store(for: mutation)
    await withKnownIssue {
      let task = store.retryLatestTask()
      await #expect(throws: MutationArgumentsMissingError()) { try await task.runIfNeeded() }
    } matching: { issue in
      issue.comments.contains(
        Comment(rawValue: OperationWarning.mutationWithNoArgumentsOrHistory.message)
      )
    }
    #expect(delayer.delays.isEmpty)
    #expect(mutation.attempts.value == 0)
  }

  @Test func `A Mutation Failing With The Error Type Itself Fails Without Arguments`() async {
    let store = OperationStore.detached(mutation: TypedFailureMutation())
    await withKnownIssue {
      await #expect(throws: MutationArgumentsMissingError()) {
        try await store.retryLatest()
      }
    } matching: { issue in
      issue.comments.contains(
        Comment(rawValue: OperationWarning.mutationWithNoArgumentsOrHistory.message)
      )
    }
    #expect(store.history.isEmpty)
  }

  // MARK: - Reusing the latest arguments

  @Test func `Run Repeats The Latest Attempt's Arguments`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation())
    try await store.mutate(with: "blob")
    let value = try await store.run()
    #expect(value.returnValue == "blob")
    #expect(store.currentValue == "blob")
    #expect(store.history.map(\.arguments) == ["blob", "blob"])
  }

  @Test func `Retry Latest Repeats The Latest Attempt's Arguments`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation())
    try await store.mutate(with: "blob")
    try await store.mutate(with: "blob jr")
    #expect(try await store.retryLatest() == "blob jr")
    #expect(store.history.map(\.arguments) == ["blob", "blob jr", "blob jr"])
  }

  @Test func `Retry Latest Ignores Arguments In Its Context`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation())
    let recorder = MutationEventRecorder<State>()
    try await store.mutate(with: "blob", handler: recorder.eventHandler())
    let contextWithArguments = try #require(recorder.contexts.dropFirst().first)
    try await store.mutate(with: "blob jr")

    #expect(try await store.retryLatest(using: contextWithArguments) == "blob jr")
    #expect(try await store.retryLatestTask(using: contextWithArguments).runIfNeeded() == "blob jr")
  }

  @Test func `Run With A Context That Has Arguments Uses Them`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation())
    let recorder = MutationEventRecorder<State>()
    try await store.mutate(with: "blob", handler: recorder.eventHandler())
    let contextWithArguments = try #require(recorder.contexts.dropFirst().first)
    try await store.mutate(with: "blob jr")

    #expect(try await store.run(using: contextWithArguments).returnValue == "blob")
  }

  // MARK: - Events

  @Test func `Mutate Delivers Its Events With The Arguments`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation())
    let recorder = MutationEventRecorder<State>()
    try await store.mutate(with: "blob", handler: recorder.eventHandler())
    #expect(
      recorder.events == [
        .stateChanged,
        .mutatingStarted("blob"),
        .mutationResultReceived("blob", .success("blob")),
        .mutatingEnded("blob"),
        .stateChanged,
      ]
    )
    #expect(recorder.states.map(\.isLoading) == [true, false])
    #expect(recorder.contexts[2].operationResultUpdateReason == .returnedFinalResult)
  }

  @Test func `A Failed Mutation Delivers Its Events`() async {
    let store = OperationStore.detached(mutation: EchoMutation(failingArguments: ["blob"]))
    let recorder = MutationEventRecorder<State>()
    _ = try? await store.mutate(with: "blob", handler: recorder.eventHandler())
    #expect(
      recorder.events == [
        .stateChanged,
        .mutatingStarted("blob"),
        .mutationResultReceived("blob", .failure(TestError(message: "Failed for blob."))),
        .mutatingEnded("blob"),
        .stateChanged,
      ]
    )
  }

  @Test func `A Subscriber Receives The Current State And Then The Events`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation())
    let recorder = MutationEventRecorder<State>()
    let subscription = store.subscribe(with: recorder.eventHandler())
    #expect(store.subscriberCount == 1)
    try await store.mutate(with: "blob")
    #expect(
      recorder.events == [
        .stateChanged,
        .stateChanged,
        .mutatingStarted("blob"),
        .mutationResultReceived("blob", .success("blob")),
        .mutatingEnded("blob"),
        .stateChanged,
      ]
    )
    subscription.cancel()
    #expect(store.subscriberCount == 0)
  }

  @Test func `Retry Latest Delivers Its Events With The Latest Arguments`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation())
    try await store.mutate(with: "blob")
    let recorder = MutationEventRecorder<State>()
    try await store.retryLatest(handler: recorder.eventHandler())
    #expect(
      recorder.events == [
        .stateChanged,
        .mutatingStarted("blob"),
        .mutationResultReceived("blob", .success("blob")),
        .mutatingEnded("blob"),
        .stateChanged,
      ]
    )
  }

  // MARK: - Yields

  @Test func `Yielded Values Arrive As Events And Update The Entry`() async throws {
    let store = OperationStore.detached(
      mutation: YieldingMutation(yields: [.success("a"), .success("b"), .success("c")])
    )
    let recorder = MutationEventRecorder<State>()
    let value = try await store.mutate(with: "foo", handler: recorder.eventHandler())
    #expect(value == "foo!")
    #expect(
      recorder.events == [
        .stateChanged,
        .mutatingStarted("foo"),
        .mutationResultReceived("foo", .success("a")),
        .stateChanged,
        .mutationResultReceived("foo", .success("b")),
        .stateChanged,
        .mutationResultReceived("foo", .success("c")),
        .stateChanged,
        .mutationResultReceived("foo", .success("foo!")),
        .mutatingEnded("foo"),
        .stateChanged,
      ]
    )
    let whileYielding = recorder.states.dropFirst().prefix(3)
    #expect(whileYielding.map { try? $0.history[0].currentResult?.get() } == ["a", "b", "c"])
    #expect(whileYielding.allSatisfy { $0.isLoading && $0.currentValue == nil })
    #expect(whileYielding.map(\.valueUpdateCount) == [1, 2, 3])
    #expect(store.valueUpdateCount == 4)
    #expect(store.currentValue == "foo!")
    #expect(recorder.contexts[2].operationResultUpdateReason == .yieldedResult)
  }

  @Test func `A Yielded Error Then A Value Ends Without An Error`() async throws {
    let store = OperationStore.detached(mutation: YieldingMutation(yields: [.failure(TestError())]))
    let recorder = MutationEventRecorder<State>()
    let value = try await store.mutate(with: "foo", handler: recorder.eventHandler())
    #expect(value == "foo!")
    #expect(
      recorder.events == [
        .stateChanged,
        .mutatingStarted("foo"),
        .mutationResultReceived("foo", .failure(TestError())),
        .stateChanged,
        .mutationResultReceived("foo", .success("foo!")),
        .mutatingEnded("foo"),
        .stateChanged,
      ]
    )
    #expect(store.error == nil)
    #expect(store.errorUpdateCount == 1)
    #expect(store.errorLastUpdatedAt != nil)
  }

  @Test func `A Yielded Value Then A Thrown Error Ends With The Error`() async {
    let store = OperationStore.detached(
      mutation: YieldingMutation(yields: [.success("a")], finalError: TestError())
    )
    let recorder = MutationEventRecorder<State>()
    let value = try? await store.mutate(with: "foo", handler: recorder.eventHandler())
    #expect(value == nil)
    #expect(
      recorder.events == [
        .stateChanged,
        .mutatingStarted("foo"),
        .mutationResultReceived("foo", .success("a")),
        .stateChanged,
        .mutationResultReceived("foo", .failure(TestError())),
        .mutatingEnded("foo"),
        .stateChanged,
      ]
    )
    #expect(store.error as? TestError == TestError())
    #expect(store.currentValue == nil)
  }

  @Test func `A Yield With Its Own Context Still Carries The Arguments`() async throws {
    let store = OperationStore.detached(
      mutation: YieldingMutation(yields: [.success("a")], yieldsWithFreshContext: true)
    )
    let recorder = MutationEventRecorder<State>()
    try await store.mutate(with: "foo", handler: recorder.eventHandler())
    #expect(recorder.events.contains(.mutationResultReceived("foo", .success("a"))))
  }

  // MARK: - Task names

  @Test func `Mutate Tasks Are Named After The Store`() {
    let store = OperationStore.detached(mutation: EchoMutation())
    #expect(
      store.mutateTask(with: "blob").configuration.name
        == "OperationStore<MutationState<String, String, Error>> Mutate Task"
    )
  }

  @Test func `Retry Latest Tasks Are Named After The Store`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation())
    try await store.mutate(with: "blob")
    #expect(
      store.retryLatestTask().configuration.name
        == "OperationStore<MutationState<String, String, Error>> Retry Latest Task"
    )
  }

  @Test func `A Named Context Keeps Its Task Name`() {
    let store = OperationStore.detached(mutation: EchoMutation())
    var context = store.context
    context.operationTaskConfiguration.name = "Create"
    #expect(store.mutateTask(with: "blob", using: context).configuration.name == "Create")
  }

  // MARK: - Direct values and errors

  @Test func `The Newer Of A Direct Value And The Latest Attempt Wins`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 0))
    let store = OperationStore.detached(mutation: EchoMutation())
    store.context.operationClock = clock

    try await store.mutate(with: "blob")
    #expect(store.currentValue == "blob")
    #expect(store.valueLastUpdatedAt == Date(timeIntervalSince1970: 0))
    #expect(store.valueUpdateCount == 1)

    clock.advance(by: 1000)
    store.currentValue = "test"
    #expect(store.currentValue == "test")
    #expect(store.valueLastUpdatedAt == Date(timeIntervalSince1970: 1000))
    #expect(store.valueUpdateCount == 2)

    clock.advance(by: 1000)
    try await store.mutate(with: "foo")
    #expect(store.currentValue == "foo")
    #expect(store.valueLastUpdatedAt == Date(timeIntervalSince1970: 2000))
    #expect(store.valueUpdateCount == 3)
  }

  @Test func `The Newer Of A Direct Error And The Latest Attempt Wins`() async {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 0))
    let store = OperationStore.detached(
      mutation: EchoMutation(failingArguments: ["blob", "foo"])
    )
    store.context.operationClock = clock

    _ = try? await store.mutate(with: "blob")
    #expect(store.error as? TestError == TestError(message: "Failed for blob."))
    #expect(store.errorLastUpdatedAt == Date(timeIntervalSince1970: 0))
    #expect(store.errorUpdateCount == 1)

    clock.advance(by: 1000)
    store.setResult(to: .failure(TestError(message: "Direct.")))
    #expect(store.error as? TestError == TestError(message: "Direct."))
    #expect(store.errorLastUpdatedAt == Date(timeIntervalSince1970: 1000))
    #expect(store.errorUpdateCount == 2)

    clock.advance(by: 1000)
    _ = try? await store.mutate(with: "foo")
    #expect(store.error as? TestError == TestError(message: "Failed for foo."))
    #expect(store.errorLastUpdatedAt == Date(timeIntervalSince1970: 2000))
    #expect(store.errorUpdateCount == 3)
  }

  @Test func `Order Decides Between Updates With The Same Date`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation())
    store.context.operationClock = ManualOperationClock()
    store.currentValue = "direct"
    try await store.mutate(with: "blob")
    #expect(store.currentValue == "blob")
    store.currentValue = "direct again"
    #expect(store.currentValue == "direct again")
  }

  @Test func `A Direct Value Shows While A Later Attempt Runs`() async throws {
    let mutation = GatedMutation()
    let store = OperationStore.detached(mutation: mutation)
    mutation.gates.release("blob")
    try await store.mutate(with: "blob")
    store.currentValue = "direct"

    let task = store.mutateTask(with: "blob jr")
    #expect(store.isLoading)
    #expect(store.currentValue == "direct")

    mutation.gates.release("blob jr")
    try await task.runIfNeeded()
    #expect(store.currentValue == "blob jr")
  }

  @Test func `A Direct Error Keeps The Value And A Direct Value Clears The Error`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation(failingArguments: ["bad"]))
    try await store.mutate(with: "blob")
    store.setResult(to: .failure(TestError()))
    #expect(store.currentValue == "blob")
    #expect(store.error as? TestError == TestError())

    store.currentValue = "direct"
    #expect(store.currentValue == "direct")
    #expect(store.error == nil)

    _ = try? await store.mutate(with: "bad")
    #expect(store.currentValue == nil)
    #expect(store.error as? TestError == TestError(message: "Failed for bad."))
  }

  @Test func `An Attempt That Finishes After A Direct Error Clears It`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation())
    store.setResult(to: .failure(TestError()))
    #expect(store.error != nil)
    try await store.mutate(with: "blob")
    #expect(store.error == nil)
    #expect(store.currentValue == "blob")
  }

  @Test func `A Controller Yield Counts As A Direct Value`() async throws {
    let controller = MutationControlsCatcher()
    let store = OperationStore.detached(mutation: EchoMutation().controlled(by: controller))
    try await store.mutate(with: "blob")
    controller.controls.withLock { $0?.yield("pushed") }
    #expect(store.currentValue == "pushed")
    #expect(store.valueUpdateCount == 2)
  }

  // MARK: - Reset

  @Test func `Reset Empties The History`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation())
    try await store.mutate(with: "blob")
    store.resetState()
    #expect(store.history.isEmpty)
  }

  @Test func `Reset Cancels The Attempts In The History`() async {
    let store = OperationStore.detached(mutation: EchoMutation())
    let task = store.mutateTask(with: "blob")
    store.resetState()
    #expect(!store.isLoading)
    await #expect(throws: CancellationError.self) {
      try await task.runIfNeeded()
    }
    #expect(store.history.isEmpty)
    #expect(store.error == nil)
  }

  @Test func `Reset Restores The Initial Value`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation(), initialValue: "initial")
    try await store.mutate(with: "blob")
    store.currentValue = "direct"
    store.resetState()
    #expect(store.currentValue == "initial")
    #expect(store.valueLastUpdatedAt == nil)
    #expect(store.valueUpdateCount == 0)
    #expect(store.status.isIdle)
  }

  @Test func `Reset Clears The Error`() async {
    let store = OperationStore.detached(mutation: EchoMutation(failingArguments: ["blob"]))
    _ = try? await store.mutate(with: "blob")
    store.setResult(to: .failure(TestError()))
    store.resetState()
    #expect(store.error == nil)
    #expect(store.errorLastUpdatedAt == nil)
    #expect(store.errorUpdateCount == 0)
  }

  // MARK: - Initial value

  @Test func `The Initial Value Shows Before Anything Happens`() {
    let store = OperationStore.detached(mutation: EchoMutation(), initialValue: "blob")
    #expect(store.currentValue == "blob")
    #expect(store.initialValue == "blob")
  }

  @Test func `A Direct Nil Replaces The Initial Value`() {
    let store = OperationStore.detached(mutation: EchoMutation(), initialValue: "blob")
    store.currentValue = nil
    #expect(store.currentValue == nil)
  }

  @Test func `A Mutation Replaces The Initial Value`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation(), initialValue: "blob")
    try await store.mutate(with: "blob jr")
    #expect(store.currentValue == "blob jr")
  }

  @Test func `A Failed Mutation Replaces The Initial Value`() async {
    let store = OperationStore.detached(
      mutation: EchoMutation(failingArguments: ["blob jr"]),
      initialValue: "blob"
    )
    _ = try? await store.mutate(with: "blob jr")
    #expect(store.currentValue == nil)
  }

  @Test func `A Running First Attempt Hides The Initial Value`() {
    let store = OperationStore.detached(mutation: EchoMutation(), initialValue: "blob")
    _ = store.mutateTask(with: "blob jr")
    #expect(store.currentValue == nil)
  }

  @Test func `A Direct Error Keeps The Initial Value`() {
    let store = OperationStore.detached(mutation: EchoMutation(), initialValue: "blob")
    store.setResult(to: .failure(TestError()))
    #expect(store.currentValue == "blob")
  }

  // MARK: - Creation and variants

  @Test func `Detached With An Initial State Starts From It`() {
    let store = OperationStore.detached(
      mutation: EchoMutation(),
      initialState: MutationState(initialValue: "start")
    )
    #expect(store.currentValue == "start")
    #expect(store.path == EchoMutation().path)
  }

  @Test func `A Mutation With A Default Value Shows It While It Has No Value`() async throws {
    let store = OperationStore.detached(
      mutation: EchoMutation(failingArguments: ["bad"]).defaultValue("none")
    )
    let value: String = store.currentValue
    #expect(value == "none")
    try await store.mutate(with: "blob")
    #expect(store.currentValue == "blob")
    #expect(store.history.map(\.arguments) == ["blob"])
    _ = try? await store.mutate(with: "bad")
    #expect(store.currentValue == "none")
    #expect(store.history.map(\.arguments) == ["blob", "bad"])
    #expect(store.error as? TestError == TestError(message: "Failed for bad."))
  }

  @Test func `Void Mutations Run Without Arguments`() async {
    let mutation = CountingVoidMutation()
    let store = OperationStore.detached(mutation: mutation)
    #expect(await store.mutate() == 1)
    #expect(await store.mutateTask().runIfNeeded() == 2)
    #expect(await store.retryLatest() == 3)
    #expect(store.history.count == 3)
    #expect(store.currentValue == 3)
  }

  @Test func `Nil Optional Arguments Count As Arguments`() async throws {
    let store = OperationStore.detached(mutation: TypedFailureMutation())
    #expect(try await store.mutate(with: nil) == 0)
    #expect(try await store.mutate(with: 4) == 8)
    #expect(store.history.map(\.arguments) == [nil, 4])
    #expect(try await store.retryLatest() == 8)
  }

  @Test func `Concurrent Attempts All Run And Join The History`() async throws {
    let mutation = EchoMutation()
    let store = OperationStore.detached(mutation: mutation)
    try await withThrowingTaskGroup { group in
      for index in 0..<20 {
        group.addTask { try await store.mutate(with: "\(index)") }
      }
      try await group.waitForAll()
    }
    #expect(mutation.attempts.value == 20)
    #expect(store.history.count == 20)
    #expect(Set(store.history.map(\.arguments)) == Set((0..<20).map { "\($0)" }))
    #expect(store.currentValue == store.history.last?.arguments)
    #expect(!store.isLoading)
  }
}
