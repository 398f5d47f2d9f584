import Foundation
@_spi(Warnings) import OperationCore
import OperationTestSupport
import Testing

@Suite struct `MutationState tests` {
  private typealias State = MutationState<String, Int, any Error>
  private typealias Task = OperationTask<MutationOperationValue<Int>, any Error>

  private func task(arguments: String?, clock: ManualOperationClock = ManualOperationClock())
    -> Task
  {
    var context = OperationContext()
    context.operationClock = clock
    if let arguments {
      context.setMutationArguments(arguments)
    }
    return Task(context: context) { _, _ in MutationOperationValue(returnValue: 1) }
  }

  @Test func `A New State Shows Its Initial Value And Is Idle`() {
    let state = State(initialValue: 3)
    #expect(state.currentValue == 3)
    #expect(state.initialValue == 3)
    #expect(state.history.isEmpty)
    #expect(!state.isLoading)
    #expect(state.error == nil)
    #expect(state.valueUpdateCount == 0)
    #expect(state.errorUpdateCount == 0)
    #expect(state.status.isIdle)
  }

  @Test func `Scheduling Records The Arguments And The Start Date`() {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 7))
    var state = State()
    var task = self.task(arguments: "a", clock: clock)
    state.scheduleFetchTask(&task)
    #expect(state.history.map(\.arguments) == ["a"])
    #expect(state.history[0].startDate == Date(timeIntervalSince1970: 7))
    #expect(state.history[0].id == task.id)
    #expect(state.isLoading)
  }

  @Test func `Scheduling Without Arguments Takes The Latest Entry's`() {
    var state = State()
    var first = self.task(arguments: "a")
    state.scheduleFetchTask(&first)
    var second = self.task(arguments: "b")
    state.scheduleFetchTask(&second)
    var retry = self.task(arguments: nil)
    state.scheduleFetchTask(&retry)
    #expect(state.history.map(\.arguments) == ["a", "b", "b"])
    #expect(retry.context.mutationArguments(as: String.self) == "b")
  }

  @Test func `Scheduling With Neither Reports And Swaps The Task For A Failing One`() async {
    var state = State()
    var task = self.task(arguments: nil)
    let original = task.id
    withKnownIssue {
      state.scheduleFetchTask(&task)
    } matching: { issue in
      issue.comments.contains(
        Comment(rawValue: OperationWarning.mutationWithNoArgumentsOrHistory.message)
      )
    }
    #expect(task.id != original)
    #expect(state.history.isEmpty)
    #expect(!state.isLoading)
    await #expect(throws: MutationArgumentsMissingError()) { try await task.runIfNeeded() }
  }

  @Test func `Results Of Tasks Outside The History Are Ignored`() {
    var state = State()
    let stranger = self.task(arguments: "x")
    state.update(with: .success(MutationOperationValue(returnValue: 9)), for: stranger)
    state.update(with: .failure(TestError()), for: stranger)
    state.finishFetchTask(stranger)
    #expect(state.currentValue == nil)
    #expect(state.valueUpdateCount == 0)
    #expect(state.errorUpdateCount == 0)
    #expect(state.history.isEmpty)
  }

  @Test func `An Entry Finishes With Its Latest Result`() {
    let clock = ManualOperationClock()
    var state = State()
    var task = self.task(arguments: "a", clock: clock)
    state.scheduleFetchTask(&task)
    state.update(with: .success(MutationOperationValue(returnValue: 1)), for: task)
    #expect(state.history[0].status.isLoading)
    #expect(state.currentValue == nil)
    state.update(with: .success(MutationOperationValue(returnValue: 2)), for: task)
    state.finishFetchTask(task)
    #expect(state.history[0].status.resultValue == 2)
    #expect(state.currentValue == 2)
    #expect(state.valueUpdateCount == 2)
  }

  @Test func `Reset Returns The Tasks To Cancel`() async {
    var state = State(initialValue: 5)
    var task = self.task(arguments: "a")
    state.scheduleFetchTask(&task)
    state.update(with: .success(1), using: OperationContext())
    let effect = state.reset(using: OperationContext())
    #expect(state.history.isEmpty)
    #expect(state.currentValue == 5)
    #expect(state.valueUpdateCount == 0)
    #expect(!task.isCancelled)
    effect.tasksCancellable.cancel()
    #expect(task.isCancelled)
  }

  @Test func `A Default Value State Is A Mutation State`() {
    typealias Wrapped = DefaultOperationState<State>
    var state = Wrapped(State(), defaultValue: 0)
    var task = self.task(arguments: "a")
    state.scheduleFetchTask(&task)
    #expect(state.history.map(\.arguments) == ["a"])
    #expect(state.currentValue == 0)
    func isMutationState(_ type: any Any.Type) -> Bool {
      type is any _MutationStateProtocol.Type
    }
    #expect(isMutationState(Wrapped.self))
    #expect(isMutationState(State.self))
    #expect(!isMutationState(QueryState<Int, any Error>.self))
    #expect(!isMutationState(DefaultOperationState<QueryState<Int, any Error>>.self))
  }

  @Test func `Results Of An Earlier Attempt Update Its Own Entry Only`() {
    var state = State()
    var first = self.task(arguments: "a")
    state.scheduleFetchTask(&first)
    var second = self.task(arguments: "b")
    state.scheduleFetchTask(&second)
    state.update(with: .success(MutationOperationValue(returnValue: 1)), for: first)
    state.finishFetchTask(first)
    #expect(state.history[0].status.resultValue == 1)
    #expect(state.history[1].status.isLoading)
    #expect(state.valueUpdateCount == 0)
    #expect(state.isLoading)

    state.update(with: .success(MutationOperationValue(returnValue: 2)), for: second)
    state.finishFetchTask(second)
    #expect(state.history[1].status.resultValue == 2)
    #expect(state.currentValue == 2)
    #expect(state.valueUpdateCount == 1)
    #expect(!state.isLoading)
  }

  @Test func `A Copy Of The State Keeps Its Entries As They Were When Copied`() {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 1))
    var state = State()
    var task = self.task(arguments: "a", clock: clock)
    state.scheduleFetchTask(&task)
    let beforeResult = state
    clock.date = Date(timeIntervalSince1970: 2)
    state.update(with: .success(MutationOperationValue(returnValue: 5)), for: task)
    let beforeFinish = state
    state.finishFetchTask(task)

    #expect(beforeResult.history[0].currentResult == nil)
    #expect(beforeResult.history[0].lastUpdatedAt == nil)
    #expect(beforeResult.history[0].status.isLoading)
    #expect(beforeFinish.history[0].currentResult.flatMap { try? $0.get() } == 5)
    #expect(beforeFinish.history[0].status.isLoading)
    #expect(state.history[0].status.resultValue == 5)
    #expect(state.history[0].lastUpdatedAt == Date(timeIntervalSince1970: 2))
  }

  @Test func `A Full History Drops Its Oldest Attempt For Each New One`() {
    var state = State()
    var tasks = [Task]()
    for argument in ["a", "b", "c", "d"] {
      var task = self.task(arguments: argument)
      task.context.maxHistoryLength = 2
      state.scheduleFetchTask(&task)
      tasks.append(task)
    }
    #expect(state.history.map(\.arguments) == ["c", "d"])
    #expect(state.history.map(\.id) == [tasks[2].id, tasks[3].id])
    state.update(with: .success(MutationOperationValue(returnValue: 1)), for: tasks[0])
    state.update(with: .success(MutationOperationValue(returnValue: 3)), for: tasks[2])
    #expect(state.history[0].currentResult.flatMap { try? $0.get() } == 3)
    #expect(state.valueUpdateCount == 0)
  }
}
