import Foundation
import IdentifiedCollections
import Operation
@_spi(Warnings) import OperationCore
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `PaginatedRequest tests` {
  @Test func `Outside A Store A Run Fetches The Initial Page With No Pages`() async throws {
    let query = TestPaginated([0: "a", 1: "b"])
    let runner = OperationRunner(operation: query)

    let value = try await runner.run()

    #expect(value.runValue == .initialPage(Page(id: 0, value: "a")))
    #expect(query.fetchedPageIds == [0])
  }

  @Test func `The Previous Page Id Defaults To None`() async {
    let store = OperationStore.detached(query: ForwardOnlyPaginated())
    await store.fetchNextPage()
    #expect(store.previousPageId == nil)
    #expect(!store.hasPreviousPage)
    #expect(await store.fetchPreviousPage() == nil)
    #expect(store.hasNextPage)
  }

  @Test func `A Refetch Of All Pages Retries Only The Failing Page`() async throws {
    let query = TestPaginated([0: "a", 1: "b", 2: "c"])
    let store = OperationStore.detached(
      query: query.backoff(.noBackoff).delayer(NoDelayer()).retry(limit: 3)
    )
    for _ in 0..<3 {
      try await store.fetchNextPage()
    }
    query.script.withLock {
      $0.failingPageIds = [2]
      $0.fetchedPageIds = []
    }

    await #expect(throws: TestError.self) { try await store.refetchAllPages() }

    // NB: Pages 0 and 1 succeed once; page 2 is tried once and retried 3 times.
    #expect(query.fetchedPageIds == [0, 1, 2, 2, 2, 2])
    #expect(store.currentValue.map(\.id) == [0, 1, 2])
  }

  @Test func `A Retried Refetch Of All Pages Resumes And Succeeds`() async throws {
    let query = FlakyPaginated(values: [0: "a", 1: "b", 2: "c"])
    let store = OperationStore.detached(
      query: query.backoff(.noBackoff).delayer(NoDelayer()).retry(limit: 3)
    )
    for _ in 0..<3 {
      try await store.fetchNextPage()
    }
    query.fetchedPageIds.withLock { $0 = [] }
    query.failuresLeft.withLock { $0 = 2 }

    let pages = try await store.refetchAllPages()

    #expect(pages.map(\.id) == [0, 1, 2])
    #expect(query.fetchedPageIds.withLock { $0 } == [0, 1, 2, 2, 2])
  }

  @Test func `A Refetch Of All Pages Stops When Page Ids Come Around Again`() async throws {
    let query = TestPaginated([0: "a", 1: "b", 2: "c"])
    let store = OperationStore.detached(query: query)
    for _ in 0..<3 {
      try await store.fetchNextPage()
    }
    query.script.withLock {
      $0.nextPageIds = [1: 0]
      $0.fetchedPageIds = []
    }

    var pages = Pages<Int, String>()
    try await withKnownIssue {
      pages = try await store.refetchAllPages()
    } matching: { issue in
      issue.comments.contains(
        Comment(
          rawValue: OperationWarning.paginatedRequestRepeatedPageId(
            requestType: TestPaginated.self,
            pageId: 0
          ).message
        )
      )
    }

    #expect(pages.map(\.id) == [0, 1])
    #expect(query.fetchedPageIds == [0, 1, 0])
  }

  @Test func `Modified Requests Stay Paginated Requests`() async throws {
    let query = TestPaginated([0: "a", 1: "b"])
    let modified = query.retry(limit: 1).deduplicated()
    #expect(modified.initialPageId == 0)
    #expect(modified.path == query.path)
    let page = Page(id: 0, value: "a")
    let paging = Paging(pageId: 0, pages: [page], request: .initialPage)
    #expect(modified.pageId(after: page, using: paging, in: OperationContext()) == 1)
    #expect(modified.pageId(before: page, using: paging, in: OperationContext()) == nil)

    let store = OperationStore.detached(query: modified)
    try await store.fetchNextPage()
    try await store.fetchNextPage()
    #expect(store.currentValue.map(\.id) == [0, 1])
  }

  @Test func `Pages Are Fetched With The Pages So Far And The Kind Of Fetch`() async {
    let recorder = PagingRecorder()
    let store = OperationStore.detached(query: recorder)
    await store.fetchNextPage()
    await store.fetchNextPage()
    await store.fetchPreviousPage()
    await store.refetchAllPages()
    await store.run()

    let pagings = recorder.pagings.withLock { $0 }
    #expect(
      pagings.map(\.request) == [
        .initialPage, .nextPage(1), .previousPage(-1), .allPages, .allPages, .allPages,
        .initialPage,
      ]
    )
    #expect(pagings.map(\.pageId) == [0, 1, -1, -1, 0, 1, 0])
    #expect(pagings.map(\.pages.count) == [0, 1, 2, 0, 1, 2, 3])
  }
}

