import OperationTestSupport
import Processed
import Testing

// The rules of a run, which `ProcessSupport` shares with every way to drive a state, are tested
// once for all of them in `StateControllerTests` and `InterruptsTests`.

@MainActor
@Suite struct `ProcessSupport tests` {
  @Test func `A Single Process Run Starts A New Process Each Time`() async {
    let container = ProcessContainer()
    await container.run(\.process) {}
    let firstProcess = container.process.process
    await container.run(\.process) {}
    let secondProcess = container.process.process
    #expect(container.history.count == 5)
    #expect(container.process.hasFinished)
    #expect(firstProcess != nil)
    #expect(firstProcess != secondProcess)
  }

  @Test func `A Single Process Run With Interrupts Fails With The Interrupt Error`() async {
    let container = ProcessContainer()
    let interrupts = ManualDelayer()
    let work = ManualDelayer()
    let task: Task<Void, Never> = container.run(
      \.process,
      interrupts: [.seconds(1)],
      delayer: interrupts
    ) {
      try await work.delay(for: .seconds(2))
    } onInterrupt: { _ in
      throw TimeoutError()
    }
    await interrupts.waitForDelays(count: 1)
    interrupts.resumeNext()
    await task.value
    #expect(container.process.hasFailed)
    #expect(container.process.error as? TimeoutError == TimeoutError())
  }

  @Test func `Processes Of Any Kind Run`() async {
    let model = ActionModel()
    await model.run(\.action, as: .delete) {}
    #expect(model.action.hasFinished(.delete))
    await model.run(\.action, as: .save) { throw TestError() }
    #expect(model.action.hasFailed(.save))
  }
}

@MainActor
private final class ActionModel: ProcessSupport {
  enum Action { case save, delete }

  var action = ProcessState<Action>.idle
}
