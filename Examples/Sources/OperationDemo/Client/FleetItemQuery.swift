import Foundation
import Operation
import OperationPersistence
import OperationPostgres

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The value of the fleet's upstream: which instance fetched it, and the how-manieth request
/// for its key it was.
struct FleetItem: Codable, Hashable, Sendable {
  let key: String
  let fetchedBy: String
  let serial: Int
}

/// `GET /fleet/items/{key}`, sent as one instance of the fleet (`X-Fleet-Instance`).
struct FleetItemQuery: QueryRequest, Sendable {
  let key: String
  let api: PostsAPI
  let instance: String

  var path: OperationPath { ["fleet-item", self.key] }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<FleetItem, any Error>
  ) async throws -> FleetItem {
    var request = URLRequest(url: self.api.url("fleet/items/\(self.key)"))
    request.addValue(self.instance, forHTTPHeaderField: "X-Fleet-Instance")
    request.timeoutInterval = 60
    let (data, status) = try await self.api.send(request)
    guard status != 404 else { throw PostsAPIError.status(404) }
    return try JSONDecoder().decode(FleetItem.self, from: data)
  }
}

extension FleetItemQuery {
  /// The item's query as the fleet runs it: one upstream call per key across the fleet, the
  /// value shared through the fleet's cache, the concurrent callers of one client joined.
  ///
  /// - Parameters:
  ///   - key: The item's key.
  ///   - api: The upstream server.
  ///   - fleet: This instance's fleet.
  ///   - cache: The cache on the fleet's storage.
  /// - Returns: The query.
  static func coalesced(
    key: String,
    api: PostsAPI,
    fleet: PostgresFleet,
    cache: PersistentQueryCache
  ) -> some QueryRequest<FleetItem, any Error> {
    FleetItemQuery(key: key, api: api, instance: fleet.instance)
      .coalesced(across: fleet, cache: cache, reusingValuesYoungerThan: .seconds(60))
      .deduplicated()
  }
}
