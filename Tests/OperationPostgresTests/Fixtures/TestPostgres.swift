import Foundation
import Operation
import OperationPostgres
import PostgresNIO
import Testing

/// The PostgreSQL server of the tests, named by `OPERATION_POSTGRES_URL`
/// (`Scripts/with-postgres.sh` starts one and sets it); each test gets a namespace of its own.
enum TestPostgres {
  static let url = ProcessInfo.processInfo.environment["OPERATION_POSTGRES_URL"]

  /// In CI no test may skip: without a server, the tests run and fail.
  static let isRequired =
    ProcessInfo.processInfo.environment["CI"] == "true"
    || ProcessInfo.processInfo.environment["OPERATION_POSTGRES_REQUIRED"] == "1"

  /// Whether the PostgreSQL tests run.
  static let isEnabled = url != nil || isRequired

  /// The longest a storage call of a test may take before it throws: the storage's default of
  /// 10 seconds is for production, and a test under the thread sanitizer, on a loaded machine,
  /// can wait longer than that for a pooled connection without anything being wrong.
  static let callTimeout: OperationDuration = .seconds(120)

  /// How long a suite of these tests may take: they share one server and run together, and under
  /// the thread sanitizer a suite of them has taken 35 seconds.
  static let timeLimit: TimeLimitTrait.Duration = .minutes(3)

  static let skipMessage: Comment = """
    No PostgreSQL server: OPERATION_POSTGRES_URL is not set. Run the tests with one: \
    Scripts/with-postgres.sh swift test --filter OperationPostgresTests
    """

  struct MissingServer: Error, CustomStringConvertible {
    var description: String {
      "OPERATION_POSTGRES_URL is not set; CI must start PostgreSQL (Scripts/with-postgres.sh)."
    }
  }

  static func configuration() throws -> PostgresClient.Configuration {
    guard let url, let components = URLComponents(string: url), let host = components.host
    else { throw MissingServer() }
    let database = components.path.isEmpty ? nil : String(components.path.dropFirst())
    return PostgresClient.Configuration(
      host: host,
      port: components.port ?? 5432,
      username: components.user ?? "postgres",
      password: components.password,
      database: database,
      tls: .disable
    )
  }

  /// A namespace no other test uses.
  static func makeNamespace() -> PostgresNamespace {
    let suffix = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
    // NB: The name is letters, digits and underscores: it is valid.
    return try! PostgresNamespace("t_\(suffix)")
  }

  /// Runs `body` with a running client and a fresh namespace, whose tables are dropped after.
  static func withClient(
    _ body: (PostgresClient, PostgresNamespace) async throws -> Void
  ) async throws {
    let client = PostgresClient(configuration: try self.configuration())
    let namespace = self.makeNamespace()
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { await client.run() }
      do {
        try await body(client, namespace)
        try await self.drop(namespace, on: client)
      } catch {
        try? await self.drop(namespace, on: client)
        group.cancelAll()
        throw error
      }
      group.cancelAll()
    }
  }

  private static func drop(_ namespace: PostgresNamespace, on client: PostgresClient) async throws {
    let name = namespace.name
    try await client.query(
      """
      DROP TABLE IF EXISTS \(unescaped: name)_cache, \(unescaped: name)_outbox,
        \(unescaped: name)_invalidations, \(unescaped: name)_leases
      """
    )
  }

  /// Ends the connections that listen on `namespace`'s channel, as a failover or an
  /// administrator does; returns how many.
  @discardableResult
  static func terminateListeners(of namespace: PostgresNamespace, on client: PostgresClient)
    async throws -> Int
  {
    let pattern = "LISTEN%\(namespace.name)_events%"
    let rows = try await client.query(
      """
      SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE query ILIKE \(pattern) AND pid <> pg_backend_pid()
      """
    )
    var count = 0
    for try await _ in rows { count += 1 }
    return count
  }
}