/// A paginated request whose pages only follow each other: it has no previous pages.
private struct ForwardOnlyPaginated: PaginatedRequest, Hashable {
  let initialPageId = 0

  func pageId(
    after page: Page<Int, String>,
    using paging: Paging<Int, String>,
    in context: OperationContext
  ) -> Int? {
    page.id + 1
  }

  func fetchPage(
    isolation: isolated (any Actor)?,
    using paging: Paging<Int, String>,
    in context: OperationContext,
    with continuation: OperationContinuation<String, Never>
  ) async -> String {
    "page \(paging.pageId)"
  }
}

/// A paginated request whose page 2 fails `failuresLeft` more times before it succeeds.
private struct FlakyPaginated: PaginatedRequest {
  let values: [Int: String]
  let failuresLeft: Lock<Int>
  let fetchedPageIds = Lock([Int]())
  let initialPageId = 0
  private let id = UUID()

  init(values: [Int: String]) {
    self.values = values
    self.failuresLeft = Lock(0)
  }

  var path: OperationPath {
    ["flaky-paginated", self.id]
  }

  func pageId(
    after page: Page<Int, String>,
    using paging: Paging<Int, String>,
    in context: OperationContext
  ) -> Int? {
    self.values[page.id + 1] == nil ? nil : page.id + 1
  }

  func fetchPage(
    isolation: isolated (any Actor)?,
    using paging: Paging<Int, String>,
    in context: OperationContext,
    with continuation: OperationContinuation<String, TestError>
  ) async throws(TestError) -> String {
    self.fetchedPageIds.withLock { $0.append(paging.pageId) }
    let fails = self.failuresLeft.withLock { failuresLeft in
      guard paging.pageId == 2, failuresLeft > 0 else { return false }
      failuresLeft -= 1
      return true
    }
    guard !fails, let value = self.values[paging.pageId] else { throw TestError() }
    return value
  }
}

/// A paginated request over pages -1, 0 and 1 that records every paging it is given.
private struct PagingRecorder: PaginatedRequest {
  let pagings = Lock([Paging<Int, String>]())
  let initialPageId = 0
  private let id = UUID()

  var path: OperationPath {
    ["paging-recorder", self.id]
  }

  func pageId(
    after page: Page<Int, String>,
    using paging: Paging<Int, String>,
    in context: OperationContext
  ) -> Int? {
    page.id < 1 ? page.id + 1 : nil
  }

  func pageId(
    before page: Page<Int, String>,
    using paging: Paging<Int, String>,
    in context: OperationContext
  ) -> Int? {
    page.id > -1 ? page.id - 1 : nil
  }

  func fetchPage(
    isolation: isolated (any Actor)?,
    using paging: Paging<Int, String>,
    in context: OperationContext,
    with continuation: OperationContinuation<String, Never>
  ) async -> String {
    self.pagings.withLock { $0.append(paging) }
    return "page \(paging.pageId)"
  }
}
