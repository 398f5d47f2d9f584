import IdentifiedCollections
import Operation
import OperationCore
import OperationTestSupport
import Testing

@Suite struct `PaginatedState tests` {
  private typealias State = PaginatedState<Int, String, any Error>

  private struct Flags: Equatable {
    var isLoading = true
    var allPages = false
    var initialPage = false
    var nextPage = false
    var previousPage = false
  }

  private func flags(_ store: OperationStore<State>) -> Flags {
    let state = store.state
    return Flags(
      isLoading: state.isLoading,
      allPages: state.isLoadingAllPages,
      initialPage: state.isLoadingInitialPage,
      nextPage: state.isLoadingNextPage,
      previousPage: state.isLoadingPreviousPage
    )
  }

  /// Holds the next fetch of `query`, starts `fetch`, and returns the loading flags seen while
  /// the fetch is in flight.
  private func flagsWhileFetching(
    _ query: TestPaginated,
    in store: OperationStore<State>,
    _ fetch: @escaping @Sendable () async throws -> Void
  ) async throws -> Flags {
    let started = Gate()
    let release = Gate()
    query.hold(started: started, release: release)
    let task = Task { try await fetch() }
    await started.wait()
    let flags = self.flags(store)
    release.open()
    try await task.value
    #expect(!store.isLoading)
    return flags
  }

  @Test func `Is Not Loading Before Any Fetch`() {
    let store = OperationStore.detached(query: TestPaginated())
    #expect(self.flags(store) == Flags(isLoading: false))
  }

  @Test func `Is Loading All Pages While Refetching Them`() async throws {
    let query = TestPaginated([0: "a"])
    let store = OperationStore.detached(query: query)
    try await store.fetchNextPage()

    let flags = try await self.flagsWhileFetching(query, in: store) {
      try await store.refetchAllPages()
    }

    #expect(flags == Flags(allPages: true))
  }

  @Test func `Is Loading The Initial Page When Fetching The Next Page With No Pages`()
    async throws
  {
    let query = TestPaginated([0: "a"])
    let store = OperationStore.detached(query: query)

    let flags = try await self.flagsWhileFetching(query, in: store) {
      try await store.fetchNextPage()
    }

    #expect(flags == Flags(initialPage: true))
  }

  @Test func `Is Loading The Next Page After The Initial Page`() async throws {
    let query = TestPaginated([0: "a", 1: "b"])
    let store = OperationStore.detached(query: query)
    try await store.fetchNextPage()

    let flags = try await self.flagsWhileFetching(query, in: store) {
      try await store.fetchNextPage()
    }

    #expect(flags == Flags(nextPage: true))
  }

  @Test func `Is Loading The Initial Page When Fetching The Previous Page With No Pages`()
    async throws
  {
    let query = TestPaginated([0: "a"])
    let store = OperationStore.detached(query: query)

    let flags = try await self.flagsWhileFetching(query, in: store) {
      try await store.fetchPreviousPage()
    }

    #expect(flags == Flags(initialPage: true))
  }

  @Test func `Is Loading The Previous Page After The Initial Page`() async throws {
    let query = TestPaginated([0: "a", -1: "b"])
    let store = OperationStore.detached(query: query)
    try await store.fetchPreviousPage()

    let flags = try await self.flagsWhileFetching(query, in: store) {
      try await store.fetchPreviousPage()
    }

    #expect(flags == Flags(previousPage: true))
  }

  @Test func `Is Loading The Initial Page During A Plain Run`() async throws {
    let query = TestPaginated([0: "a"])
    let store = OperationStore.detached(query: query)
    try await store.fetchNextPage()

    let flags = try await self.flagsWhileFetching(query, in: store) {
      try await store.run()
    }

    #expect(flags == Flags(initialPage: true))
  }

  @Test func `Has Next And Previous Pages While Empty, Then By Their Ids`() {
    var state = State(initialValue: [], initialPageId: 0)
    #expect(state.hasNextPage)
    #expect(state.hasPreviousPage)

    state.update(with: .success([Page(id: 0, value: "a")]), using: OperationContext())

    #expect(!state.hasNextPage)
    #expect(!state.hasPreviousPage)
    #expect(state.currentValue == [Page(id: 0, value: "a")])
    #expect(state.valueUpdateCount == 1)
    #expect(state.status.resultValue == [Page(id: 0, value: "a")])
  }

  @Test func `An Error Set Directly Keeps The Pages`() {
    var state = State(initialValue: [Page(id: 0, value: "a")], initialPageId: 0)
    state.update(with: .failure(TestError()), using: OperationContext())
    #expect(state.error is TestError)
    #expect(state.errorUpdateCount == 1)
    #expect(state.currentValue == [Page(id: 0, value: "a")])
    #expect(state.status.isFailure)
  }

  @Test func `A Default Value State Shows The Default Until The Pages Are Set`() {
    let base = State(initialValue: [], initialPageId: 0)
    var state = DefaultOperationState(base, defaultValue: [Page(id: 7, value: "default")])
    #expect(state.currentValue == [Page(id: 7, value: "default")])
    #expect(state.initialValue == [Page(id: 7, value: "default")])
    #expect(state._currentPages.isEmpty)
    #expect(state.hasNextPage)

    state.update(with: .success([]), using: OperationContext())

    #expect(state.currentValue.isEmpty)
  }
}
