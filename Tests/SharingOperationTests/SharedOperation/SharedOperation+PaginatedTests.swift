@_spi(Warnings) import SharingOperation
import Testing

// Pins upstream's PaginatedKeyTests (reference §17) and the rest of the paginated projected API.

@Suite struct `SharedOperation+Paginated tests` {
  @Dependency(\.defaultOperationClient) private var client

  @Test func `Fetch Next Page Appends Pages`() async throws {
    let query = TestPaginated([0: "hello", 1: "world"])
    @SharedOperation(query.disableAutomaticRunning()) var value = []
    #expect(value.isEmpty)

    let first = try await $value.fetchNextPage()
    #expect(first == Page(id: 0, value: "hello"))
    #expect(Array(value) == [Page(id: 0, value: "hello")])
    #expect($value.hasNextPage)

    try await $value.fetchNextPage()
    #expect(Array(value) == [Page(id: 0, value: "hello"), Page(id: 1, value: "world")])
    #expect(!$value.hasNextPage)

    #expect(try await $value.fetchNextPage() == nil)
    #expect(query.fetchedPageIds == [0, 1])
  }

  @Test func `Fetch Next Page Shows The Error`() async throws {
    let query = TestPaginated()
    @SharedOperation(query.disableAutomaticRunning()) var value
    #expect($value.error == nil)

    await #expect(throws: TestError.self) {
      try await $value.fetchNextPage()
    }
    #expect($value.error as? TestError == TestError(message: "Page 0 failed."))
  }

  @Test func `Fetch Previous Page Prepends Pages`() async throws {
    let query = TestPaginated([0: "a", 1: "b"], initialPageId: 1)
    @SharedOperation(query.disableAutomaticRunning()) var value

    try await $value.fetchPreviousPage()
    #expect(Array(value) == [Page(id: 1, value: "b")])
    #expect($value.hasPreviousPage)

    let previous = try await $value.fetchPreviousPageTask().runIfNeeded()
    #expect(previous == Page(id: 0, value: "a"))
    #expect(Array(value) == [Page(id: 0, value: "a"), Page(id: 1, value: "b")])
  }

  @Test func `Refetch All Pages Fetches Every Page Again`() async throws {
    let query = TestPaginated([0: "a", 1: "b"])
    @SharedOperation(query.disableAutomaticRunning()) var value
    try await $value.fetchNextPage()
    try await $value.fetchNextPageTask().runIfNeeded()

    let pages = try await $value.refetchAllPages()
    #expect(Array(pages) == [Page(id: 0, value: "a"), Page(id: 1, value: "b")])

    let again = try await $value.refetchAllPagesTask().runIfNeeded()
    #expect(again == pages)
    #expect(query.fetchedPageIds == [0, 1, 0, 1, 0, 1])
  }

  @Test func `A Shared Paginated Operation Fetches Its Initial Page By Itself`() async throws {
    let query = TestPaginated([0: "a", 1: "b"])
    @SharedOperation(query) var value
    #expect($value.isLoading)

    let store = self.client.store(for: query)
    _ = try await store.initialPageActiveTasks.first?.runIfNeeded()
    #expect(Array(value) == [Page(id: 0, value: "a")])
  }

  @Test func `A Shared Paginated Operation With A Default Value Shows It`() async throws {
    let defaultPages: Pages<Int, String> = [Page(id: 9, value: "default")]
    let query = TestPaginated([0: "a"])
    @SharedOperation(query.disableAutomaticRunning().defaultValue(defaultPages)) var value

    #expect(value == defaultPages)
    try await $value.fetchNextPage()
    #expect(Array(value) == [Page(id: 0, value: "a")])
  }

  @Test func `An Unbacked Paginated Operation Holds Its Pages And Fails To Fetch`() async {
    let pages: Pages<Int, String> = [Page(id: 0, value: "held")]
    let unbacked = SharedOperation<TestPaginated.State>(wrappedValue: pages, initialPageId: 0)
    #expect(unbacked.wrappedValue == pages)
    #expect(!unbacked.isBacked)

    await withKnownIssue {
      await #expect(throws: UnbackedSharedOperationError.self) {
        try await unbacked.refetchAllPages()
      }
    } matching: { issue in
      issue.comments.contains(
        Comment(
          rawValue: OperationWarning.unbackedSharedOperationRun(
            stateType: TestPaginated.State.self
          ).message
        )
      )
    }
    #expect(unbacked.wrappedValue == pages)
  }
}
