import OperationTestSupport
import Processed
import Testing

@MainActor
@Suite struct `LoadableSupport tests` {
  // MARK: - The reference's class tests

  @Test func `A Returned Value Sets Loading Then Loaded`() async {
    let container = LoadableContainer()
    await container.load(\.loadable) { 42 }
    #expect(container.history == [.absent, .loading, .loaded(42)])
  }

  @Test func `A Yielding Block Sets Every Yielded State`() async {
    let container = LoadableContainer()
    await container.load(\.loadable) { yield in
      yield(.loaded(42))
      yield(.loaded(73))
    }
    #expect(container.history == [.absent, .loading, .loaded(42), .loaded(73)])
  }

  @Test func `Reset Sets Absent`() async {
    let container = LoadableContainer()
    await container.load(\.loadable) { 42 }
    container.reset(\.loadable)
    #expect(container.history == [.absent, .loading, .loaded(42), .absent])
  }

  @Test func `Reset Of An Absent State Assigns Nothing`() {
    let container = LoadableContainer()
    container.reset(\.loadable)
    #expect(container.history == [.absent])
  }

  @Test func `Cancelling The Calling Task Leaves Loading`() async {
    let container = LoadableContainer()
    let work = ManualDelayer()
    var reachedEnd = false
    let task = Task {
      await container.load(\.loadable) {
        try await work.delay(for: .seconds(2))
        reachedEnd = true
        return 42
      }
    }
    task.cancel()
    await task.value
    #expect(container.history == [.absent, .loading])
    #expect(!reachedEnd)
  }

  @Test func `Throwing CancellationError Leaves The State`() async {
    let container = LoadableContainer()
    await container.load(\.loadable) { () async throws -> Int in throw CancellationError() }
    #expect(container.history == [.absent, .loading])
  }

  @Test func `Throwing CancelLoadable Leaves The State`() async {
    let container = LoadableContainer()
    await container.load(\.loadable) { () async throws -> Int in throw CancelLoadable() }
    #expect(container.history == [.absent, .loading])
  }

  @Test func `Throwing ResetLoadable Sets Absent`() async {
    let container = LoadableContainer()
    await container.load(\.loadable) { () async throws -> Int in throw ResetLoadable() }
    #expect(container.history == [.absent, .loading, .absent])
  }

  @Test func `An Error Sets The Error State`() async {
    let container = LoadableContainer()
    await container.load(\.loadable) { () async throws -> Int in throw TestError() }
    #expect(container.history == [.absent, .loading, .error(TestError())])
    #expect(container.loadable.error as? TestError == TestError())
  }

  @Test func `A Silent Load Skips Loading`() async {
    let container = LoadableContainer()
    await container.load(\.loadable, silently: true) { 42 }
    #expect(container.history == [.absent, .loaded(42)])
  }

  @Test func `Loading Twice Sets Loading Again`() async {
    let container = LoadableContainer()
    await container.load(\.loadable) { 42 }
    await container.load(\.loadable) { 73 }
    #expect(container.history == [.absent, .loading, .loaded(42), .loading, .loaded(73)])
  }

