import Foundation
import Logging
import OperationPostgres
import PostgresNIO

/// The PostgreSQL server of the fleet test and the fleet demo, named by `OPERATION_POSTGRES_URL`
/// (`Scripts/with-postgres.sh` starts one and sets it).
enum FleetPostgres {
  /// The environment variable that names the server.
  static let variable = "OPERATION_POSTGRES_URL"

  /// The server's URL, when the environment names one.
  static var url: String? {
    ProcessInfo.processInfo.environment[Self.variable].flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The URL is not one of a PostgreSQL server.
  struct InvalidURLError: Error, CustomStringConvertible {
    let url: String

    var description: String {
      "\(FleetPostgres.variable) is not a URL such as postgres://user@host:5432/database: \(self.url)"
    }
  }

  /// A client configuration for `url`, without TLS (a private, loopback server).
  ///
  /// - Parameters:
  ///   - url: `postgres://user[:password]@host[:port][/database]`.
  ///   - applicationName: The connections' `application_name`, which `pg_stat_activity` shows:
  ///     the fleet test finds one child's listening connection by it.
  /// - Returns: The configuration.
  /// - Throws: ``InvalidURLError``.
  static func configuration(url: String, applicationName: String) throws
    -> PostgresClient.Configuration
  {
    guard let components = URLComponents(string: url), let host = components.host,
      ["postgres", "postgresql"].contains(components.scheme ?? "")
    else { throw InvalidURLError(url: url) }
    let database = components.path.count > 1 ? String(components.path.dropFirst()) : nil
    var configuration = PostgresClient.Configuration(
      host: host,
      port: components.port ?? 5432,
      username: components.user ?? "postgres",
      password: components.password,
      database: database,
      tls: .disable
    )
    configuration.options.additionalStartupParameters = [("application_name", applicationName)]
    return configuration
  }

  /// A namespace of its own for one run: `fleet_` and 12 random hexadecimal digits.
  static func makeNamespace(prefix: String = "fleet") -> PostgresNamespace {
    let suffix = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
    // NB: Letters, digits and underscores, starting with a letter: a valid name.
    return try! PostgresNamespace("\(prefix)_\(suffix)")
  }

  /// Drops the namespace's tables.
  static func drop(_ namespace: PostgresNamespace, on client: PostgresClient) async throws {
    let name = namespace.name
    try await client.query(
      """
      DROP TABLE IF EXISTS \(unescaped: name)_cache, \(unescaped: name)_outbox,
        \(unescaped: name)_invalidations, \(unescaped: name)_leases
      """
    )
  }

  /// A logger that logs nothing, for postgres-nio's transactions.
  static let silentLogger = Logger(label: "operation-demo.fleet") { _ in SwiftLogNoOpLogHandler() }
}
