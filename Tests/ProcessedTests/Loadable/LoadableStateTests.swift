import Processed
import Testing

@Suite struct `LoadableState tests` {
  @Test func `Setters Assign Each Case`() {
    var state = LoadableState<Int>.absent
    state.setLoading()
    #expect(state == .loading)
    state.setValue(1)
    #expect(state == .loaded(1))
    state.setError(TestError())
    #expect(state.error as? TestError == TestError())
    state.setAbsent()
    #expect(state == .absent)
  }

  @Test func `Case Checks Match Only Their Case`() {
    let states: [LoadableState<Int>] = [.absent, .loading, .error(TestError()), .loaded(1)]
    #expect(states.map(\.isAbsent) == [true, false, false, false])
    #expect(states.map(\.isLoading) == [false, true, false, false])
    #expect(states.map(\.isError) == [false, false, true, false])
    #expect(states.map(\.isLoaded) == [false, false, false, true])
  }

  @Test func `Payload Accessors Are Nil For Other Cases`() {
    let states: [LoadableState<Int>] = [.absent, .loading, .error(TestError()), .loaded(1)]
    #expect(states.map(\.data) == [nil, nil, nil, 1])
    #expect(states.map { $0.error as? TestError } == [nil, nil, TestError(), nil])
  }

  @Test func `Map Transforms Only A Loaded Value`() {
    #expect(LoadableState.loaded(2).map { $0 * 10 } == .loaded(20))
    #expect(LoadableState<Int>.absent.map { $0 * 10 } == .absent)
    #expect(LoadableState<Int>.loading.map { $0 * 10 } == .loading)
    let error = LoadableState<Int>.error(TestError()).map { $0 * 10 }
    #expect(error.error as? TestError == TestError())
  }

  @Test func `Map Rethrows The Transform Error`() {
    #expect(throws: TestError()) {
      try LoadableState.loaded(1).map { _ -> Int in throw TestError() }
    }
  }

  @Test func `Compact Map Becomes Absent For A Nil Transform`() {
    #expect(LoadableState.loaded([1, 2]).compactMap(\.first) == .loaded(1))
    #expect(LoadableState.loaded([Int]()).compactMap(\.first) == .absent)
    #expect(LoadableState<[Int]>.loading.compactMap(\.first) == .loading)
    #expect(LoadableState<[Int]>.error(TestError()).compactMap(\.first).isError)
  }

  @Test func `Any Two Errors Are Equal`() {
    #expect(LoadableState<Int>.error(TestError()) == .error(TimeoutError()))
    #expect(LoadableState.loaded(1) != .loaded(2))
    #expect(LoadableState<Int>.absent != .loading)
  }

  @Test func `Debug Descriptions Name The Case And Its Payload`() {
    #expect(LoadableState<Int>.absent.debugDescription == "absent")
    #expect(LoadableState<Int>.loading.debugDescription == "loading")
    #expect(LoadableState.loaded(42).debugDescription == "loaded(42)")
    let error = LoadableState<Int>.error(TestError()).debugDescription
    #expect(error.hasPrefix("error("))
    #expect(error.hasSuffix(")"))
  }
}
