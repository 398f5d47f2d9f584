import OperationTestSupport
import Processed
import Testing

@MainActor
@Suite struct `LoadableBinding tests` {
  // MARK: - The reference's binding tests

  @Test func `A Returned Value Sets Loading Then Loaded`() async {
    let container = LoadableContainer()
    await container.binding.load { 42 }
    #expect(container.history == [.absent, .loading, .loaded(42)])
  }

  @Test func `A Yielding Block Sets Every Yielded State`() async {
    let container = LoadableContainer()
    await container.binding.load { yield in
      yield(.loaded(42))
      yield(.loaded(73))
    }
    #expect(container.history == [.absent, .loading, .loaded(42), .loaded(73)])
  }

  @Test func `Two Yielding Loads Set Loading Again`() async {
    let container = LoadableContainer()
    await container.binding.load { yield in
      yield(.loaded(42))
      yield(.loaded(73))
    }
    await container.binding.load { yield in
      yield(.loaded(100))
    }
    #expect(
      container.history == [.absent, .loading, .loaded(42), .loaded(73), .loading, .loaded(100)]
    )
  }

  @Test func `A Silent Load Skips Loading`() async {
    let container = LoadableContainer()
    await container.binding.load(silently: true) { 42 }
    #expect(container.history == [.absent, .loaded(42)])
  }

  @Test func `A Silent Yielding Load Skips Loading`() async {
    let container = LoadableContainer()
    await container.binding.load(silently: true) { yield in
      yield(.loaded(42))
    }
    #expect(container.history == [.absent, .loaded(42)])
  }

  @Test func `Reset Sets Absent`() async {
    let container = LoadableContainer()
    await container.binding.load { 42 }
    container.binding.reset()
    #expect(container.history == [.absent, .loading, .loaded(42), .absent])
  }

  @Test func `Cancelling The Calling Task Leaves Loading`() async {
    let container = LoadableContainer()
    let work = ManualDelayer()
    var reachedEnd = false
    let task = Task {
      await container.binding.load {
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

  @Test func `Throwing CancelLoadable Leaves The State`() async {
    let container = LoadableContainer()
    await container.binding.load { () async throws -> Int in throw CancelLoadable() }
    #expect(container.history == [.absent, .loading])
  }

  @Test func `Throwing CancelLoadable Then Cancelling Leaves The State`() async {
    let container = LoadableContainer()
    await container.binding.load { () async throws -> Int in throw CancelLoadable() }
    container.binding.cancel()
    #expect(container.history == [.absent, .loading])
  }

  @Test func `Throwing ResetLoadable Sets Absent`() async {
    let container = LoadableContainer()
    await container.binding.load { () async throws -> Int in throw ResetLoadable() }
    #expect(container.history == [.absent, .loading, .absent])
  }

  @Test func `An Error Sets The Error State`() async {
    let container = LoadableContainer()
    await container.binding.load { () async throws -> Int in throw TestError() }
    #expect(container.history == [.absent, .loading, .error(TestError())])
  }

  // MARK: - Interrupts

  @Test func `An Interrupt That Throws Ends The Load With Its Error`() async {
    let container = LoadableContainer()
    let interrupts = ManualDelayer()
    let work = ManualDelayer()
    let task = Task {
      await container.binding.load(interrupts: [.milliseconds(100)], delayer: interrupts) {
        try await work.delay(for: .milliseconds(200))
        return 42
      } onInterrupt: { _ in
        throw TimeoutError()
      }
    }
    await interrupts.waitForDelays(count: 1)
    await work.waitForDelays(count: 1)
    interrupts.resumeNext()
    await task.value
    #expect(container.history == [.absent, .loading, .error(TimeoutError())])
    #expect(work.cancelledCount == 1)
  }

  @Test func `An Interrupt After The Block Ended Never Fires`() async {
    let container = LoadableContainer()
    let interrupts = ManualDelayer()
    let work = ManualDelayer()
    var interruptCount = 0
    let task: Task<Void, Never> = container.binding.load(
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
  }

  @Test func `Interrupts Accumulate Their Delays`() async {
    let container = LoadableContainer()
    let interrupts = ManualDelayer()
    let work = ManualDelayer()
    var interruptCount = 0
    let task: Task<Void, Never> = container.binding.load(
      interrupts: [.milliseconds(100), .milliseconds(300)],
      delayer: interrupts
    ) {
      try await work.delay(for: .milliseconds(500))
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
    interrupts.resumeNext()
    await task.value
    #expect(interruptCount == 2)
    #expect(container.history == [.absent, .loading, .error(TimeoutError())])
  }

  @Test func `A Second Interrupt Is Not Needed When The Block Ends Before It`() async {
    let container = LoadableContainer()
    let interrupts = ManualDelayer()
    let work = ManualDelayer()
    var interruptCount = 0
    let task: Task<Void, Never> = container.binding.load(
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
    #expect(container.history == [.absent, .loading, .loaded(42)])
  }

  @Test func `A Yielding Load With Interrupts Keeps Its Yields`() async {
    let container = LoadableContainer()
    let interrupts = ManualDelayer()
    let task: Task<Void, Never> = container.binding.load(
      interrupts: [.seconds(1)],
      delayer: interrupts
    ) { yield in
      yield(.loaded(1))
      yield(.loaded(2))
    } onInterrupt: { _ in
      throw TimeoutError()
    }
    await task.value
    #expect(container.history == [.absent, .loading, .loaded(1), .loaded(2)])
  }

  // MARK: - Tasks and assignment

  @Test func `Cancel Stops The Load And Leaves Loading`() async {
    let container = LoadableContainer()
    let work = ManualDelayer()
    let task: Task<Void, Never> = container.binding.load {
      try await work.delay(for: .seconds(1))
      return 42
    }
    await work.waitForDelays(count: 1)
    container.binding.cancel()
    #expect(work.cancelledCount == 1)
    await task.value
    #expect(container.history == [.absent, .loading])
  }

  @Test func `Setting The Wrapped Value Cancels The Load First`() async {
    let container = LoadableContainer()
    let work = ManualDelayer()
    let task: Task<Void, Never> = container.binding.load {
      try await work.delay(for: .seconds(1))
      return 42
    }
    await work.waitForDelays(count: 1)
    container.binding.wrappedValue = .loaded(7)
    #expect(work.cancelledCount == 1)
    await task.value
    #expect(container.history == [.absent, .loading, .loaded(7)])
  }

  @Test func `A New Load Cancels The Previous One`() async {
    let container = LoadableContainer()
    let work = ManualDelayer()
    let first: Task<Void, Never> = container.binding.load {
      try await work.delay(for: .seconds(1))
      return 1
    }
    await work.waitForDelays(count: 1)
    await container.binding.load { 2 }
    #expect(work.cancelledCount == 1)
    await first.value
    #expect(container.history == [.absent, .loading, .loaded(2)])
  }

  @Test func `Yields Of A Cancelled Load Are Dropped`() async {
    let container = LoadableContainer()
    let release = Gate()
    let task: Task<Void, Never> = container.binding.load { yield in
      yield(.loaded(1))
      await release.wait()
      yield(.loaded(2))
    }
    let yielded = Gate()
    // NB: Wait for the first yield by observing the state, then cancel before the second.
    withObservationTrackingOnce({ container.loadable }, onChange: { yielded.open() })
    await yielded.wait()
    container.binding.cancel()
    release.open()
    await task.value
    #expect(container.history == [.absent, .loading, .loaded(1)])
  }

  @Test func `Copies Of A Binding Share Their Task`() async {
    let container = LoadableContainer()
    let work = ManualDelayer()
    let binding = container.binding
    let copy = binding
    let task: Task<Void, Never> = binding.load {
      try await work.delay(for: .seconds(1))
      return 1
    }
    await work.waitForDelays(count: 1)
    copy.cancel()
    #expect(work.cancelledCount == 1)
    await task.value
  }

  @Test func `A Constant Binding Keeps Its State`() async {
    let binding = LoadableBinding.constant(LoadableState.loaded(1))
    await binding.load { 2 }
    binding.wrappedValue = .absent
    #expect(binding.wrappedValue == .loaded(1))
  }

  @Test func `A Binding Property Wrapper Loads Through Its Projected Value`() async {
    let container = LoadableContainer()
    let child = NumberSection(number: container.binding)
    await child.reload()
    #expect(child.number == .loaded(5))
    #expect(container.history == [.absent, .loading, .loaded(5)])
  }
}

/// A child that receives a loadable state from its parent.
@MainActor
private struct NumberSection {
  @LoadableBinding var number: LoadableState<Int>

  func reload() async {
    await self.$number.load { 5 }
  }
}
