import Observation
import OperationTestSupport
import Processed
import Testing

@MainActor
@Suite struct `Process tests` {
  @Test func `A Process Wrapper Infers A Single Process And Starts Idle`() {
    let model = SavingModel()
    #expect(model.saving.isIdle)
    let _: ProcessBinding<SingleProcess> = model.$saving
  }

  @Test func `The Projected Value Runs The Process`() async {
    let model = SavingModel()
    await model.$saving.run {}
    #expect(model.saving.hasFinished)
  }

  @Test func `A Process Wrapper With A Kind Tracks Which Process Runs`() async {
    let model = SavingModel()
    let release = Gate()
    let task: Task<Void, Never> = model.$action.run(.delete) {
      await release.wait()
    }
    #expect(model.action.isRunning(.delete))
    release.open()
    await task.value
    #expect(model.action == .finished(.delete))
  }

  @Test func `Setting The Wrapped Value Cancels The Running Process`() async {
    let model = SavingModel()
    let work = ManualDelayer()
    let task: Task<Void, Never> = model.$saving.run {
      try await work.delay(for: .seconds(1))
    }
    await work.waitForDelays(count: 1)
    model.saving = .idle
    #expect(work.cancelledCount == 1)
    await task.value
    #expect(model.saving.isIdle)
  }

  @Test func `Reading The State Is Observed`() async {
    let model = SavingModel()
    let changed = Gate()
    withObservationTrackingOnce({ model.saving }, onChange: { changed.open() })
    let task: Task<Void, Never> = model.$saving.run {}
    #expect(changed.isOpen)
    await task.value
  }

  @Test func `An Initial State Is Kept`() {
    let model = SavingModel()
    #expect(model.finishedAction == .finished(.save))
  }
}

@MainActor
@Observable
private final class SavingModel {
  enum Action { case save, delete }

  @ObservationIgnored @Process var saving
  @ObservationIgnored @Process<Action> var action
  @ObservationIgnored @Process var finishedAction: ProcessState<Action> = .finished(.save)
}
