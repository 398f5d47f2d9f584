import IdentifiedCollections
import Operation
import OperationCore
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `PaginatedEventHandler tests` {
  private typealias State = PaginatedState<Int, String, any Error>
  private typealias Recorder = PaginatedEventRecorder<State>

  private static let failure = TestError(message: "Page 0 failed.")

  @Test func `Fetching The Next Page Sends Every Event In Order`() async throws {
    let recorder = Recorder()
    let store = OperationStore.detached(query: TestPaginated([0: "a"]))

    try await store.fetchNextPage(handler: recorder.eventHandler())

    #expect(
      recorder.events == [
        .stateChanged,
        .fetchingStarted,
        .pageFetchingStarted(0),
        .pageResultReceived(0, .success(Page(id: 0, value: "a"))),
        .pageFetchingEnded(0),
        .resultReceived(.success([Page(id: 0, value: "a")])),
        .fetchingEnded,
        .stateChanged,
      ]
    )
    #expect(recorder.states.map(\.isLoadingInitialPage) == [true, false])
  }

  /// The two ways to fetch the first page of an empty store.
  enum FirstPageFetch: CaseIterable, Sendable {
    case next
    case previous
  }

  @Test(arguments: FirstPageFetch.allCases)
  func `A Failing First Page Sends Every Event In Order`(fetch: FirstPageFetch) async {
    let recorder = Recorder()
    let store = OperationStore.detached(query: TestPaginated())

    switch fetch {
    case .next: _ = try? await store.fetchNextPage(handler: recorder.eventHandler())
    case .previous: _ = try? await store.fetchPreviousPage(handler: recorder.eventHandler())
    }

    #expect(
      recorder.events == [
        .stateChanged,
        .fetchingStarted,
        .pageFetchingStarted(0),
        .pageResultReceived(0, .failure(Self.failure)),
        .pageFetchingEnded(0),
        .resultReceived(.failure(Self.failure)),
        .fetchingEnded,
        .stateChanged,
      ]
    )
  }

  @Test func `Fetching The Previous Page Sends Every Event In Order`() async throws {
    let recorder = Recorder()
    let store = OperationStore.detached(query: TestPaginated([0: "a", -1: "b"]))
    try await store.fetchPreviousPage()

    try await store.fetchPreviousPage(handler: recorder.eventHandler())

    #expect(
      recorder.events == [
        .stateChanged,
        .fetchingStarted,
        .pageFetchingStarted(-1),
        .pageResultReceived(-1, .success(Page(id: -1, value: "b"))),
        .pageFetchingEnded(-1),
        .resultReceived(.success([Page(id: -1, value: "b"), Page(id: 0, value: "a")])),
        .fetchingEnded,
        .stateChanged,
      ]
    )
  }

  @Test func `Refetching All Pages Sends Page Events For Each Page`() async throws {
    let recorder = Recorder()
    let store = OperationStore.detached(query: TestPaginated([0: "a", 1: "b"]))
    try await store.fetchNextPage()
    try await store.fetchNextPage()

    try await store.refetchAllPages(handler: recorder.eventHandler())

    #expect(
      recorder.events == [
        .stateChanged,
        .fetchingStarted,
        .pageFetchingStarted(0),
        .pageResultReceived(0, .success(Page(id: 0, value: "a"))),
        .pageFetchingEnded(0),
        .pageFetchingStarted(1),
        .pageResultReceived(1, .success(Page(id: 1, value: "b"))),
        .pageFetchingEnded(1),
        .resultReceived(.success([Page(id: 0, value: "a"), Page(id: 1, value: "b")])),
        .fetchingEnded,
        .stateChanged,
      ]
    )
  }

  @Test func `A Failing Refetch Of All Pages Stops At The Failing Page`() async throws {
    let recorder = Recorder()
    let query = TestPaginated([0: "a", 1: "b"])
    let store = OperationStore.detached(query: query)
    try await store.fetchNextPage()
    try await store.fetchNextPage()
    query.values = [:]

    _ = try? await store.refetchAllPages(handler: recorder.eventHandler())

    #expect(
      recorder.events == [
        .stateChanged,
        .fetchingStarted,
        .pageFetchingStarted(0),
        .pageResultReceived(0, .failure(Self.failure)),
        .pageFetchingEnded(0),
        .resultReceived(.failure(Self.failure)),
        .fetchingEnded,
        .stateChanged,
      ]
    )
  }

  @Test func `A Plain Run Sends Page Events To Subscribers`() async throws {
    let recorder = Recorder()
    let store = OperationStore.detached(query: TestPaginated([0: "a", 1: "b"]))
    try await store.fetchNextPage()
    try await store.fetchNextPage()
    let subscription = store.subscribe(with: recorder.eventHandler())

    try await store.run()

    #expect(
      recorder.events == [
        .stateChanged,
        .stateChanged,
        .fetchingStarted,
        .pageFetchingStarted(0),
        .pageResultReceived(0, .success(Page(id: 0, value: "a"))),
        .pageFetchingEnded(0),
        .resultReceived(.success([Page(id: 0, value: "a")])),
        .fetchingEnded,
        .stateChanged,
      ]
    )
    subscription.cancel()
  }

  @Test func `Subscribing Fetches The Initial Page With Every Event`() async throws {
    let recorder = Recorder()
    let gate = Gate()
    let store = OperationClient().store(for: TestPaginated([0: "a"], gate: gate))

    let subscription = store.subscribe(with: recorder.eventHandler())
    let task = try #require(store.initialPageActiveTasks.first)
    gate.open()
    _ = try await task.runIfNeeded()

    #expect(
      recorder.events == [
        .stateChanged,
        .stateChanged,
        .fetchingStarted,
        .pageFetchingStarted(0),
        .pageResultReceived(0, .success(Page(id: 0, value: "a"))),
        .pageFetchingEnded(0),
        .resultReceived(.success([Page(id: 0, value: "a")])),
        .fetchingEnded,
        .stateChanged,
      ]
    )
    subscription.cancel()
  }

  @Test func `Only Subscribers And The Run's Own Handler Receive Page Events`() async throws {
    let subscriber = Recorder()
    let first = Recorder()
    let second = Recorder()
    let store = OperationStore.detached(query: TestPaginated([0: "a", 1: "b"]))
    let subscription = store.subscribe(with: subscriber.eventHandler())

    try await store.fetchNextPage(handler: first.eventHandler())
    try await store.fetchNextPage(handler: second.eventHandler())

    #expect(first.events.contains(.pageFetchingStarted(0)))
    #expect(!first.events.contains(.pageFetchingStarted(1)))
    #expect(second.events.contains(.pageFetchingStarted(1)))
    #expect(!second.events.contains(.pageFetchingStarted(0)))
    #expect(subscriber.events.contains(.pageFetchingStarted(0)))
    #expect(subscriber.events.contains(.pageFetchingStarted(1)))
    subscription.cancel()
  }

  // MARK: - Yields

  @Test func `Yields While Fetching The Initial Page Send Page Results And State Changes`()
    async throws
  {
    let recorder = Recorder()
    let query = TestPaginated([0: "final"])
    query.script.withLock { $0.yields = [0: [.success("blob"), .success("blob jr")]] }
    let store = OperationStore.detached(query: query)

    let page = try await store.fetchNextPage(handler: recorder.eventHandler())

    #expect(
      recorder.events == [
        .stateChanged,
        .fetchingStarted,
        .pageFetchingStarted(0),
        .pageResultReceived(0, .success(Page(id: 0, value: "blob"))),
        .stateChanged,
        .pageResultReceived(0, .success(Page(id: 0, value: "blob jr"))),
        .stateChanged,
        .pageResultReceived(0, .success(Page(id: 0, value: "final"))),
        .pageFetchingEnded(0),
        .resultReceived(.success([Page(id: 0, value: "final")])),
        .fetchingEnded,
        .stateChanged,
      ]
    )
    #expect(
      recorder.states.map(\.currentValue) == [
        [], [Page(id: 0, value: "blob")], [Page(id: 0, value: "blob jr")],
        [Page(id: 0, value: "final")],
      ]
    )
    #expect(page == Page(id: 0, value: "final"))
    #expect(store.currentValue == [Page(id: 0, value: "final")])
  }

  @Test func `Yields While Fetching The Next Page Insert It After The Last Page`() async throws {
    let recorder = Recorder()
    let query = TestPaginated([0: "a", 1: "final"])
    query.script.withLock { $0.yields = [1: [.success("blob"), .success("blob jr")]] }
    let store = OperationStore.detached(query: query)
    try await store.fetchNextPage()

    let page = try await store.fetchNextPage(handler: recorder.eventHandler())

    let first = Page(id: 0, value: "a")
    #expect(
      recorder.events == [
        .stateChanged,
        .fetchingStarted,
        .pageFetchingStarted(1),
        .pageResultReceived(1, .success(Page(id: 1, value: "blob"))),
        .stateChanged,
        .pageResultReceived(1, .success(Page(id: 1, value: "blob jr"))),
        .stateChanged,
        .pageResultReceived(1, .success(Page(id: 1, value: "final"))),
        .pageFetchingEnded(1),
        .resultReceived(.success([first, Page(id: 1, value: "final")])),
        .fetchingEnded,
        .stateChanged,
      ]
    )
    #expect(recorder.states[1].currentValue == [first, Page(id: 1, value: "blob")])
    #expect(recorder.states[2].currentValue == [first, Page(id: 1, value: "blob jr")])
    #expect(page == Page(id: 1, value: "final"))
    #expect(store.currentValue == [first, Page(id: 1, value: "final")])
  }

  @Test func `Yields While Fetching The Previous Page Insert It Before The First Page`()
    async throws
  {
    let recorder = Recorder()
    let query = TestPaginated([0: "a", -1: "final"])
    query.script.withLock { $0.yields = [-1: [.success("blob"), .success("blob jr")]] }
    let store = OperationStore.detached(query: query)
    try await store.fetchPreviousPage()

    let page = try await store.fetchPreviousPage(handler: recorder.eventHandler())

    let first = Page(id: 0, value: "a")
    #expect(
      recorder.events == [
        .stateChanged,
        .fetchingStarted,
        .pageFetchingStarted(-1),
        .pageResultReceived(-1, .success(Page(id: -1, value: "blob"))),
        .stateChanged,
        .pageResultReceived(-1, .success(Page(id: -1, value: "blob jr"))),
        .stateChanged,
        .pageResultReceived(-1, .success(Page(id: -1, value: "final"))),
        .pageFetchingEnded(-1),
        .resultReceived(.success([Page(id: -1, value: "final"), first])),
        .fetchingEnded,
        .stateChanged,
      ]
    )
    #expect(recorder.states[1].currentValue == [Page(id: -1, value: "blob"), first])
    #expect(page == Page(id: -1, value: "final"))
    #expect(store.currentValue == [Page(id: -1, value: "final"), first])
  }

  @Test func `Yields While Refetching All Pages Send Page Results And Partial Lists`()
    async throws
  {
    let recorder = Recorder()
    let query = TestPaginated([0: "a", 1: "b"])
    let store = OperationStore.detached(query: query)
    try await store.fetchNextPage()
    try await store.fetchNextPage()
    query.script.withLock {
      $0.yields = [
        0: [.success("blob"), .success("blob jr")],
        1: [.success("trob"), .failure(TestError(message: "Cache miss."))],
      ]
    }

    let pages = try await store.refetchAllPages(handler: recorder.eventHandler())

    #expect(
      recorder.events == [
        .stateChanged,
        .fetchingStarted,
        .pageFetchingStarted(0),
        .pageResultReceived(0, .success(Page(id: 0, value: "blob"))),
        .stateChanged,
        .pageResultReceived(0, .success(Page(id: 0, value: "blob jr"))),
        .stateChanged,
        .pageResultReceived(0, .success(Page(id: 0, value: "a"))),
        .pageFetchingEnded(0),
        .pageFetchingStarted(1),
        .pageResultReceived(1, .success(Page(id: 1, value: "trob"))),
        .stateChanged,
        .pageResultReceived(1, .failure(TestError(message: "Cache miss."))),
        .stateChanged,
        .pageResultReceived(1, .success(Page(id: 1, value: "b"))),
        .pageFetchingEnded(1),
        .resultReceived(.success(pages)),
        .fetchingEnded,
        .stateChanged,
      ]
    )
    #expect(recorder.states[1].currentValue == [Page(id: 0, value: "blob")])
    #expect(
      recorder.states[3].currentValue == [Page(id: 0, value: "a"), Page(id: 1, value: "trob")]
    )
    #expect(pages == [Page(id: 0, value: "a"), Page(id: 1, value: "b")])
    #expect(store.errorLastUpdatedAt != nil)
    #expect(store.error == nil)
    #expect(store.currentValue == pages)
  }

  @Test func `A Yielded Value Then An Error Ends In The Error`() async {
    let recorder = Recorder()
    let query = TestPaginated()
    query.script.withLock { $0.yields = [0: [.success("blob")]] }
    let store = OperationStore.detached(query: query)

    let page = try? await store.fetchPreviousPage(handler: recorder.eventHandler())

    #expect(
      recorder.events == [
        .stateChanged,
        .fetchingStarted,
        .pageFetchingStarted(0),
        .pageResultReceived(0, .success(Page(id: 0, value: "blob"))),
        .stateChanged,
        .pageResultReceived(0, .failure(Self.failure)),
        .pageFetchingEnded(0),
        .resultReceived(.failure(Self.failure)),
        .fetchingEnded,
        .stateChanged,
      ]
    )
    #expect(page == nil)
    #expect(store.error is TestError)
    #expect(store.currentValue == [Page(id: 0, value: "blob")])
  }

  // MARK: - Update reasons

  @Test func `Page Results Carry Their Update Reason`() async {
    let recorder = Recorder()
    let query = TestPaginated()
    query.script.withLock { $0.yields = [0: [.success("blob")]] }
    let store = OperationStore.detached(query: query)

    _ = try? await store.fetchNextPage(handler: recorder.eventHandler())

    let reasons = zip(recorder.events, recorder.contexts).compactMap { event, context in
      if case .pageResultReceived = event { context.operationResultUpdateReason } else { nil }
    }
    #expect(reasons == [.yieldedResult, .returnedFinalResult])
  }

  @Test func `Only The Final Result Reaches On Result Received`() async throws {
    let recorder = Recorder()
    let query = TestPaginated([0: "final"])
    query.script.withLock { $0.yields = [0: [.success("blob")]] }
    let store = OperationStore.detached(query: query)

    try await store.fetchNextPage(handler: recorder.eventHandler())

    let results = zip(recorder.events, recorder.contexts).compactMap { event, context in
      if case .resultReceived = event { context.operationResultUpdateReason } else { nil }
    }
    #expect(results == [.returnedFinalResult])
  }
}
