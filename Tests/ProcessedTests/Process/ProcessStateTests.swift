import Processed
import Testing

@Suite struct `ProcessState tests` {
  enum Action: Hashable { case save, delete }

  @Test func `Start Sets Running Whatever The State`() {
    var state = ProcessState<Action>.finished(.delete)
    state.start(.save)
    #expect(state == .running(.save))
  }

  @Test func `Finish And Fail Only Move A Running State`() {
    var state = ProcessState<Action>.idle
    state.finish()
    #expect(state == .idle)
    state.fail(with: TestError())
    #expect(state == .idle)

    state.start(.save)
    state.finish()
    #expect(state == .finished(.save))
    state.fail(with: TestError())
    #expect(state == .finished(.save))

    state.start(.delete)
    state.fail(with: TestError())
    #expect(state == .failed(process: .delete, error: TestError()))
    state.finish()
    #expect(state.hasFailed(.delete))
  }

  @Test func `Setters Assign Each Case`() {
    var state = ProcessState<Action>.idle
    state.setRunning(.save)
    #expect(state == .running(.save))
    state.setFailed(.save, error: TestError())
    #expect(state == .failed(process: .save, error: TestError()))
    state.setFinished(.delete)
    #expect(state == .finished(.delete))
    state.setIdle()
    #expect(state == .idle)
    state.setRunning(.save)
    state.reset()
    #expect(state == .idle)
  }

  @Test func `Single Process Setters Create New Processes`() {
    var state = SingleProcessState.idle
    state.start()
    #expect(state.isRunning)
    let started = state.process
    state.setRunning()
    #expect(state.isRunning)
    #expect(state.process != started)
    state.setFinished()
    #expect(state.hasFinished)
    state.setFailed(with: TestError())
    #expect(state.hasFailed)
    #expect(state.error as? TestError == TestError())
  }

  @Test func `Case Checks Match Only Their Case`() {
    let states: [ProcessState<Action>] = [
      .idle, .running(.save), .failed(process: .save, error: TestError()), .finished(.save),
    ]
    #expect(states.map(\.isIdle) == [true, false, false, false])
    #expect(states.map(\.isRunning) == [false, true, false, false])
    #expect(states.map(\.hasFailed) == [false, false, true, false])
    #expect(states.map(\.hasFinished) == [false, false, false, true])
    #expect(states.map(\.process) == [nil, .save, .save, .save])
    #expect(states.map { $0.error as? TestError } == [nil, nil, TestError(), nil])
  }

  @Test func `Process Checks Compare The Process`() {
    #expect(ProcessState<Action>.running(.save).isRunning(.save))
    #expect(!ProcessState<Action>.running(.save).isRunning(.delete))
    #expect(ProcessState<Action>.failed(process: .save, error: TestError()).hasFailed(.save))
    #expect(!ProcessState<Action>.failed(process: .save, error: TestError()).hasFailed(.delete))
    #expect(ProcessState<Action>.finished(.delete).hasFinished(.delete))
    #expect(!ProcessState<Action>.finished(.delete).hasFinished(.save))
    #expect(!ProcessState<Action>.idle.isRunning(.save))
  }

  @Test func `Equality Ignores The Error Of A Failure`() {
    #expect(
      ProcessState<Action>.failed(process: .save, error: TestError())
        == .failed(process: .save, error: TimeoutError())
    )
    #expect(
      ProcessState<Action>.failed(process: .save, error: TestError())
        != .failed(process: .delete, error: TestError())
    )
    #expect(ProcessState<Action>.running(.save) != .finished(.save))
  }

  @Test func `Debug Descriptions Name The Case And Its Process`() {
    let process = SingleProcess(id: "1")
    #expect(SingleProcessState.idle.debugDescription == "idle")
    #expect(SingleProcessState.running(process).debugDescription == "running(1)")
    #expect(SingleProcessState.finished(process).debugDescription == "finished(1)")
    let failed = SingleProcessState.failed(process: process, error: TestError()).debugDescription
    #expect(failed.hasPrefix("failed(1, "))
  }
}
