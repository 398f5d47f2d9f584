import Foundation
import Operation
import OperationDemoSupport
import Testing

@Suite struct `InspectorSnapshot tests` {
  /// `GET /debug/operations`'s answer as the embedded server sends it: the library omits the
  /// optional fields it has no value for.
  private static let endpointJSON = """
    {
      "stores" : [
        {
          "activeTaskCount" : 0,
          "errorUpdateCount" : 1,
          "isInvalidated" : false,
          "isStale" : true,
          "pageCount" : 10,
          "path" : "OperationPath([FeedQuery(initialPageId: 0)])",
          "phase" : "success",
          "stateType" : "PaginatedState<Int, Post.FeedPage, Error>",
          "subscriberCount" : 1,
          "valueLastUpdatedAt" : "2026-05-04T10:00:01.250Z",
          "errorLastUpdatedAt" : "2026-05-04T10:00:00.500Z",
          "valueUpdateCount" : 10
        },
        {
          "activeTaskCount" : 1,
          "errorDescription" : "HTTP 500",
          "errorUpdateCount" : 0,
          "historyCount" : 2,
          "isInvalidated" : true,
          "isStale" : true,
          "path" : "OperationPath([CreateMutation(label: \\"create post\\")])",
          "phase" : "loading",
          "stateType" : "MutationState<Post.CreateMutation.Arguments, Post, Error>",
          "subscriberCount" : 0,
          "valueUpdateCount" : 0
        }
      ],
      "takenAt" : "2026-05-04T10:00:01.625Z"
    }
    """

  private static func date(_ seconds: Double) -> Date {
    // NB: 2026-05-04T10:00:00Z.
    Date(timeIntervalSince1970: 1_777_888_800 + seconds)
  }

