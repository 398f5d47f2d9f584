import IdentifiedCollections
import OperationCore
import Testing

// The example of the Pagination article, as written there.

struct NumberPage: Hashable, Sendable {
  let numbers: [Int]
  let nextOffset: Int?
}

struct NumbersQuery: PaginatedRequest, Hashable {
  let count: Int
  let pageSize: Int
  let startOffset: Int

  var initialPageId: Int { self.startOffset }

  func pageId(
    after page: Page<Int, NumberPage>,
    using paging: Paging<Int, NumberPage>,
    in context: OperationContext
  ) -> Int? {
    page.value.nextOffset
  }

  func pageId(
    before page: Page<Int, NumberPage>,
    using paging: Paging<Int, NumberPage>,
    in context: OperationContext
  ) -> Int? {
    page.id > 0 ? max(page.id - self.pageSize, 0) : nil
  }

  func fetchPage(
    isolation: isolated (any Actor)?,
    using paging: Paging<Int, NumberPage>,
    in context: OperationContext,
    with continuation: OperationContinuation<NumberPage, Never>
  ) async -> NumberPage {
    let end = min(paging.pageId + self.pageSize, self.count)
    return NumberPage(
      numbers: Array(paging.pageId..<end),
      nextOffset: end < self.count ? end : nil
    )
  }
}

@Suite struct `Pagination article example tests` {
  @Test func `Fetches Pages In Both Directions, Refetches Them, And Runs Plainly`() async {
    let store = OperationStore.detached(
      query: NumbersQuery(count: 25, pageSize: 10, startOffset: 10)
    )

    let initial = await store.fetchNextPage()
    #expect(initial?.id == 10)
    let next = await store.fetchNextPage()
    #expect(next?.id == 20)
    let previous = await store.fetchPreviousPage()
    #expect(previous?.id == 0)
    #expect(store.currentValue.map(\.id) == [0, 10, 20])
    #expect(store.currentValue.flatMap(\.value.numbers) == Array(0..<25))
    #expect(!store.hasNextPage)
    #expect(await store.fetchNextPage() == nil)

    let pages = await store.refetchAllPages()
    #expect(pages.map(\.id) == [0, 10, 20])

    await store.run()
    #expect(store.currentValue.map(\.id) == [10])
  }
}
