import OperationTestSupport
import Processed
import Testing

@MainActor
@Suite struct `ProcessSupport tests` {
  let process = SingleProcess(id: "1")
  let otherProcess = SingleProcess(id: "2")

  // MARK: - The reference's class tests

  @Test func `Returning Sets Running Then Finished`() async {
    let container = ProcessContainer()
    await container.run(\.process, as: self.process) {}
    #expect(container.history == [.idle, .running(self.process), .finished(self.process)])
  }

  @Test func `Reset Sets Idle`() async {
    let container = ProcessContainer()
    await container.run(\.process, as: self.process) {}
    container.reset(\.process)
    #expect(
      container.history == [.idle, .running(self.process), .finished(self.process), .idle]
    )
  }

  @Test func `Cancelling The Calling Task Leaves Running`() async {
    let container = ProcessContainer()
    let work = ManualDelayer()
    var reachedEnd = false
    let task = Task {
      await container.run(\.process, as: self.process) {
        try await work.delay(for: .seconds(2))
        reachedEnd = true
      }
    }
    task.cancel()
    await task.value
    #expect(container.history == [.idle, .running(self.process)])
    #expect(!reachedEnd)
  }

  @Test func `Throwing CancelProcess Leaves The State`() async {
    let container = ProcessContainer()
    await container.run(\.process, as: self.process) { throw CancelProcess() }
    #expect(container.history == [.idle, .running(self.process)])
  }

  @Test func `Throwing ResetProcess Sets Idle`() async {
    let container = ProcessContainer()
    await container.run(\.process, as: self.process) { throw ResetProcess() }
    #expect(container.history == [.idle, .running(self.process), .idle])
  }

  @Test func `An Error Sets The Failed State`() async {
    let container = ProcessContainer()
    await container.run(\.process, as: self.process) { throw TestError() }
    #expect(
      container.history == [
        .idle, .running(self.process), .failed(process: self.process, error: TestError()),
      ]
    )
    #expect(container.process.error as? TestError == TestError())
  }

  @Test func `A Silent Run Skips Running`() async {
    let container = ProcessContainer()
    await container.run(\.process, as: self.process, silently: true) {}
    #expect(container.history == [.idle, .finished(self.process)])
  }

  @Test func `Running Twice Sets Running Again`() async {
    let container = ProcessContainer()
    await container.run(\.process, as: self.process) {}
    await container.run(\.process, as: self.otherProcess) {}
    #expect(
      container.history == [
        .idle, .running(self.process), .finished(self.process), .running(self.otherProcess),
        .finished(self.otherProcess),
      ]
    )
  }

  @Test func `A Run After A Failure Sets Running Again`() async {
    let container = ProcessContainer()
    await container.run(\.process, as: self.process) { throw TestError() }
    await container.run(\.process, as: self.otherProcess) {}
    #expect(
      container.history == [
        .idle, .running(self.process), .failed(process: self.process, error: TestError()),
        .running(self.otherProcess), .finished(self.otherProcess),
      ]
    )
  }

  // MARK: - Interrupts

  @Test func `An Interrupt That Throws Ends The Run With Its Error`() async {
    let container = ProcessContainer()
    let interrupts = ManualDelayer()
    let work = ManualDelayer()
    let task: Task<Void, Never> = container.run(
      \.process,
      as: self.process,
      interrupts: [.milliseconds(100)],
      delayer: interrupts
    ) {
      try await work.delay(for: .milliseconds(200))
    } onInterrupt: { _ in
      throw TimeoutError()
    }
    await interrupts.waitForDelays(count: 1)
    await work.waitForDelays(count: 1)
    interrupts.resumeNext()
    await task.value
    #expect(
      container.history == [
        .idle, .running(self.process), .failed(process: self.process, error: TimeoutError()),
      ]
    )
    #expect(container.process.error as? TimeoutError == TimeoutError())
    #expect(work.cancelledCount == 1)
  }

  @Test func `An Interrupt After The Block Ended Never Fires`() async {
    let container = ProcessContainer()
    let interrupts = ManualDelayer()
    let work = ManualDelayer()
    var interruptCount = 0
    let task: Task<Void, Never> = container.run(
      \.process,
      as: self.process,
      interrupts: [.milliseconds(200)],
      delayer: interrupts
    ) {
      try await work.delay(for: .milliseconds(100))
    } onInterrupt: { _ in
      interruptCount += 1
      throw TimeoutError()
    }
    await interrupts.waitForDelays(count: 1)
    await work.waitForDelays(count: 1)
    work.resumeNext()
    await task.value
    #expect(container.history == [.idle, .running(self.process), .finished(self.process)])
    #expect(interruptCount == 0)
  }

  @Test func `Interrupts Accumulate Their Delays`() async {
    let container = ProcessContainer()
    let interrupts = ManualDelayer()
    let work = ManualDelayer()
    var accumulatedDelays = [Duration]()
    let task: Task<Void, Never> = container.run(
      \.process,
      as: self.process,
      interrupts: [.milliseconds(100), .milliseconds(300)],
      delayer: interrupts
    ) {
      try await work.delay(for: .milliseconds(500))
    } onInterrupt: { accumulatedDelay in
      accumulatedDelays.append(accumulatedDelay)
      if accumulatedDelay == .milliseconds(400) {
        throw TimeoutError()
      }
    }
    await interrupts.waitForDelays(count: 1)
    interrupts.resumeNext()
    await interrupts.waitForDelays(count: 2)
    interrupts.resumeNext()
    await task.value
    #expect(accumulatedDelays == [.milliseconds(100), .milliseconds(400)])
    #expect(
      container.history == [
        .idle, .running(self.process), .failed(process: self.process, error: TimeoutError()),
      ]
    )
  }

  @Test func `A Second Interrupt Is Not Needed When The Block Ends Before It`() async {
    let container = ProcessContainer()
    let interrupts = ManualDelayer()
    let work = ManualDelayer()
    var interruptCount = 0
    let task: Task<Void, Never> = container.run(
      \.process,
      as: self.process,
      interrupts: [.milliseconds(100), .milliseconds(300)],
      delayer: interrupts
    ) {
      try await work.delay(for: .milliseconds(200))
    } onInterrupt: { accumulatedDelay in
      interruptCount += 1
      if accumulatedDelay == .milliseconds(400) {
        throw TimeoutError()
      }
    }
    await interrupts.waitForDelays(count: 1)
    interrupts.resumeNext()
    await interrupts.waitForDelays(count: 2)
    await work.waitForDelays(count: 1)
    work.resumeNext()
    await task.value
    #expect(interruptCount == 1)
    #expect(container.history == [.idle, .running(self.process), .finished(self.process)])
  }

  @Test func `An Interrupt Throwing ResetProcess Resets The State`() async {
    let container = ProcessContainer()
    let interrupts = ManualDelayer()
    let work = ManualDelayer()
    let task = Task {
      await container.run(
        \.process,
        as: self.process,
        interrupts: [.milliseconds(100)],
        delayer: interrupts
      ) {
        try await work.delay(for: .milliseconds(200))
      } onInterrupt: { _ in
        throw ResetProcess()
      }
    }
    await interrupts.waitForDelays(count: 1)
    interrupts.resumeNext()
    await task.value
    #expect(container.history == [.idle, .running(self.process), .idle])
  }

  // MARK: - Tasks and processes

  @Test func `Cancel Stops The Run And Leaves Running`() async {
    let container = ProcessContainer()
    let work = ManualDelayer()
    let task: Task<Void, Never> = container.run(\.process, as: self.process) {
      try await work.delay(for: .seconds(1))
    }
    #expect(container.process == .running(self.process))
    await work.waitForDelays(count: 1)
    container.cancel(\.process)
    #expect(work.cancelledCount == 1)
    await task.value
    #expect(container.history == [.idle, .running(self.process)])
  }

  @Test func `A New Run Of The Same Process Neither Sets Running Twice Nor Keeps The Old Run`()
    async
  {
    let container = ProcessContainer()
    let work = ManualDelayer()
    let first: Task<Void, Never> = container.run(\.process, as: self.process) {
      try await work.delay(for: .seconds(1))
    }
    await work.waitForDelays(count: 1)
    await container.run(\.process, as: self.process) {}
    #expect(work.cancelledCount == 1)
    await first.value
    #expect(container.history == [.idle, .running(self.process), .finished(self.process)])
  }

  @Test func `A New Run Of Another Process Sets Running Again`() async {
    let container = ProcessContainer()
    let release = Gate()
    let first: Task<Void, Never> = container.run(\.process, as: self.process) {
      await release.wait()
    }
    await container.run(\.process, as: self.otherProcess) {}
    release.open()
    await first.value
    #expect(
      container.history == [
        .idle, .running(self.process), .running(self.otherProcess), .finished(self.otherProcess),
      ]
    )
  }

  @Test func `A Replaced Run Ending Late Does Not Free The New Run`() async {
    let container = ProcessContainer()
    let releaseFirst = Gate()
    let work = ManualDelayer()
    let first: Task<Void, Never> = container.run(\.process, as: self.process) {
      await releaseFirst.wait()
    }
    let second: Task<Void, Never> = container.run(\.process, as: self.otherProcess) {
      try await work.delay(for: .seconds(1))
    }
    await work.waitForDelays(count: 1)
    releaseFirst.open()
    await first.value
    container.cancel(\.process)
    #expect(work.cancelledCount == 1)
    work.resumeAll()
    await second.value
    #expect(
      container.history == [.idle, .running(self.process), .running(self.otherProcess)]
    )
  }

  @Test func `Two Objects Run At Once Without Cancelling Each Other`() async {
    let first = ProcessContainer()
    let second = ProcessContainer()
    let work = ManualDelayer()
    let firstTask: Task<Void, Never> = first.run(\.process, as: self.process) {
      try await work.delay(for: .seconds(1))
    }
    let secondTask: Task<Void, Never> = second.run(\.process, as: self.process) {
      try await work.delay(for: .seconds(2))
    }
    await work.waitForDelays(count: 2)
    #expect(work.cancelledCount == 0)
    first.cancel(\.process)
    #expect(work.cancelledCount == 1)
    #expect(work.resumeAll() == 1)
    await firstTask.value
    await secondTask.value
    #expect(second.history == [.idle, .running(self.process), .finished(self.process)])
  }

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
