import OperationTestSupport
import Processed
import Testing

// Interrupts, timed by a manual delayer while the work "sleeps" on another. Each test runs
// against the four ways to drive a state and both forms of a run (`Subject`, `Form`).

@MainActor
@Suite struct `Interrupts tests` {
  /// What an interrupt handler throws.
  enum Thrown: CaseIterable, Sendable {
    case timeoutError
    case cancelRequest
    case resetRequest
  }

  @Test(arguments: Subject.allCases, Thrown.allCases)
  func `An Interrupt That Throws Cancels The Work And Ends The Run As Its Error Says`(
    _ subject: Subject,
    _ thrown: Thrown
  ) async {
    for form in Form.allCases {
      let harness = subject.harness()
      let (interrupts, work) = (ManualDelayer(), ManualDelayer())
      let schedule = Interrupts(delays: [.milliseconds(100)], delayer: interrupts) { _ in
        switch thrown {
        case .timeoutError: throw TimeoutError()
        case .cancelRequest: throw harness.cancelRequest
        case .resetRequest: throw harness.resetRequest
        }
      }
      let task = harness.launch(form, 42, interrupts: schedule) {
        try await work.delay(for: .milliseconds(200))
      }
      await interrupts.waitForDelays(count: 1)
      await work.waitForDelays(count: 1)
      interrupts.resumeNext()
      await task.value
      #expect(work.cancelledCount == 1)
      switch thrown {
      case .timeoutError:
        harness.expectHistory([.reset, .started(42), .failed(42, TimeoutError())])
        #expect(harness.error as? TimeoutError == TimeoutError())
      case .cancelRequest:
        harness.expectHistory([.reset, .started(42)])
      case .resetRequest:
        harness.expectHistory([.reset, .started(42), .reset])
      }
    }
  }

  @Test(arguments: Subject.allCases, Form.allCases)
  func `An Interrupt After The Block Ended Never Fires`(_ subject: Subject, _ form: Form) async {
    let harness = subject.harness()
    let (interrupts, work) = (ManualDelayer(), ManualDelayer())
    var interruptCount = 0
    let schedule = Interrupts(delays: [.milliseconds(200)], delayer: interrupts) { _ in
      interruptCount += 1
      throw TimeoutError()
    }
    let task = harness.launch(form, 42, interrupts: schedule) {
      try await work.delay(for: .milliseconds(100))
    }
    await interrupts.waitForDelays(count: 1)
    await work.waitForDelays(count: 1)
    work.resumeNext()
    await task.value
    harness.expectHistory([.reset, .started(42), .finished(42)])
    #expect(interruptCount == 0)
    #expect(interrupts.cancelledCount == 1)
  }

  @Test(arguments: Subject.allCases, Form.allCases)
  func `Interrupts Accumulate Their Delays`(_ subject: Subject, _ form: Form) async {
    let harness = subject.harness()
    let (timeout, work) = (TimeoutAfterTwoInterrupts(), ManualDelayer())
    let task = harness.launch(form, 42, interrupts: timeout.interrupts) {
      try await work.delay(for: .milliseconds(500))
    }
    await timeout.delayer.waitForDelays(count: 1)
    timeout.delayer.resumeNext()
    await timeout.delayer.waitForDelays(count: 2)
    timeout.delayer.resumeNext()
    await task.value
    #expect(timeout.accumulatedDelays == [.milliseconds(100), .milliseconds(400)])
    #expect(timeout.delayer.delays == [.milliseconds(100), .milliseconds(300)])
    harness.expectHistory([.reset, .started(42), .failed(42, TimeoutError())])
  }

  @Test(arguments: Subject.allCases, Form.allCases)
  func `A Second Interrupt Is Not Needed When The Block Ends Before It`(
    _ subject: Subject,
    _ form: Form
  ) async {
    let harness = subject.harness()
    let (timeout, work) = (TimeoutAfterTwoInterrupts(), ManualDelayer())
    let task = harness.launch(form, 42, interrupts: timeout.interrupts) {
      try await work.delay(for: .milliseconds(200))
    }
    await timeout.delayer.waitForDelays(count: 1)
    timeout.delayer.resumeNext()
    await timeout.delayer.waitForDelays(count: 2)
    await work.waitForDelays(count: 1)
    work.resumeNext()
    await task.value
    #expect(timeout.accumulatedDelays == [.milliseconds(100)])
    #expect(timeout.delayer.cancelledCount == 1)
    harness.expectHistory([.reset, .started(42), .finished(42)])
  }

  @Test(arguments: Subject.allCases, Form.allCases)
  func `The Block Goes On After Every Interrupt Fired`(_ subject: Subject, _ form: Form) async {
    let harness = subject.harness()
    let (interrupts, work) = (ManualDelayer(), ManualDelayer())
    let interrupted = Gate()
    var showsSlowHint = false
    let schedule = Interrupts(delays: [.milliseconds(100)], delayer: interrupts) { _ in
      showsSlowHint = true
      interrupted.open()
    }
    let task = harness.launch(form, 42, interrupts: schedule) {
      try await work.delay(for: .milliseconds(200))
    }
    await interrupts.waitForDelays(count: 1)
    interrupts.resumeNext()
    await interrupted.wait()
    #expect(harness.isIn(.started(42)))
    await work.waitForDelays(count: 1)
    work.resumeNext()
    await task.value
    #expect(showsSlowHint)
    harness.expectHistory([.reset, .started(42), .finished(42)])
  }
}

/// Interrupts after 100 ms and 300 ms more, that record their accumulated delays and give up
/// with a `TimeoutError` at 400 ms.
@MainActor
private final class TimeoutAfterTwoInterrupts {
  let delayer = ManualDelayer()
  private(set) var accumulatedDelays = [Duration]()

  var interrupts: Interrupts {
    Interrupts(delays: [.milliseconds(100), .milliseconds(300)], delayer: self.delayer) {
      self.accumulatedDelays.append($0)
      if $0 == .milliseconds(400) {
        throw TimeoutError()
      }
    }
  }
}
