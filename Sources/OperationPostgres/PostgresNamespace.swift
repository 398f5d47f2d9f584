/// The names of the tables and of the notification channel that one fleet shares.
///
/// Every instance of a fleet uses the same namespace; two namespaces on one database are two
/// fleets that share nothing (the tests give each test its own).
public struct PostgresNamespace: Hashable, Sendable, CustomStringConvertible {
  /// The namespace's name: the prefix of its tables and its channel.
  public let name: String

  /// A name that is not a plain PostgreSQL identifier.
  public struct InvalidNameError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The name that was refused.
    public let name: String

    /// A description of the error.
    public var description: String {
      """
      '\(self.name)' cannot name a PostgreSQL namespace: use 1 to 40 lowercase ASCII letters, \
      digits and underscores, starting with a letter or an underscore.
      """
    }
  }

  /// Creates a namespace.
  ///
  /// - Parameter name: 1 to 40 lowercase ASCII letters, digits and underscores, not starting
  ///   with a digit; `operation` by default. It is written into SQL as is, so nothing else is
  ///   accepted.
  /// - Throws: ``InvalidNameError`` for any other name.
  public init(_ name: String = "operation") throws(InvalidNameError) {
    let bytes = Array(name.utf8)
    let isValid =
      (1...40).contains(bytes.count)
      && bytes.allSatisfy { byte in
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
          || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
      }
      && !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[0])
    guard isValid else { throw InvalidNameError(name: name) }
    self.name = name
  }

  /// The default namespace, `operation`.
  public static let `default` = try! PostgresNamespace()

  /// The namespace's name.
  public var description: String { self.name }

  var cacheTable: String { "\(self.name)_cache" }
  var outboxTable: String { "\(self.name)_outbox" }
  var invalidationTable: String { "\(self.name)_invalidations" }
  var leaseTable: String { "\(self.name)_leases" }
  var channel: String { "\(self.name)_events" }

  /// The schema, created if missing; every statement is idempotent, and an advisory lock keeps
  /// two instances that start at once from racing on it.
  var schema: [String] {
    [
      """
      CREATE TABLE IF NOT EXISTS \(self.cacheTable) (
        key text PRIMARY KEY,
        version text NOT NULL,
        value bytea NOT NULL,
        value_updated_at double precision NOT NULL,
        last_accessed_at double precision NOT NULL
      )
      """,
      """
      CREATE INDEX IF NOT EXISTS \(self.cacheTable)_by_access
        ON \(self.cacheTable) (last_accessed_at, key)
      """,
      """
      CREATE TABLE IF NOT EXISTS \(self.outboxTable) (
        id bigserial PRIMARY KEY,
        kind text NOT NULL,
        lane text NOT NULL,
        idempotency_key text NOT NULL UNIQUE,
        arguments bytea NOT NULL,
        status text NOT NULL,
        attempts integer NOT NULL,
        last_error text,
        enqueued_at double precision NOT NULL,
        updated_at double precision NOT NULL,
        generation bigint NOT NULL DEFAULT 0,
        lease_owner text,
        lease_expires_at double precision
      )
      """,
      """
      CREATE INDEX IF NOT EXISTS \(self.outboxTable)_by_lane
        ON \(self.outboxTable) (lane, id) WHERE status <> 'failed'
      """,
      """
      CREATE TABLE IF NOT EXISTS \(self.invalidationTable) (
        id bigserial PRIMARY KEY,
        origin text NOT NULL,
        prefix text NOT NULL,
        created_at double precision NOT NULL
      )
      """,
      """
      CREATE TABLE IF NOT EXISTS \(self.leaseTable) (
        key text PRIMARY KEY,
        holder text NOT NULL,
        generation bigint NOT NULL,
        expires_at double precision NOT NULL,
        state text NOT NULL,
        error text
      )
      """,
    ]
  }
}
