import Foundation
import OperationDemoSupport
import Testing

@Suite struct `InspectorTable tests` {
  private static let now = Date(timeIntervalSince1970: 1_000)

  @Test func `an empty snapshot says there are no stores`() {
    #expect(
      InspectorTable.render(InspectorSnapshot(takenAt: Self.now, stores: [])) == ["no stores"]
    )
  }

  @Test func `columns are aligned, counts to the right`() {
    let snapshot = InspectorSnapshot(
      takenAt: Self.now,
      stores: [
        InspectorSnapshot.Store(
          path: "OperationPath([FeedQuery(initialPageId: 0)])",
          stateType: "PaginatedState<Int, Post.FeedPage, Error>",
          phase: "success",
          isStale: true,
          subscriberCount: 12,
          valueUpdateCount: 10,
          valueLastUpdatedAt: Self.now.addingTimeInterval(-0.4),
          pageCount: 10
        ),
        InspectorSnapshot.Store(
          path: "OperationPath([Query(id: 1)])",
          stateType: "QueryState<Optional<Post>, Error>",
          phase: "failure",
          isInvalidated: true,
          activeTaskCount: 1,
          errorUpdateCount: 1,
          errorLastUpdatedAt: Self.now.addingTimeInterval(-12),
          errorDescription: "HTTP 500",
          historyCount: nil
        ),
        InspectorSnapshot.Store(
          path: "OperationPath([\"outbox-item\"])",
          stateType: "MutationState<OutboxItem, Int, Error>",
          phase: "idle",
          historyCount: 0
        ),
      ]
    )
    #expect(
      InspectorTable.render(snapshot) == [
        "PATH                           STATE                           PHASE    STALE        SUBS  TASKS  UPDATED   ERROR     HISTORY/PAGES",
        "[FeedQuery(initialPageId: 0)]  PaginatedState<Int, FeedPage>   success  yes            12      0  0.4s ago  -         10 pages",
        "[Query(id: 1)]                 QueryState<Post?>               failure  invalidated     0      1  12s ago   HTTP 500  -",
        "[\"outbox-item\"]                MutationState<OutboxItem, Int>  idle     no              0      0  never     -         0 in history",
      ]
    )
  }

  @Test func `every line of a table is as wide as its header, but for the last column`() {
    let stores = (1...3).map { id in
      InspectorSnapshot.Store(
        path: String(repeating: "p", count: id * 7),
        stateType: "QueryState<Post?>",
        phase: ["idle", "loading", "cancelled"][id - 1],
        subscriberCount: id * 100,
        pageCount: 1
      )
    }
    let lines = InspectorTable.render(InspectorSnapshot(takenAt: Self.now, stores: stores))
    let lastColumn = lines.map { $0.range(of: "HISTORY/PAGES")?.lowerBound }
    #expect(lastColumn[0] != nil)
    let start = lines[0].distance(from: lines[0].startIndex, to: lastColumn[0]!)
    for line in lines.dropFirst() {
      #expect(line.dropFirst(start) == "1 page")
    }
  }

  @Test func `long cells are cut with an ellipsis and kept on one line`() {
    let store = InspectorSnapshot.Store(
      path: "OperationPath([CreateMutation(label: \"create post · invalidates feed\")])",
      stateType: "S",
      phase: "failure",
      errorDescription: "The server said:\nsomething went very wrong\twith this request"
    )
    let limits = InspectorTable.Limits(path: 20, stateType: 10, error: 16)
    let lines = InspectorTable.render(
      InspectorSnapshot(takenAt: Self.now, stores: [store]),
      limits: limits
    )
    #expect(lines.count == 2)
    #expect(lines[1].hasPrefix("[CreateMut…s feed\")]  S"))
    #expect(lines[1].contains("The server said…"))
    #expect(!lines[1].contains("\n"))
  }

  @Test func `truncate keeps short text and cuts long text to the width`() {
    #expect(InspectorTable.truncate("abcdef", to: 6) == "abcdef")
    #expect(InspectorTable.truncate("abcdefg", to: 6) == "abcde…")
    #expect(InspectorTable.truncate("abc", to: 1) == "…")
    #expect(InspectorTable.truncate("abc", to: 0) == "…")
    #expect(InspectorTable.truncate("", to: 3) == "")
  }

  @Test func `truncateMiddle keeps the start and the end`() {
    #expect(InspectorTable.truncateMiddle("abcdef", to: 6) == "abcdef")
    #expect(InspectorTable.truncateMiddle("abcdefg", to: 6) == "abc…fg")
    #expect(InspectorTable.truncateMiddle("abcdefgh", to: 5) == "ab…gh")
    #expect(InspectorTable.truncateMiddle("abc", to: 2) == "a…")
    #expect(InspectorTable.truncateMiddle("abc", to: 1) == "…")
    #expect(InspectorTable.truncateMiddle("abc", to: -4) == "…")
    #expect(InspectorTable.truncateMiddle("abcdefgh", to: 5).count == 5)
  }

  @Test(
    arguments: [
      (nil, "never"),
      (0, "0.0s ago"),
      (0.1, "0.1s ago"),
      (0.4, "0.4s ago"),
      (0.45, "0.4s ago"),
      (0.99, "0.9s ago"),
      (9.99, "9.9s ago"),
      (10, "10s ago"),
      (59.9, "59s ago"),
      (185, "3m ago"),
      (7_300, "2h ago"),
      (-3, "0.0s ago"),
    ] as [(Double?, String)]
  )
  func `the last update reads relative to when the snapshot was taken`(
    secondsAgo: Double?,
    text: String
  ) {
    let date = secondsAgo.map { Self.now.addingTimeInterval(-$0) }
    #expect(InspectorTable.relativeTime(since: date, now: Self.now) == text)
  }

  @Test func `the last update is the later of the value's and the error's`() {
    let value = Self.now.addingTimeInterval(-5)
    let error = Self.now.addingTimeInterval(-2)
    var store = InspectorSnapshot.Store(path: "p", stateType: "S", phase: "failure")
    store.valueLastUpdatedAt = value
    #expect(store.lastUpdatedAt == value)
    store.errorLastUpdatedAt = error
    #expect(store.lastUpdatedAt == error)
    store.valueLastUpdatedAt = nil
    #expect(store.lastUpdatedAt == error)
  }

  @Test(
    arguments: [
      ("QueryState<Optional<Post>, Error>", "QueryState<Post?>"),
      ("QueryState<Optional<Post>, any Error>", "QueryState<Post?>"),
      ("PaginatedState<Int, Post.FeedPage, Error>", "PaginatedState<Int, FeedPage>"),
      (
        "MutationState<Post.CreateMutation.Arguments, Post, Error>",
        "MutationState<Arguments, Post>"
      ),
      ("QueryState<Array<Optional<Int>>, MyError>", "QueryState<Array<Int?>, MyError>"),
      ("QueryState<Optional<any Error>, Error>", "QueryState<(any Error)?>"),
      (
        "MutationState<(Int, String), Dictionary<String, Int>, Error>",
        "MutationState<(Int, String), Dictionary<String, Int>>"
      ),
      ("Error", "Error"),
      ("Module.Thing", "Thing"),
      ("", ""),
    ]
  )
  func `state types are shortened`(name: String, short: String) {
    #expect(InspectorTable.shortTypeName(name) == short)
  }

  @Test func `paths lose their OperationPath wrapper`() {
    #expect(InspectorTable.shortPath("OperationPath([Query(id: 1)])") == "[Query(id: 1)]")
    #expect(InspectorTable.shortPath("OperationPath([\"a\",\n\"b\"])") == "[\"a\", \"b\"]")
    #expect(InspectorTable.shortPath("[\"a\"]") == "[\"a\"]")
  }
}
