import OperationTestSupport
import Processed
import Testing

@MainActor
@Suite struct `LoadableBinding tests` {
  // MARK: - Loads that yield states, through the binding and through `LoadableSupport`

  @Test(arguments: Subject.loadables)
  func `A Yielding Block Sets Every Yielded State`(_ subject: Subject) async {
    let harness = subject.harness()
    await harness.run { yield in
      yield(.loaded(42))
      yield(.loaded(73))
    }
    #expect(harness.loadable.history == [.absent, .loading, .loaded(42), .loaded(73)])
  }

  @Test(arguments: Subject.loadables)
  func `Two Yielding Loads Set Loading Again`(_ subject: Subject) async {
    let harness = subject.harness()
    await harness.run { yield in
      yield(.loaded(42))
      yield(.loaded(73))
    }
    await harness.run { yield in
      yield(.loaded(100))
    }
    #expect(
      harness.loadable.history == [
        .absent, .loading, .loaded(42), .loaded(73), .loading, .loaded(100),
      ]
    )
  }

  @Test(arguments: Subject.loadables)
  func `A Silent Yielding Load Skips Loading`(_ subject: Subject) async {
    let harness = subject.harness()
    await harness.run(silently: true) { yield in
      yield(.loaded(42))
    }
    #expect(harness.loadable.history == [.absent, .loaded(42)])
  }

  @Test(arguments: Subject.loadables)
  func `A Yielding Load With Interrupts Keeps Its Yields`(_ subject: Subject) async {
    let harness = subject.harness()
    let interrupts = Interrupts(delays: [.seconds(1)], delayer: ManualDelayer()) { _ in
      throw TimeoutError()
    }
    let task = harness.start(interrupts: interrupts) { yield in
      yield(.loaded(1))
      yield(.loaded(2))
    }
    await task.value
    #expect(harness.loadable.history == [.absent, .loading, .loaded(1), .loaded(2)])
  }

  @Test(arguments: Subject.loadables)
  func `An Interrupt Throwing ResetLoadable Resets A Yielding Load`(_ subject: Subject) async {
    let harness = subject.harness()
    let (interrupts, work) = (ManualDelayer(), ManualDelayer())
    let schedule = Interrupts(delays: [.milliseconds(100)], delayer: interrupts) { _ in
      throw ResetLoadable()
    }
    let task = Task {
      await harness.run(interrupts: schedule) { yield in
        yield(.loaded(1))
        try await work.delay(for: .milliseconds(200))
        yield(.loaded(2))
      }
    }
    await interrupts.waitForDelays(count: 1)
    await work.waitForDelays(count: 1)
    interrupts.resumeNext()
    await task.value
    #expect(harness.loadable.history == [.absent, .loading, .loaded(1), .absent])
  }

  @Test(arguments: Subject.loadables)
  func `Yields Of A Cancelled Load Are Dropped`(_ subject: Subject) async {
    let harness = subject.harness()
    let release = Gate()
    let task = harness.start { yield in
      yield(.loaded(1))
      await release.wait()
      yield(.loaded(2))
    }
    let yielded = Gate()
    // NB: Wait for the first yield by observing the state, then cancel before the second.
    withObservationTrackingOnce({ harness.loadable.loadable }, onChange: { yielded.open() })
    await yielded.wait()
    harness.cancel()
    release.open()
    await task.value
    #expect(harness.loadable.history == [.absent, .loading, .loaded(1)])
  }

  @Test(arguments: Subject.loadables)
  func `A Cancelled Load That Ignores Cancellation Changes Nothing`(_ subject: Subject) async {
    let harness = subject.harness()
    let release = Gate()
    let task = harness.start { yield in
      await release.wait()
      yield(.loaded(1))
      throw TestError()
    }
    harness.cancel()
    release.open()
    await task.value
    #expect(harness.loadable.history == [.absent, .loading])
  }

  // MARK: - The binding itself

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