  @Test func `A Load After A Failure Sets Loading Again`() async {
    let container = LoadableContainer()
    await container.load(\.loadable) { () async throws -> Int in throw TestError() }
    await container.load(\.loadable) { 42 }
    #expect(
      container.history == [.absent, .loading, .error(TestError()), .loading, .loaded(42)]
    )
  }

  // MARK: - Interrupts (timed by a manual delayer, the block "sleeps" on another)

  @Test func `An Interrupt That Throws Ends The Load With Its Error`() async {
    let container = LoadableContainer()
    let interrupts = ManualDelayer()
    let work = ManualDelayer()
    let task: Task<Void, Never> = container.load(
      \.loadable,
      interrupts: [.milliseconds(100)],
      delayer: interrupts
    ) {
      try await work.delay(for: .milliseconds(200))
      return 42
    } onInterrupt: { _ in
      throw TimeoutError()
    }
    await interrupts.waitForDelays(count: 1)
    await work.waitForDelays(count: 1)
    interrupts.resumeNext()
    await task.value
    #expect(container.history == [.absent, .loading, .error(TimeoutError())])
    #expect(container.loadable.error as? TimeoutError == TimeoutError())
    #expect(work.cancelledCount == 1)
  }

  @Test func `An Interrupt After The Block Ended Never Fires`() async {
    let container = LoadableContainer()
    let interrupts = ManualDelayer()
    let work = ManualDelayer()
    var interruptCount = 0
    let task: Task<Void, Never> = container.load(
      \.loadable,
      interrupts: [.milliseconds(200)],
      delayer: interrupts
    ) {
      try await work.delay(for: .milliseconds(100))
      return 42
    } onInterrupt: { _ in
      interruptCount += 1
      throw TimeoutError()
    }
    await interrupts.waitForDelays(count: 1)
    await work.waitForDelays(count: 1)
    work.resumeNext()
    await task.value
    #expect(container.history == [.absent, .loading, .loaded(42)])
    #expect(interruptCount == 0)
    #expect(interrupts.cancelledCount == 1)
  }

  @Test func `Interrupts Accumulate Their Delays`() async {
    let container = LoadableContainer()
    let interrupts = ManualDelayer()
    let work = ManualDelayer()
    var accumulatedDelays = [Duration]()
    let task: Task<Void, Never> = container.load(
      \.loadable,
      interrupts: [.milliseconds(100), .milliseconds(300)],
      delayer: interrupts
    ) {
      try await work.delay(for: .milliseconds(500))
      return 42
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
    #expect(interrupts.delays == [.milliseconds(100), .milliseconds(300)])
    #expect(container.history == [.absent, .loading, .error(TimeoutError())])
  }

  @Test func `A Second Interrupt Is Not Needed When The Block Ends Before It`() async {
    let container = LoadableContainer()
    let interrupts = ManualDelayer()
    let work = ManualDelayer()
    var interruptCount = 0
    let task: Task<Void, Never> = container.load(
      \.loadable,
      interrupts: [.milliseconds(100), .milliseconds(300)],
      delayer: interrupts
    ) {
      try await work.delay(for: .milliseconds(200))
      return 42
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
    #expect(interrupts.cancelledCount == 1)
    #expect(container.history == [.absent, .loading, .loaded(42)])
  }

  @Test func `The Block Goes On After Every Interrupt Fired`() async {
    let container = LoadableContainer()
    let interrupts = ManualDelayer()
    let work = ManualDelayer()
    let interrupted = Gate()
    var showsSlowHint = false
    let task: Task<Void, Never> = container.load(
      \.loadable,
      interrupts: [.milliseconds(100)],
      delayer: interrupts
    ) {
      try await work.delay(for: .milliseconds(200))
      return 42
    } onInterrupt: { _ in
      showsSlowHint = true
      interrupted.open()
    }
    await interrupts.waitForDelays(count: 1)
    interrupts.resumeNext()
    await interrupted.wait()
    #expect(container.loadable == .loading)
    await work.waitForDelays(count: 1)
    work.resumeNext()
    await task.value
    #expect(showsSlowHint)
    #expect(container.history == [.absent, .loading, .loaded(42)])
  }

  @Test func `An Interrupt Throwing CancelLoadable Cancels The Load`() async {
    let container = LoadableContainer()
    let interrupts = ManualDelayer()
    let work = ManualDelayer()
    let task: Task<Void, Never> = container.load(
      \.loadable,
      interrupts: [.milliseconds(100)],
      delayer: interrupts
    ) {
      try await work.delay(for: .milliseconds(200))
      return 42
    } onInterrupt: { _ in
      throw CancelLoadable()
    }
    await interrupts.waitForDelays(count: 1)
    interrupts.resumeNext()
    await task.value
    #expect(container.history == [.absent, .loading])
  }

  @Test func `An Interrupt Throwing ResetLoadable Resets The State`() async {
    let container = LoadableContainer()
    let interrupts = ManualDelayer()
    let work = ManualDelayer()
    let task = Task {
      await container.load(\.loadable, interrupts: [.milliseconds(100)], delayer: interrupts) {
        yield in
        yield(.loaded(1))
        try await work.delay(for: .milliseconds(200))
        yield(.loaded(2))
      } onInterrupt: { _ in
        throw ResetLoadable()
      }
    }
    await interrupts.waitForDelays(count: 1)
    await work.waitForDelays(count: 1)
    interrupts.resumeNext()
    await task.value
    #expect(container.history == [.absent, .loading, .loaded(1), .absent])
  }

  // MARK: - Tasks

  @Test func `The Task Form Sets Loading At Once And Loaded When Its Task Ends`() async {
    let container = LoadableContainer()
    let release = Gate()
    let task: Task<Void, Never> = container.load(\.loadable) {
      await release.wait()
      return 42
    }
    #expect(container.loadable == .loading)
    release.open()
    await task.value
    #expect(container.history == [.absent, .loading, .loaded(42)])
  }

  @Test func `Cancel Stops The Load And Leaves Loading`() async {
    let container = LoadableContainer()
    let work = ManualDelayer()
    let task: Task<Void, Never> = container.load(\.loadable) {
      try await work.delay(for: .seconds(1))
      return 42
    }
    await work.waitForDelays(count: 1)
    container.cancel(\.loadable)
    #expect(work.cancelledCount == 1)
    await task.value
    #expect(container.history == [.absent, .loading])
  }

  @Test func `Reset Stops The Load And Sets Absent`() async {
    let container = LoadableContainer()
    let work = ManualDelayer()
    let task: Task<Void, Never> = container.load(\.loadable) {
      try await work.delay(for: .seconds(1))
      return 42
    }
    await work.waitForDelays(count: 1)
    container.reset(\.loadable)
    #expect(work.cancelledCount == 1)
    await task.value
    #expect(container.history == [.absent, .loading, .absent])
  }

  @Test func `A Cancelled Load That Ignores Cancellation Changes Nothing`() async {
    let container = LoadableContainer()
    let release = Gate()
    let task: Task<Void, Never> = container.load(\.loadable) { yield in
      await release.wait()
      yield(.loaded(1))
      throw TestError()
    }
    container.cancel(\.loadable)
    release.open()
    await task.value
    #expect(container.history == [.absent, .loading])
  }

  @Test func `A New Load Cancels The Previous One`() async {
    let container = LoadableContainer()
    let work = ManualDelayer()
    let first: Task<Void, Never> = container.load(\.loadable) {
      try await work.delay(for: .seconds(1))
      return 1
    }
    await work.waitForDelays(count: 1)
    let second: Task<Void, Never> = container.load(\.loadable) { 2 }
    #expect(work.cancelledCount == 1)
    await first.value
    await second.value
    #expect(container.history == [.absent, .loading, .loaded(2)])
  }

  @Test func `A Replaced Load Ending Late Neither Overwrites Nor Frees The New Load`() async {
    let container = LoadableContainer()
    let releaseFirst = Gate()
    let work = ManualDelayer()
    let first: Task<Void, Never> = container.load(\.loadable) {
      await releaseFirst.wait()
      return 1
    }
    let second: Task<Void, Never> = container.load(\.loadable) {
      try await work.delay(for: .seconds(1))
      return 2
    }
    await work.waitForDelays(count: 1)
    releaseFirst.open()
    await first.value
    #expect(container.history == [.absent, .loading])

    container.cancel(\.loadable)
    #expect(work.cancelledCount == 1)
    work.resumeAll()
    await second.value
    #expect(container.history == [.absent, .loading])
  }

  @Test func `Two Objects Load At Once Without Cancelling Each Other`() async {
    let first = LoadableContainer()
    let second = LoadableContainer()
    let work = ManualDelayer()
    let firstTask: Task<Void, Never> = first.load(\.loadable) {
      try await work.delay(for: .seconds(1))
      return 1
    }
    let secondTask: Task<Void, Never> = second.load(\.loadable) {
      try await work.delay(for: .seconds(2))
      return 2
    }
    await work.waitForDelays(count: 2)
    #expect(work.cancelledCount == 0)

    first.cancel(\.loadable)
    #expect(work.cancelledCount == 1)
    #expect(work.resumeAll() == 1)
    await firstTask.value
    await secondTask.value
    #expect(first.history == [.absent, .loading])
    #expect(second.history == [.absent, .loading, .loaded(2)])
  }

  @Test func `The Async Form Cancels The Running Task`() async {
    let container = LoadableContainer()
    let work = ManualDelayer()
    let task: Task<Void, Never> = container.load(\.loadable) {
      try await work.delay(for: .seconds(1))
      return 1
    }
    await work.waitForDelays(count: 1)
    await container.load(\.loadable) { 2 }
    #expect(work.cancelledCount == 1)
    await task.value
    #expect(container.history == [.absent, .loading, .loaded(2)])
  }

  @Test func `The Async Form Runs In The Calling Task`() async {
    let container = LoadableContainer()
    let work = ManualDelayer()
    let task = Task {
      await container.load(\.loadable) {
        try await work.delay(for: .seconds(1))
        return 1
      }
    }
    await work.waitForDelays(count: 1)
    // NB: The load is not in the container's slot; cancelling the calling task stops it.
    container.cancel(\.loadable)
    #expect(work.cancelledCount == 0)
    task.cancel()
    #expect(work.cancelledCount == 1)
    await task.value
    #expect(container.history == [.absent, .loading])
  }

  @Test func `Two Properties Of One Object Load Without Cancelling Each Other`() async {
    let model = TwoStatesModel()
    let work = ManualDelayer()
    let firstTask: Task<Void, Never> = model.load(\.first) {
      try await work.delay(for: .seconds(1))
      return 1
    }
    let secondTask: Task<Void, Never> = model.load(\.second) {
      try await work.delay(for: .seconds(2))
      return "2"
    }
    await work.waitForDelays(count: 2)
    model.cancel(\.first)
    #expect(work.cancelledCount == 1)
    #expect(work.resumeAll() == 1)
    await firstTask.value
    await secondTask.value
    #expect(model.first == .loading)
    #expect(model.second == .loaded("2"))
  }
}

@MainActor
private final class TwoStatesModel: LoadableSupport {
  var first = LoadableState<Int>.absent
  var second = LoadableState<String>.absent
}