  @Test func `decodes the endpoint's JSON`() throws {
    let snapshot = try InspectorJSON.decoder().decode(
      InspectorSnapshot.self,
      from: Data(Self.endpointJSON.utf8)
    )
    #expect(snapshot.takenAt == Self.date(1.625))
    #expect(
      snapshot.stores == [
        InspectorSnapshot.Store(
          path: "OperationPath([FeedQuery(initialPageId: 0)])",
          stateType: "PaginatedState<Int, Post.FeedPage, Error>",
          phase: "success",
          isStale: true,
          subscriberCount: 1,
          valueUpdateCount: 10,
          valueLastUpdatedAt: Self.date(1.25),
          errorUpdateCount: 1,
          errorLastUpdatedAt: Self.date(0.5),
          pageCount: 10
        ),
        InspectorSnapshot.Store(
          path: "OperationPath([CreateMutation(label: \"create post\")])",
          stateType: "MutationState<Post.CreateMutation.Arguments, Post, Error>",
          phase: "loading",
          isStale: true,
          isInvalidated: true,
          activeTaskCount: 1,
          errorDescription: "HTTP 500",
          historyCount: 2
        ),
      ]
    )
    #expect(snapshot.stores[0].lastUpdatedAt == Self.date(1.25))
    #expect(snapshot.stores[1].lastUpdatedAt == nil)
  }

  @Test func `decodes the library's own snapshot, encoded as the endpoint encodes it`() throws {
    let library = OperationClientSnapshot(
      takenAt: Self.date(2.5),
      stores: [
        OperationStoreSnapshot(
          path: "OperationPath([Query(id: 1)])",
          stateType: "QueryState<Optional<Post>, Error>",
          phase: .failure,
          isStale: false,
          isInvalidated: true,
          subscriberCount: 2,
          activeTaskCount: 1,
          valueUpdateCount: 3,
          valueLastUpdatedAt: Self.date(0.125),
          errorUpdateCount: 4,
          errorLastUpdatedAt: Self.date(2.125),
          errorDescription: "HTTP 503, the server is offline",
          historyCount: nil,
          pageCount: nil
        ),
        OperationStoreSnapshot(
          path: "OperationPath([\"outbox-item\"])",
          stateType: "MutationState<OutboxItem, Int, Error>",
          phase: .cancelled,
          isStale: true,
          isInvalidated: false,
          subscriberCount: 0,
          activeTaskCount: 0,
          valueUpdateCount: 0,
          valueLastUpdatedAt: nil,
          errorUpdateCount: 1,
          errorLastUpdatedAt: Self.date(1),
          errorDescription: "CancellationError()",
          historyCount: 5,
          pageCount: nil
        ),
      ]
    )
    let data = try InspectorJSON.encoder().encode(library)
    let mirror = try InspectorJSON.decoder().decode(InspectorSnapshot.self, from: data)
    #expect(mirror.takenAt == library.takenAt)
    #expect(mirror.stores.count == library.stores.count)
    for (mirrored, store) in zip(mirror.stores, library.stores) {
      #expect(mirrored.path == store.path)
      #expect(mirrored.stateType == store.stateType)
      #expect(mirrored.phase == store.phase.rawValue)
      #expect(mirrored.isStale == store.isStale)
      #expect(mirrored.isInvalidated == store.isInvalidated)
      #expect(mirrored.subscriberCount == store.subscriberCount)
      #expect(mirrored.activeTaskCount == store.activeTaskCount)
      #expect(mirrored.valueUpdateCount == store.valueUpdateCount)
      #expect(mirrored.valueLastUpdatedAt == store.valueLastUpdatedAt)
      #expect(mirrored.errorUpdateCount == store.errorUpdateCount)
      #expect(mirrored.errorLastUpdatedAt == store.errorLastUpdatedAt)
      #expect(mirrored.errorDescription == store.errorDescription)
      #expect(mirrored.historyCount == store.historyCount)
      #expect(mirrored.pageCount == store.pageCount)
    }
  }

  @Test func `the mirror decodes a real client's snapshot`() throws {
    let client = OperationClient()
    let empty = try InspectorJSON.decoder().decode(
      InspectorSnapshot.self,
      from: InspectorJSON.encoder().encode(client.snapshot())
    )
    #expect(empty.stores.isEmpty)
  }

  @Test func `the JSON has ISO 8601 dates with milliseconds, sorted keys, pretty printed`() throws {
    let snapshot = InspectorSnapshot(
      takenAt: Self.date(1.5),
      stores: [InspectorSnapshot.Store(path: "p", stateType: "S", phase: "idle")]
    )
    let text = String(decoding: try InspectorJSON.encoder().encode(snapshot), as: UTF8.self)
    #expect(text.contains("\"takenAt\" : \"2026-05-04T10:00:01.500Z\""))
    #expect(text.contains("\n"))
    let keys = ["activeTaskCount", "errorUpdateCount", "isInvalidated", "path", "phase"]
    let offsets = keys.compactMap { text.range(of: "\"\($0)\"")?.lowerBound }
    #expect(offsets.count == keys.count)
    #expect(offsets == offsets.sorted())
  }

  @Test func `dates without fractional seconds decode too`() throws {
    let json = #"{"takenAt": "2026-05-04T10:00:07Z", "stores": []}"#
    let snapshot = try InspectorJSON.decoder().decode(InspectorSnapshot.self, from: Data(json.utf8))
    #expect(snapshot.takenAt == Self.date(7))
  }

  @Test func `a date that is not ISO 8601 is an error`() {
    let json = #"{"takenAt": "yesterday", "stores": []}"#
    #expect(throws: DecodingError.self) {
      try InspectorJSON.decoder().decode(InspectorSnapshot.self, from: Data(json.utf8))
    }
  }

  @Test func `debug paths and request keys`() {
    #expect(DebugEndpoint.isDebug(path: "/debug/operations"))
    #expect(DebugEndpoint.isDebug(path: "/debug"))
    #expect(!DebugEndpoint.isDebug(path: "/debugger"))
    #expect(!DebugEndpoint.isDebug(path: "/posts/debug/1"))
    #expect(DebugEndpoint.isDebug(requestKey: "GET /debug/operations"))
    #expect(DebugEndpoint.isDebug(requestKey: "GET /debug/operations?verbose=1"))
    #expect(!DebugEndpoint.isDebug(requestKey: "GET /posts?debug=/debug/"))
    #expect(!DebugEndpoint.isDebug(requestKey: "GET /debugger"))
    #expect(!DebugEndpoint.isDebug(requestKey: "/debug/operations"))
  }
}
