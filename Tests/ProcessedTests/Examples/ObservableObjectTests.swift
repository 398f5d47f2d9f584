#if canImport(Combine)
  import Combine
  import Processed
  import Testing

  // NB: Combine exists on Apple platforms only. `LoadableSupport` and `ProcessSupport` need no
  // Combine code of their own: a `@Published` property is a key path like any other.

  @MainActor
  private final class PublishedModel: ObservableObject, LoadableSupport, ProcessSupport {
    @Published var numbers: LoadableState<[Int]> = .absent
    @Published var saving: SingleProcessState = .idle
  }

  @MainActor
  private final class ChangeCounter {
    var count = 0
  }

  @MainActor
  @Suite struct `ObservableObject tests` {
    @Test func `A Published Loadable State Loads And Publishes Each Change`() async {
      let model = PublishedModel()
      let counter = ChangeCounter()
      let cancellable = model.objectWillChange.sink { _ in
        MainActor.assumeIsolated { counter.count += 1 }
      }
      await model.load(\.numbers) { [1] }
      #expect(model.numbers == .loaded([1]))
      #expect(counter.count == 2)
      cancellable.cancel()
    }

    @Test func `A Published Process State Runs`() async {
      let model = PublishedModel()
      await model.run(\.saving) {}
      #expect(model.saving.hasFinished)
    }
  }
#endif
