import Foundation
import IdentifiedCollections
import Operation
import OperationCore
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `OperationStore+Paginated tests` {
  private typealias State = PaginatedState<Int, String, any Error>

  // MARK: - Custom contexts

  @Test func `Fetches The Next Page Using A Custom Context`() async throws {
    let query = TestPaginated([0: "blob", 1: "blob jr"])
    let store = OperationClient().store(for: query)
    try await store.fetchNextPage()

    let page = try await store.fetchNextPage(using: OperationContext())

    #expect(page == Page(id: 1, value: "blob jr"))
    #expect(store.currentValue == [Page(id: 0, value: "blob"), Page(id: 1, value: "blob jr")])
  }

  @Test func `Fetches The Previous Page Using A Custom Context`() async throws {
    let query = TestPaginated([-1: "blob sr", 0: "blob"])
    let store = OperationClient().store(for: query)
    try await store.fetchNextPage()

    let page = try await store.fetchPreviousPage(using: OperationContext())

    #expect(page == Page(id: -1, value: "blob sr"))
    #expect(store.currentValue == [Page(id: -1, value: "blob sr"), Page(id: 0, value: "blob")])
  }

  @Test func `Refetches All Pages Using A Custom Context`() async throws {
    let query = TestPaginated([0: "blob", 1: "blob jr"])
    let store = OperationClient().store(for: query)
    try await store.fetchNextPage()
    try await store.fetchNextPage()
    query.values = [0: "blob sr", 1: "blob III"]

    let pages = try await store.refetchAllPages(using: OperationContext())

    #expect(pages == [Page(id: 0, value: "blob sr"), Page(id: 1, value: "blob III")])
  }

  // MARK: - Refetching all pages

  @Test func `Refetching All Pages With No Pages Fetches Nothing And Succeeds`() async throws {
    let query = TestPaginated([0: "a"])
    let store = OperationStore.detached(query: query)

    let pages = try await store.refetchAllPages()

    #expect(pages.isEmpty)
    #expect(store.currentValue.isEmpty)
    #expect(store.status.isSuccessful)
    #expect(query.fetchedPageIds.isEmpty)
  }

  @Test func `Has Next And Previous Page After Refetching No Pages`() async throws {
    let store = OperationStore.detached(query: TestPaginated([0: "a"]))
    try await store.refetchAllPages()
    #expect(store.hasNextPage)
    #expect(store.hasPreviousPage)
  }

  @Test func `Refetching All Pages Refetches As Many Pages As The List Had`() async throws {
    let query = TestPaginated([0: "a", 1: "b"])
    let store = OperationStore.detached(query: query)
    try await store.fetchNextPage()
    try await store.fetchNextPage()
    query.values = [0: "c", 1: "d", 2: "e"]

    let pages = try await store.refetchAllPages()

    let expected: Pages<Int, String> = [Page(id: 0, value: "c"), Page(id: 1, value: "d")]
    #expect(pages == expected)
    #expect(store.currentValue == expected)
    #expect(store.status.isSuccessful)
    #expect(store.nextPageId == 2)
    #expect(query.fetchedPageIds == [0, 1, 0, 1])
  }

  @Test func `Refetching All Pages Stops When There Is No Next Page`() async throws {
    let query = TestPaginated([0: "a", 1: "b"])
    let store = OperationStore.detached(query: query)
    try await store.fetchNextPage()
    try await store.fetchNextPage()
    query.values = [0: "c"]

    let pages = try await store.refetchAllPages()

    #expect(pages == [Page(id: 0, value: "c")])
    #expect(store.currentValue == [Page(id: 0, value: "c")])
    #expect(store.status.isSuccessful)
    #expect(!store.hasNextPage)
    #expect(query.fetchedPageIds == [0, 1, 0])
  }

  @Test func `Refetching All Pages Starts From The Earliest Page`() async throws {
    let query = TestPaginated([-1: "c", 0: "a", 1: "b"])
    let store = OperationStore.detached(query: query)
    try await store.fetchNextPage()
    try await store.fetchNextPage()
    query.values = [-1: "d", 0: "e", 1: "f"]
    try await store.fetchPreviousPage()

    let pages = try await store.refetchAllPages()

    let expected: Pages<Int, String> = [
      Page(id: -1, value: "d"), Page(id: 0, value: "e"), Page(id: 1, value: "f"),
    ]
    #expect(pages == expected)
    #expect(store.currentValue == expected)
    #expect(store.status.isSuccessful)
  }

  @Test func `Refetching All Pages With A Task Starts From The Earliest Page`() async throws {
    let query = TestPaginated([-1: "c", 0: "a", 1: "b"])
    let store = OperationStore.detached(query: query)
    try await store.fetchNextPage()
    try await store.fetchNextPage()
    query.values = [-1: "d", 0: "e", 1: "f"]
    try await store.fetchPreviousPage()

    let task = store.refetchAllPagesTask()
    #expect(store.isLoadingAllPages)
    let pages = try await task.runIfNeeded()

    let expected: Pages<Int, String> = [
      Page(id: -1, value: "d"), Page(id: 0, value: "e"), Page(id: 1, value: "f"),
    ]
    #expect(pages == expected)
    #expect(store.currentValue == expected)
    #expect(!store.isLoading)
  }

  @Test func `Refetching All Pages Keeps The List When A Page Fails`() async throws {
    let query = TestPaginated([0: "a", 1: "b"])
    let store = OperationStore.detached(query: query)
    try await store.fetchNextPage()
    try await store.fetchNextPage()
    query.script.withLock { $0.failingPageIds = [1] }

    await #expect(throws: TestError.self) { try await store.refetchAllPages() }

    #expect(store.currentValue == [Page(id: 0, value: "a"), Page(id: 1, value: "b")])
    #expect(store.error is TestError)
  }

  // MARK: - Next and previous pages

  @Test func `Fetching The Next Page First Fetches The Initial Page`() async throws {
    let store = OperationStore.detached(query: TestPaginated([0: "blob"]))
    let page = try await store.fetchNextPage()
    #expect(page == Page(id: 0, value: "blob"))
    #expect(store.currentValue == [Page(id: 0, value: "blob")])
    #expect(store.status.isSuccessful)
  }

  @Test func `Fetches The Next Page After The Initial Page`() async throws {
    let store = OperationStore.detached(query: TestPaginated([0: "blob", 1: "blob jr"]))
    try await store.fetchNextPage()
    #expect(store.hasNextPage)
    #expect(!store.hasPreviousPage)

    let page = try await store.fetchNextPage()

    #expect(page == Page(id: 1, value: "blob jr"))
    #expect(store.currentValue == [Page(id: 0, value: "blob"), Page(id: 1, value: "blob jr")])
    #expect(store.status.isSuccessful)
  }

  @Test func `A Next Page Task Fetches The Page After The Initial Page`() async throws {
    let store = OperationStore.detached(query: TestPaginated([0: "blob", 1: "blob jr"]))
    try await store.fetchNextPage()

    let task = store.fetchNextPageTask()
    #expect(store.isLoadingNextPage)
    let page = try await task.runIfNeeded()

    #expect(page == Page(id: 1, value: "blob jr"))
    #expect(store.currentValue == [Page(id: 0, value: "blob"), Page(id: 1, value: "blob jr")])
  }

  @Test func `Fetching The Previous Page First Fetches The Initial Page`() async throws {
    let store = OperationStore.detached(query: TestPaginated([0: "blob"]))
    let page = try await store.fetchPreviousPage()
    #expect(page == Page(id: 0, value: "blob"))
    #expect(store.currentValue == [Page(id: 0, value: "blob")])
    #expect(store.status.isSuccessful)
  }

  @Test func `Fetches The Previous Page Before The First Page`() async throws {
    let store = OperationStore.detached(query: TestPaginated([0: "blob", -1: "blob jr"]))
    try await store.fetchPreviousPage()
    #expect(!store.hasNextPage)
    #expect(store.hasPreviousPage)

    let page = try await store.fetchPreviousPage()

    #expect(page == Page(id: -1, value: "blob jr"))
    #expect(store.currentValue == [Page(id: -1, value: "blob jr"), Page(id: 0, value: "blob")])
    #expect(store.status.isSuccessful)
  }

  @Test func `A Previous Page Task Fetches The Page Before The First Page`() async throws {
    let store = OperationStore.detached(query: TestPaginated([0: "blob", -1: "blob jr"]))
    try await store.fetchPreviousPage()

    let task = store.fetchPreviousPageTask()
    #expect(store.isLoadingPreviousPage)
    let page = try await task.runIfNeeded()

    #expect(page == Page(id: -1, value: "blob jr"))
    #expect(store.currentValue == [Page(id: -1, value: "blob jr"), Page(id: 0, value: "blob")])
  }

  @Test func `Fetching The Next Page Returns Nil Without Fetching When There Is None`()
    async throws
  {
    let query = TestPaginated([0: "blob", -1: "blob jr"])
    let store = OperationStore.detached(query: query)
    try await store.fetchNextPage()
    #expect(!store.hasNextPage)

    let page = try await store.fetchNextPage()

    #expect(page == nil)
    #expect(store.currentValue == [Page(id: 0, value: "blob")])
    #expect(store.status.isSuccessful)
    #expect(query.fetchedPageIds == [0])
  }

  @Test func `Fetching The Previous Page Returns Nil Without Fetching When There Is None`()
    async throws
  {
    let query = TestPaginated([0: "blob", 1: "blob jr"])
    let store = OperationStore.detached(query: query)
    try await store.fetchPreviousPage()
    #expect(!store.hasPreviousPage)

    let page = try await store.fetchPreviousPage()

    #expect(page == nil)
    #expect(store.currentValue == [Page(id: 0, value: "blob")])
    #expect(query.fetchedPageIds == [0])
  }

  @Test func `Page Tasks Return Nil Without Fetching When There Is No Page`() async throws {
    let query = TestPaginated([0: "blob"])
    let store = OperationStore.detached(query: query)
    try await store.fetchNextPage()

    let next = store.fetchNextPageTask()
    let previous = store.fetchPreviousPageTask()

    #expect(!store.isLoading)
    #expect(try await next.runIfNeeded() == nil)
    #expect(try await previous.runIfNeeded() == nil)
    #expect(next.configuration.name == "OperationStore<\(typeName)> Fetch Next Page Task")
    #expect(previous.configuration.name == "OperationStore<\(typeName)> Fetch Previous Page Task")
    #expect(query.fetchedPageIds == [0])
  }

  @Test func `Next And Previous Fetches Scheduled With No Pages Both Get The Initial Page`()
    async throws
  {
    let query = TestPaginated([0: "blob"])
    let store = OperationStore.detached(query: query)
    let next = store.fetchNextPageTask()
    let previous = store.fetchPreviousPageTask()
    #expect(store.initialPageActiveTasks.count == 2)

    async let nextPage = next.runIfNeeded()
    async let previousPage = previous.runIfNeeded()
    let pages = try await (nextPage, previousPage)

    #expect(pages.0 == Page(id: 0, value: "blob"))
    #expect(pages.1 == pages.0)
    #expect(store.currentValue == [Page(id: 0, value: "blob")])
    #expect(store.status.isSuccessful)
  }

  @Test func `Computes The Neighbouring Page Ids Eagerly`() async throws {
    let query = TestPaginated([-1: "z", 0: "a", 1: "b"])
    let store = OperationStore.detached(query: query)
    #expect(store.nextPageId == nil)
    #expect(store.previousPageId == nil)

    try await store.fetchNextPage()
    #expect(store.nextPageId == 1)
    #expect(store.previousPageId == -1)

    try await store.fetchNextPage()
    #expect(store.nextPageId == nil)
    #expect(store.previousPageId == -1)

    try await store.fetchPreviousPage()
    #expect(store.nextPageId == nil)
    #expect(store.previousPageId == nil)
    #expect(!store.hasNextPage)
    #expect(!store.hasPreviousPage)
  }

  // MARK: - Scheduling

  @Test func `Next And Previous Pages Are Fetched Concurrently`() async throws {
    let query = TestPaginated([0: "blob", 1: "b", -1: "c"])
    let store = OperationStore.detached(query: query.deduplicated())
    try await store.fetchNextPage()
    let started = Gate()
    let release = Gate()
    query.hold(started: started, release: release)

    let next = Task { try await store.fetchNextPage() }
    await started.wait()
    // NB: The next page is still in flight, so the previous page does not wait for it.
    let previousPage = try await store.fetchPreviousPage()
    #expect(store.isLoadingNextPage)
    release.open()
    let nextPage = try await next.value

    #expect(previousPage == Page(id: -1, value: "c"))
    #expect(nextPage == Page(id: 1, value: "b"))
    #expect(
      store.currentValue == [
        Page(id: -1, value: "c"), Page(id: 0, value: "blob"), Page(id: 1, value: "b"),
      ]
    )
    #expect(store.status.isSuccessful)
  }

  @Test func `A Next Page Fetch Waits For A Refetch Of All Pages`() async throws {
    let query = TestPaginated([0: "blob", 1: "blob jr", 2: "b", 3: "c"])
    let store = OperationStore.detached(query: query)
    try await store.fetchNextPage()
    try await store.fetchNextPage()
    query.script.withLock {
      $0.values = [0: "a", 2: "b", 3: "c"]
      $0.nextPageIds = [0: 2]
    }
    let started = Gate()
    let release = Gate()
    query.hold(started: started, release: release)

    let all = Task { try await store.refetchAllPages() }
    await started.wait()
    let nextTask = store.fetchNextPageTask()
    let next = Task { try await nextTask.runIfNeeded() }
    release.open()
    let pages = try await all.value
    let page = try await next.value

    #expect(pages == [Page(id: 0, value: "a"), Page(id: 2, value: "b")])
    #expect(page == Page(id: 3, value: "c"))
    #expect(
      store.currentValue == [
        Page(id: 0, value: "a"), Page(id: 2, value: "b"), Page(id: 3, value: "c"),
      ]
    )
    #expect(query.fetchedPageIds == [0, 1, 0, 2, 3])
    #expect(store.status.isSuccessful)
  }

  @Test func `A Previous Page Fetch Waits For A Refetch Of All Pages`() async throws {
    let query = TestPaginated([0: "blob", -1: "blob jr", -2: "blob sr", -3: "d"])
    let store = OperationStore.detached(query: query)
    for _ in 0..<3 {
      try await store.fetchPreviousPage()
    }
    query.script.withLock {
      $0.values = [-2: "a", -1: "b", 2: "c", -3: "d"]
      $0.nextPageIds = [-1: 2]
    }
    let started = Gate()
    let release = Gate()
    query.hold(started: started, release: release)

    let all = Task { try await store.refetchAllPages() }
    await started.wait()
    let previousTask = store.fetchPreviousPageTask()
    let previous = Task { try await previousTask.runIfNeeded() }
    release.open()
    let pages = try await all.value
    let page = try await previous.value

    #expect(pages == [Page(id: -2, value: "a"), Page(id: -1, value: "b"), Page(id: 2, value: "c")])
    #expect(page == Page(id: -3, value: "d"))
    #expect(
      store.currentValue == [
        Page(id: -3, value: "d"), Page(id: -2, value: "a"), Page(id: -1, value: "b"),
        Page(id: 2, value: "c"),
      ]
    )
    #expect(store.status.isSuccessful)
  }

  @Test func `A Refetch Of All Pages Waits For A Next Page Fetch In Flight`() async throws {
    let query = TestPaginated([0: "a", 1: "b"])
    let store = OperationStore.detached(query: query)
    try await store.fetchNextPage()
    let started = Gate()
    let release = Gate()
    query.hold(started: started, release: release)

    let next = Task { try await store.fetchNextPage() }
    await started.wait()
    let allTask = store.refetchAllPagesTask()
    let all = Task { try await allTask.runIfNeeded() }
    query.values = [0: "c", 1: "d"]
    release.open()
    _ = try await next.value
    let pages = try await all.value

    // NB: The refetch started after the next page was added, so it refetched both pages.
    #expect(pages == [Page(id: 0, value: "c"), Page(id: 1, value: "d")])
    #expect(query.fetchedPageIds == [0, 1, 0, 1])
  }

  @Test func `A Next Page Fetch On An Empty List Does Not Wait For Another Initial Fetch`()
    async throws
  {
    let query = TestPaginated([0: "a", 1: "b"])
    let store = OperationStore.detached(query: query)
    let started = Gate()
    let release = Gate()
    query.hold(started: started, release: release)

    let initial = Task { try await store.run() }
    await started.wait()
    let page = try await store.fetchNextPage()

    // NB: With no pages, fetching the next page fetches the initial page, alongside the held run.
    #expect(page == Page(id: 0, value: "a"))
    #expect(store.isLoadingInitialPage)
    release.open()
    _ = try await initial.value
    #expect(store.currentValue == [Page(id: 0, value: "a")])
  }

  @Test func `A Next Page Fetch Waits For A Plain Run In Flight`() async throws {
    let query = TestPaginated([0: "a", 1: "b"])
    let store = OperationStore.detached(query: query)
    try await store.fetchNextPage()
    let started = Gate()
    let release = Gate()
    query.hold(started: started, release: release)

    let initial = Task { try await store.run() }
    await started.wait()
    let nextTask = store.fetchNextPageTask()
    #expect(store.isLoadingNextPage)
    let next = Task { try await nextTask.runIfNeeded() }
    release.open()
    _ = try await initial.value
    let page = try await next.value

    // NB: Had the next page not waited, the run would have replaced the list after it.
    #expect(page == Page(id: 1, value: "b"))
    #expect(store.currentValue == [Page(id: 0, value: "a"), Page(id: 1, value: "b")])
  }

  // MARK: - Plain runs

  @Test func `A Plain Run Refetches Only The Initial Page And Replaces The List`() async throws {
    let query = TestPaginated([0: "blob", 1: "b", -1: "c"])
    let client = OperationClient()
    let pagedStore = client.store(for: query)
    try await pagedStore.fetchNextPage()
    try await pagedStore.fetchNextPage()
    try await pagedStore.fetchPreviousPage()
    let store = try #require(client.store(with: query.path)?.base as? OperationStore<State>)
    query.values = [0: "a", 1: "c", -1: "d"]

    let value = try await store.run()

    #expect(value.runValue == .initialPage(Page(id: 0, value: "a")))
    #expect(store.currentValue == [Page(id: 0, value: "a")])
    #expect(store.status.isSuccessful)
    #expect(store.nextPageId == 1)
    #expect(store.previousPageId == -1)
  }

  // MARK: - Task names

  private var typeName: String { "PaginatedState<Int, String, Error>" }

  @Test func `Default Fetch All Pages Task Name`() {
    let store = OperationClient().store(for: TestPaginated())
    let task = store.refetchAllPagesTask()
    #expect(task.configuration.name == "OperationStore<\(self.typeName)> Fetch All Pages Task")
  }

  @Test func `Default Fetch Next Page Task Name`() {
    let store = OperationClient().store(for: TestPaginated())
    let task = store.fetchNextPageTask()
    #expect(task.configuration.name == "OperationStore<\(self.typeName)> Fetch Next Page Task")
  }

  @Test func `Default Fetch Previous Page Task Name`() {
    let store = OperationClient().store(for: TestPaginated())
    let task = store.fetchPreviousPageTask()
    #expect(
      task.configuration.name == "OperationStore<\(self.typeName)> Fetch Previous Page Task"
    )
  }

  @Test func `The Fetch All Pages Task Name Overrides A Custom Name`() {
    let store = OperationClient().store(for: TestPaginated())
    var context = OperationContext()
    context.operationTaskConfiguration.name = "Custom Task"
    let task = store.refetchAllPagesTask(using: context)
    #expect(task.configuration.name == "OperationStore<\(self.typeName)> Fetch All Pages Task")
  }

  @Test func `Next And Previous Page Tasks Keep A Custom Name`() {
    let store = OperationClient().store(for: TestPaginated())
    var context = OperationContext()
    context.operationTaskConfiguration.name = "Custom Task"
    #expect(store.fetchNextPageTask(using: context).configuration.name == "Custom Task")
    #expect(store.fetchPreviousPageTask(using: context).configuration.name == "Custom Task")
  }

  // MARK: - Reset

  @Test func `Resetting Cancels Every Active Task`() async throws {
    let query = TestPaginated([0: "a"])
    let store = OperationStore.detached(query: query)
    let task = store.fetchNextPageTask()
    store.resetState()
    await #expect(throws: CancellationError.self) { try await task.runIfNeeded() }
  }

  @Test func `Resetting Removes Every Active Task`() async throws {
    let store = OperationStore.detached(query: TestPaginated([0: "a", 1: "b", -1: "c"]))
    try await store.fetchNextPage()
    let next = store.fetchNextPageTask()
    let previous = store.fetchPreviousPageTask()
    let all = store.refetchAllPagesTask()
    let initial = store.runTask()
    #expect(store.nextPageActiveTasks.count == 1)
    #expect(store.previousPageActiveTasks.count == 1)
    #expect(store.allPagesActiveTasks.count == 1)
    #expect(store.initialPageActiveTasks.count == 1)

    store.resetState()

    #expect(store.nextPageActiveTasks.isEmpty)
    #expect(store.previousPageActiveTasks.isEmpty)
    #expect(store.allPagesActiveTasks.isEmpty)
    #expect(store.initialPageActiveTasks.isEmpty)
    #expect(!store.isLoading)
    _ = (next, previous, all, initial)
  }

  @Test func `Resetting Restores The Initial Values`() async throws {
    let store = OperationStore.detached(query: TestPaginated([0: "a", 1: "b"]))
    try await store.fetchNextPage()
    #expect(store.currentValue == [Page(id: 0, value: "a")])
    #expect(store.valueUpdateCount == 1)
    #expect(store.valueLastUpdatedAt != nil)
    #expect(store.nextPageId == 1)

    store.resetState()

    #expect(store.currentValue.isEmpty)
    #expect(store.valueUpdateCount == 0)
    #expect(store.valueLastUpdatedAt == nil)
    #expect(store.nextPageId == nil)
    #expect(store.hasNextPage)
  }

  @Test func `Results Of Fetches Started Before A Reset Are Ignored`() async throws {
    let query = TestPaginated([0: "a"])
    let store = OperationStore.detached(query: query)
    let started = Gate()
    let release = Gate()
    query.hold(started: started, release: release)
    let fetch = Task { try await store.fetchNextPage() }
    await started.wait()

    store.resetState()
    release.open()
    _ = try? await fetch.value

    #expect(store.currentValue.isEmpty)
    #expect(store.valueUpdateCount == 0)
  }

  // MARK: - Controllers

  @Test func `A Controller Yields Pages`() throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 10))
    let controller = PagesController()
    let store = OperationStore.detached(
      query: TestPaginated().controlled(by: controller).clock(clock)
    )
    let controls = try #require(controller.controls)

    controls.yield([Page(id: 0, value: "blob")])
    #expect(store.currentValue == [Page(id: 0, value: "blob")])
    #expect(store.valueUpdateCount == 1)
    #expect(store.valueLastUpdatedAt == Date(timeIntervalSince1970: 10))

    clock.date = Date(timeIntervalSince1970: 20)
    controls.yield([])
    #expect(store.currentValue.isEmpty)
    #expect(store.valueUpdateCount == 2)
    #expect(store.valueLastUpdatedAt == Date(timeIntervalSince1970: 20))
  }

  @Test func `A Controller Yields An Error`() throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 10))
    let controller = PagesController()
    let store = OperationStore.detached(
      query: TestPaginated().controlled(by: controller).clock(clock)
    )
    let controls = try #require(controller.controls)

    controls.yield(throwing: TestError())

    #expect(store.error is TestError)
    #expect(store.errorUpdateCount == 1)
    #expect(store.errorLastUpdatedAt == Date(timeIntervalSince1970: 10))
  }

  @Test func `Controller Pages Yielded During An Initial Fetch Are Merged With Its Page`()
    async throws
  {
    let controller = PagesController()
    let query = TestPaginated([0: "vlov"])
    let store = OperationStore.detached(query: query.controlled(by: controller))
    let controls = try #require(controller.controls)
    let started = Gate()
    let release = Gate()
    query.hold(started: started, release: release)

    let fetch = Task { try await store.fetchNextPage() }
    await started.wait()
    controls.yield([Page(id: 0, value: "blob")])
    #expect(store.currentValue == [Page(id: 0, value: "blob")])
    release.open()
    _ = try await fetch.value

    #expect(store.currentValue == [Page(id: 0, value: "vlov")])
  }

  @Test func `Controller Pages Yielded During A Next Page Fetch Drop A Page With No Neighbour`()
    async throws
  {
    let controller = PagesController()
    let query = TestPaginated([0: "vlov", 1: "trov"])
    let store = OperationStore.detached(query: query.controlled(by: controller))
    let controls = try #require(controller.controls)
    try await store.fetchNextPage()
    let started = Gate()
    let release = Gate()
    query.hold(started: started, release: release)

    let fetch = Task { try await store.fetchNextPage() }
    await started.wait()
    controls.yield([Page(id: 10, value: "blob")])
    #expect(store.currentValue == [Page(id: 10, value: "blob")])
    release.open()
    _ = try await fetch.value

    // NB: The next page goes after page 0, which is no longer in the list.
    #expect(store.currentValue == [Page(id: 10, value: "blob")])
  }

  // MARK: - Yields

  @Test func `Yields During A Refetch Of All Pages Show The Pages Refetched So Far`() async throws {
    let query = TestPaginated([0: "a", 1: "b", 2: "c"])
    let store = OperationStore.detached(query: query)
    for _ in 0..<3 {
      try await store.fetchNextPage()
    }
    query.script.withLock { $0.yields = [1: [.success("b-cached")]] }
    let recorder = PaginatedEventRecorder<State>()

    try await store.refetchAllPages(handler: recorder.eventHandler())

    let yielded = recorder.states.dropFirst().first?.currentValue
    #expect(yielded == [Page(id: 0, value: "a"), Page(id: 1, value: "b-cached")])
    #expect(
      store.currentValue == [
        Page(id: 0, value: "a"), Page(id: 1, value: "b"), Page(id: 2, value: "c"),
      ]
    )
  }

  // MARK: - Default values

  @Test func `Uses The Default Value Until The Pages Are First Set`() {
    let page = Page(id: 0, value: "blob")
    let page2 = Page(id: 0, value: "blob 2")
    let store = OperationClient().store(for: TestPaginated().defaultValue([page]))

    #expect(store.currentValue == [page])
    store.currentValue = [page2]
    #expect(store.currentValue == [page2])
    store.currentValue = []
    #expect(store.currentValue.isEmpty)
  }

  @Test func `A Default Value Store Fetches The Initial Page Behind Its Default Pages`()
    async throws
  {
    let store = OperationStore.detached(
      query: TestPaginated([0: "a", 1: "b"]).defaultValue([Page(id: 9, value: "placeholder")])
    )
    #expect(store.hasNextPage)

    let first = try await store.fetchNextPage()
    let second = try await store.fetchNextPage()

    #expect(first == Page(id: 0, value: "a"))
    #expect(second == Page(id: 1, value: "b"))
    #expect(store.currentValue == [Page(id: 0, value: "a"), Page(id: 1, value: "b")])
    store.resetState()
    #expect(store.currentValue == [Page(id: 9, value: "placeholder")])
  }

  // MARK: - Scale

  @Test func `Fetches A Thousand Pages One After Another`() async throws {
    let count = 1_000
    let values = Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, "page \($0)") })
    let query = TestPaginated(values)
    let store = OperationStore.detached(query: query)

    while try await store.fetchNextPage() != nil {}

    #expect(store.currentValue.count == count)
    #expect(store.currentValue.map(\.id) == Array(0..<count))
    #expect(store.currentValue.allSatisfy { $0.value == "page \($0.id)" })
    #expect(query.fetchedPageIds == Array(0..<count))
    #expect(!store.hasNextPage)
    #expect(store.valueUpdateCount == count)
  }

  @Test func `Adding A Page Grows The Stored List In Place`() async throws {
    // NB: A list that is copied on every append gets a new buffer each time. Merged in place, the
    // buffer moves only when it grows past its capacity, which happens O(log n) times.
    let count = 512
    let values = Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, "page \($0)") })
    let store = OperationStore.detached(query: TestPaginated(values))
    var moves = 0
    var address: UnsafeRawPointer?

    while try await store.fetchNextPage() != nil {
      let newAddress = store.currentValue.elements.withUnsafeBufferPointer {
        UnsafeRawPointer($0.baseAddress)
      }
      if newAddress != address {
        moves += 1
        address = newAddress
      }
    }

    #expect(store.currentValue.count == count)
    #expect(moves <= 24)
  }
}

/// A controller that keeps the controls of the last store it was attached to.
private final class PagesController: OperationController, Sendable {
  typealias State = PaginatedState<Int, String, any Error>

  private let storage = Lock<OperationControls<State>?>(nil)

  var controls: OperationControls<State>? {
    self.storage.withLock { $0 }
  }

  func control(with controls: OperationControls<State>) -> OperationSubscription {
    self.storage.withLock { $0 = controls }
    return .empty
  }
}
