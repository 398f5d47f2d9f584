/// The demo server's record of idempotency keys: it applies the request of a key once, answers a
/// repeated key with the first answer, and keeps, per path, the order in which keys were applied
/// and how many times each key was received.
///
/// A client that may send a request twice (a retry whose first answer was lost, or a mutation
/// outbox that resends what was in flight when the app died) sends the same `Idempotency-Key`
/// header each time; the server applies the first and replays its answer for the others:
///
/// ```swift
/// var ledger = IdempotencyLedger<Int>()
/// ledger.receive(key: "k1", path: "/outbox/lanes/0", body: [1]) { 42 }  // .applied(42)
/// ledger.receive(key: "k1", path: "/outbox/lanes/0", body: [1]) { 43 }  // .replayed(42)
/// ledger.appliedKeys(path: "/outbox/lanes/0")  // ["k1"]
/// ledger.receipts(for: "k1")  // 2
/// ```
///
/// A key that comes back with another path or body is a client bug (one key, two requests):
/// the ledger refuses it rather than replaying an answer to a different request.
public struct IdempotencyLedger<Answer: Hashable & Sendable>: Hashable, Sendable {
  /// What the server does with a request that carries a key.
  public enum Outcome: Hashable, Sendable {
    /// The key was new: the request was applied, with this answer.
    case applied(Answer)
    /// The key was applied before: the request was not applied again, and gets the first answer.
    case replayed(Answer)
    /// The key was applied before to another request (another path or body): refused.
    case conflict
  }

  private struct Record: Hashable, Sendable {
    var path: String
    var body: [UInt8]
    var answer: Answer
    var receipts: Int
  }

  private var records = [String: Record]()
  private var appliedByPath = [String: [String]]()

  /// The number of requests applied: one per key.
  public private(set) var appliedCount = 0

  /// The number of repeated requests that got the first answer instead of being applied.
  public private(set) var replayCount = 0

  /// The number of requests refused because their key belonged to another request.
  public private(set) var conflictCount = 0

  /// Creates an empty ledger.
  public init() {}

  /// Applies a request once per key.
  ///
  /// - Parameters:
  ///   - key: The request's idempotency key.
  ///   - path: The request's path, such as `/outbox/lanes/2`.
  ///   - body: The request's body, which a repeated request must repeat.
  ///   - apply: Applies the request and returns its answer; called only for a new key. When it
  ///     throws, nothing is recorded, so that the key can be applied by a later request.
  /// - Returns: Whether the request was applied, replayed or refused.
  /// - Throws: What `apply` throws.
  public mutating func receive(
    key: String,
    path: String,
    body: [UInt8],
    apply: () throws -> Answer
  ) rethrows -> Outcome {
    if var record = self.records[key] {
      record.receipts += 1
      self.records[key] = record
      guard record.path == path && record.body == body else {
        self.conflictCount += 1
        return .conflict
      }
      self.replayCount += 1
      return .replayed(record.answer)
    }
    let answer = try apply()
    self.records[key] = Record(path: path, body: body, answer: answer, receipts: 1)
    self.appliedByPath[path, default: []].append(key)
    self.appliedCount += 1
    return .applied(answer)
  }

  /// The keys applied on a path, in the order they were applied.
  ///
  /// - Parameter path: The path.
  /// - Returns: The keys; empty for a path with none.
  public func appliedKeys(path: String) -> [String] {
    self.appliedByPath[path, default: []]
  }

  /// The keys applied on each path that has any, in the order they were applied.
  public var appliedKeysByPath: [String: [String]] {
    self.appliedByPath
  }

  /// The number of requests received with a key, the first included.
  ///
  /// - Parameter key: The key.
  /// - Returns: The count; zero for a key never received.
  public func receipts(for key: String) -> Int {
    self.records[key]?.receipts ?? 0
  }

  /// The first answer given to a key.
  ///
  /// - Parameter key: The key.
  /// - Returns: The answer, or `nil` for a key never applied.
  public func answer(for key: String) -> Answer? {
    self.records[key]?.answer
  }
}
