import OperationTestSupport
import Processed
import Testing

@MainActor
@Suite struct `ProcessBinding tests` {
  let process = SingleProcess(id: "1")
  let otherProcess = SingleProcess(id: "2")

  // MARK: - The reference's binding tests

  @Test func `Returning Sets Running Then Finished`() async {
    let container = ProcessContainer()
    await container.binding.run(self.process) {}
    #expect(container.history == [.idle, .running(self.process), .finished(self.process)])
  }

  @Test func `Reset Sets Idle`() async {
    let container = ProcessContainer()
    await container.binding.run(self.process) {}
    container.binding.reset()
    #expect(
      container.history == [.idle, .running(self.process), .finished(self.process), .idle]
    )
  }

  @Test func `Cancelling The Calling Task Leaves Running`() async {
    let container = ProcessContainer()
    let work = ManualDelayer()
    var reachedEnd = false
    let task = Task {
      await container.binding.run(self.process) {
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
    await container.binding.run(self.process) { throw CancelProcess() }
    #expect(container.history == [.idle, .running(self.process)])
  }

  @Test func `Throwing ResetProcess Sets Idle`() async {
    let container = ProcessContainer()
    await container.binding.run(self.process) { throw ResetProcess() }
    #expect(container.history == [.idle, .running(self.process), .idle])
  }

  @Test func `An Error Sets The Failed State`() async {
    let container = ProcessContainer()
    await container.binding.run(self.process) { throw TestError() }
    #expect(
      container.history == [
        .idle, .running(self.process), .failed(process: self.process, error: TestError()),
      ]
    )
  }

  @Test func `A Silent Run Skips Running`() async {
    let container = ProcessContainer()
    await container.binding.run(self.process, silently: true) {}
    #expect(container.history == [.idle, .finished(self.process)])
  }

  @Test func `Running Twice Sets Running Again`() async {
    let container = ProcessContainer()
    await container.binding.run(self.process) {}
    await container.binding.run(self.otherProcess) {}
    #expect(
      container.history == [
        .idle, .running(self.process), .finished(self.process), .running(self.otherProcess),
        .finished(self.otherProcess),
      ]
    )
  }

  @Test func `A Run After A Failure Sets Running Again`() async {
    let container = ProcessContainer()
    await container.binding.run(self.process) { throw TestError() }
    await container.binding.run(self.otherProcess) {}
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
    let task = Task {
      await container.binding.run(
        self.process,
        interrupts: [.milliseconds(100)],
        delayer: interrupts
      ) {
        try await work.delay(for: .milliseconds(200))
      } onInterrupt: { _ in
        throw TimeoutError()
      }
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
  }

  @Test func `An Interrupt After The Block Ended Never Fires`() async {
    let container = ProcessContainer()
    let interrupts = ManualDelayer()
    let work = ManualDelayer()
    var interruptCount = 0
    let task: Task<Void, Never> = container.binding.run(
      self.process,
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
    var interruptCount = 0
    let task: Task<Void, Never> = container.binding.run(
      self.process,
      interrupts: [.milliseconds(100), .milliseconds(300)],
      delayer: interrupts
    ) {
      try await work.delay(for: .milliseconds(500))
    } onInterrupt: { accumulatedDelay in
      interruptCount += 1
      if accumulatedDelay == .milliseconds(400) {
        throw TimeoutError()
      }
    }
    await interrupts.waitForDelays(count: 1)
    interrupts.resumeNext()
    await interrupts.waitForDelays(count: 2)
    interrupts.resumeNext()
    await task.value
    #expect(interruptCount == 2)
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
    let task: Task<Void, Never> = container.binding.run(
      self.process,
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

  // MARK: - Tasks and assignment

  @Test func `Cancel Stops The Run And Leaves Running`() async {
    let container = ProcessContainer()
    let work = ManualDelayer()
    let task: Task<Void, Never> = container.binding.run(self.process) {
      try await work.delay(for: .seconds(1))
    }
    await work.waitForDelays(count: 1)
    container.binding.cancel()
    #expect(work.cancelledCount == 1)
    await task.value
    #expect(container.history == [.idle, .running(self.process)])
  }

  @Test func `Setting The Wrapped Value Cancels The Run First`() async {
    let container = ProcessContainer()
    let work = ManualDelayer()
    let task: Task<Void, Never> = container.binding.run(self.process) {
      try await work.delay(for: .seconds(1))
    }
    await work.waitForDelays(count: 1)
    container.binding.wrappedValue = .idle
    #expect(work.cancelledCount == 1)
    await task.value
    #expect(container.history == [.idle, .running(self.process), .idle])
  }

  @Test func `A Single Process Run Starts A New Process`() async {
    let container = ProcessContainer()
    await container.binding.run {}
    #expect(container.process.hasFinished)
    #expect(container.history.count == 3)
  }

  @Test func `A Constant Binding Keeps Its State`() async {
    let binding = ProcessBinding.constant(SingleProcessState.idle)
    await binding.run {}
    #expect(binding.wrappedValue == .idle)
  }
}
