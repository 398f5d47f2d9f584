import OperationTestSupport
import Processed
import Testing

// The rules of a load, which `LoadableSupport` shares with every way to drive a state, are tested
// once for all of them in `StateControllerTests`, `InterruptsTests` and, for the loads that
// yield states, `LoadableBindingTests`.

@MainActor
@Suite struct `LoadableSupport tests` {
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
