import Observation
import OperationTestSupport
import Processed
import Testing

@MainActor
@Suite struct `Loadable tests` {
  @Test func `A Loadable Wrapper Starts Absent`() {
    let model = NumbersModel()
    #expect(model.numbers == .absent)
    #expect(model.preset == .loaded([1]))
  }

  @Test func `The Projected Value Loads The State`() async {
    let model = NumbersModel()
    let release = Gate()
    let task: Task<Void, Never> = model.$numbers.load {
      await release.wait()
      return [42]
    }
    #expect(model.numbers == .loading)
    release.open()
    await task.value
    #expect(model.numbers == .loaded([42]))
  }

  @Test func `Reading The State Is Observed Through The Wrapper`() async {
    let model = NumbersModel()
    let changed = Gate()
    withObservationTrackingOnce({ model.numbers }, onChange: { changed.open() })
    await model.$numbers.load { [1] }
    #expect(changed.isOpen)
  }

  @Test func `Other Properties Of The Model Are Not Observed Through The Wrapper`() async {
    let model = NumbersModel()
    let changed = Gate()
    withObservationTrackingOnce({ model.numbers }, onChange: { changed.open() })
    model.title = "Numbers"
    #expect(!changed.isOpen)
  }

  @Test func `Setting The Wrapped Value Cancels The Running Load`() async {
    let model = NumbersModel()
    let work = ManualDelayer()
    let task: Task<Void, Never> = model.$numbers.load {
      try await work.delay(for: .seconds(1))
      return [1]
    }
    await work.waitForDelays(count: 1)
    model.numbers = .loaded([7])
    #expect(work.cancelledCount == 1)
    await task.value
    #expect(model.numbers == .loaded([7]))
  }

  @Test func `Reset Through The Projected Value Cancels And Sets Absent`() async {
    let model = NumbersModel()
    let work = ManualDelayer()
    let task: Task<Void, Never> = model.$numbers.load {
      try await work.delay(for: .seconds(1))
      return [1]
    }
    await work.waitForDelays(count: 1)
    model.$numbers.reset()
    #expect(work.cancelledCount == 1)
    await task.value
    #expect(model.numbers == .absent)
  }

  @Test func `Projected Values Share The Wrapper's Task`() async {
    let model = NumbersModel()
    let work = ManualDelayer()
    let task: Task<Void, Never> = model.$numbers.load {
      try await work.delay(for: .seconds(1))
      return [1]
    }
    await work.waitForDelays(count: 1)
    model.$numbers.cancel()
    #expect(work.cancelledCount == 1)
    await task.value
    #expect(model.numbers == .loading)
  }

  @Test func `Wrappers Of Two Models Load Independently`() async {
    let first = NumbersModel()
    let second = NumbersModel()
    let work = ManualDelayer()
    let firstTask: Task<Void, Never> = first.$numbers.load {
      try await work.delay(for: .seconds(1))
      return [1]
    }
    let secondTask: Task<Void, Never> = second.$numbers.load {
      try await work.delay(for: .seconds(1))
      return [2]
    }
    await work.waitForDelays(count: 2)
    first.$numbers.cancel()
    #expect(work.cancelledCount == 1)
    work.resumeAll()
    await firstTask.value
    await secondTask.value
    #expect(first.numbers == .loading)
    #expect(second.numbers == .loaded([2]))
  }

  @Test func `A Nonisolated Class Can Declare A Loadable`() async {
    let holder = PlainHolder()
    await holder.$value.load { "done" }
    #expect(holder.value == .loaded("done"))
  }
}

@MainActor
@Observable
private final class NumbersModel {
  @ObservationIgnored @Loadable<[Int]> var numbers
  @ObservationIgnored @Loadable var preset: LoadableState<[Int]> = .loaded([1])
  var title = ""
}

private final class PlainHolder {
  @Loadable<String> var value
}
