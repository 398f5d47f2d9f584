public import Foundation
@_spi(Warnings) public import OperationCore
import OperationSynchronization

/// A query cache on disk: stores of persisted operations start from the value their previous
/// run saved, and save each new value, with the writes batched off the path of the fetch.
///
/// ```swift
/// let cache = try await PersistentQueryCache(
///   storage: SQLitePersistence(path: databasePath),
///   version: "2",  // Bump when the encoded types change: older entries are discarded.
///   maxAge: .seconds(24 * 60 * 60),
///   bounds: .init(maxEntryCount: 500)
/// )
/// let feed = client.store(for: FeedQuery().persisted(in: cache))
/// feed.currentValue  // The feed of the last launch, stale: it refetches when observed.
/// ```
///
/// ## Entries
///
/// An entry holds the value, encoded as JSON, with the cache's ``version`` (TanStack Query's
/// `buster`), the date its store last updated it, and the date it was last used. When a cache is
/// created, entries of another version and entries older than ``maxAge`` are removed; entries
/// that age past it while the cache is open are not loaded. After each batch of writes the least
/// recently used entries beyond ``bounds`` are removed. An entry that cannot be decoded is
/// reported to the `onProblem` handler and removed: a corrupt entry never stops a store.
///
/// ## Reads
///
/// A store created for a persisted operation reads its entry when it is created. With a storage
/// that adopts ``SynchronousCacheReading`` (``SQLitePersistence`` does), the read happens at
/// once and the store is returned with the saved value. With any other storage (a network
/// database), the store is returned without it, the entry is read in the background, and its
/// value is set on the store only if the store has recorded no value meanwhile: the newest
/// value wins, so a fetch that finished first is never overwritten by an older saved value.
///
/// ## Writes
///
/// Saving a value only records it: a background task writes every recorded value and access in
/// one transaction, `writeDelay` after the first. ``flush()`` writes at once, for example before
/// the app is suspended or a server stops, and throws when a value could not be written.
///
/// ## Keys
///
/// An operation's entry is found by ``key(for:operationType:)``: a canonical encoding of its
/// path and of its type's fully qualified name, equal for two operations if and only if their
/// paths are equal and their types the same, so a value is only ever loaded by the operation
/// that saved it. A path with an element that has no stable encoding (a class, a closure, a type
/// declared in a function) is not persisted, and reported, unless the operation is given a key.
///
/// ## When things fail
///
/// Nothing fails in silence. An undecodable entry, an unencodable value (such as `Double.nan`
/// in JSON), a failed write (a full disk, a lock held past the busy timeout) and a path without
/// a stable key go to `onProblem`, which reports an issue by default, and a value that is not
/// written is counted by its store's instruments (`operation_persistence_write_failures_total`
/// with `OperationMetrics`). The stores keep their values in memory either way.
public final class PersistentQueryCache: Sendable {
  /// The most entries and bytes (of encoded values) the cache keeps; `nil` for no bound.
  public struct Bounds: Hashable, Sendable {
    /// The most entries.
    public var maxEntryCount: Int?

    /// The most bytes of encoded values.
    public var maxByteCount: Int?

    /// Creates bounds.
    ///
    /// - Parameters:
    ///   - maxEntryCount: The most entries; 1,000 by default.
    ///   - maxByteCount: The most bytes of encoded values; no bound by default.
    public init(maxEntryCount: Int? = 1000, maxByteCount: Int? = nil) {
      self.maxEntryCount = maxEntryCount
      self.maxByteCount = maxByteCount
    }
  }

  /// The size of the cache on disk.
  public struct Statistics: Hashable, Sendable, Codable {
    /// The number of entries.
    public var entryCount: Int

    /// The bytes of encoded values.
    public var byteCount: Int

    /// The update date of the oldest value, if any.
    public var oldestValueUpdatedAt: Date?

    /// Creates statistics.
    ///
    /// - Parameters:
    ///   - entryCount: The number of entries.
    ///   - byteCount: The bytes of encoded values.
    ///   - oldestValueUpdatedAt: The oldest update date.
    public init(entryCount: Int, byteCount: Int, oldestValueUpdatedAt: Date?) {
      self.entryCount = entryCount
      self.byteCount = byteCount
      self.oldestValueUpdatedAt = oldestValueUpdatedAt
    }
  }

  /// Something that went wrong without stopping any store.
  public enum Problem: Sendable, CustomStringConvertible {
    /// The entry could not be decoded as the store's value type, and was removed.
    case undecodableEntry(key: String, error: String)

    /// A value could not be encoded, and was not saved.
    case unencodableValue(key: String, error: String)

    /// The storage failed; the values of the failed write are lost, the stores are not.
    case storageFailed(error: String)

    /// The operation's path has no stable key, so its store is not persisted.
    case unstableKey(PersistentKeyError)

    /// A description of the problem.
    public var description: String {
      switch self {
      case .undecodableEntry(let key, let error):
        "The cached value of '\(key)' could not be decoded and was removed: \(error)"
      case .unencodableValue(let key, let error):
        "The value of '\(key)' could not be encoded and was not saved: \(error)"
      case .storageFailed(let error):
        "The query cache could not be written: \(error)"
      case .unstableKey(let error):
        error.description
      }
    }
  }

  /// The values that ``PersistentQueryCache/flush()`` could not write, with the problems met;
  /// each problem was also reported to `onProblem`, and the stores keep their values.
  public struct FlushError: Error, Sendable, CustomStringConvertible {
    /// The problems of the batch that held the flushed values.
    public let problems: [Problem]

    /// A description of the error.
    public var description: String {
      "The query cache could not write every saved value: "
        + self.problems.map(\.description).joined(separator: "; ")
    }
  }

  /// The storage of the entries.
  public let storage: any OperationPersistenceStorage

  /// The storage as a synchronous reader, when it is one: the fast path of store creation.
  let synchronousReader: (any SynchronousCacheReading)?

  /// The schema version of the entries; entries of another version are discarded.
  public let version: String

  /// How old a value may be and still be loaded; `nil` for any age.
  public let maxAge: OperationDuration?

  /// The bounds the cache trims itself to after each batch of writes.
  public let bounds: Bounds

  /// The version written with each entry: the format of the keys and ``version``, so that
  /// entries written with keys of another format are removed when the cache opens, never read.
  package let storedVersion: String

  /// The format of the keys, so that entries of an older format are discarded: `2` since keys are
  /// canonical encodings (``key(for:operationType:)``), where the first format used the path's
  /// description; `3` since an optional other than a number is told from its wrapped value, as a
  /// path tells them apart (format 2 gave `Optional("a")` the key of `"a"`).
  static let keyFormat = "keys-3"

  private let clock: any OperationClock & Sendable
  private let delayer: any OperationDelayer & Sendable
  private let writeDelay: OperationDuration
  private let onProblem: @Sendable (Problem) -> Void
  private let pending = Lock(Pending())
  /// The loads of stores on a storage without synchronous reads; see
  /// `waitForBackgroundLoads()`.
  let backgroundLoads = Lock(BackgroundLoads())

  private struct Pending: Sendable {
    var values = [String: PendingValue]()
    var accesses = [String: Date]()
    var isFlushScheduled = false
    /// Whether a caller is writing batches; batches are written one at a time, in order, so
    /// that an older batch never lands after a newer one.
    var isWriting = false
    /// The number of batches taken for writing, and of those written.
    var batchesStarted = 0
    var batchesFinished = 0
    /// The flushes waiting for a batch to be written: each for the first batch taken after it.
    var flushWaiters = [(batch: Int, continuation: CheckedContinuation<FlushTurn, Never>)]()
  }

  private struct PendingValue: Sendable {
    let value: any Encodable & Sendable
    let updatedAt: Date
    let recordedAt: Date
    /// Tells the store's instruments that its value could not be written.
    let recordFailure: (@Sendable () -> Void)?
  }

  /// What a flush does: write the batches itself, or learn how the batch with its values went.
  private enum FlushTurn: Sendable {
    case writes
    case written([Problem])
  }

  /// Opens a cache, removing the entries of other versions and those older than `maxAge`.
  ///
  /// - Parameters:
  ///   - storage: The storage of the entries.
  ///   - version: The schema version; bump it when the encoded types change.
  ///   - maxAge: How old a value may be and still be loaded; 24 hours by default, as TanStack
  ///     Query's persister; `nil` for any age.
  ///   - bounds: The most entries and bytes to keep.
  ///   - clock: The clock that dates accesses and ages entries.
  ///   - delayer: What waits out `writeDelay`.
  ///   - writeDelay: How long saved values are gathered before one transaction writes them.
  ///   - onProblem: Told of entries that cannot be decoded, values that cannot be encoded,
  ///     writes that fail and paths without a stable key. By default each problem is reported
  ///     as an issue (``reportProblem``): a test failure under a test runner, a runtime
  ///     warning otherwise. Whatever the handler, a value that is not written is also counted
  ///     by its store's instruments (`OperationInstrumentEvent.persistenceWriteFailed`).
  /// - Throws: The storage's error when the old entries cannot be removed.
  public init(
    storage: any OperationPersistenceStorage,
    version: String = "1",
    maxAge: OperationDuration? = .seconds(24 * 60 * 60),
    bounds: Bounds = Bounds(),
    clock: any OperationClock & Sendable = SystemTimeClock(),
    delayer: any OperationDelayer & Sendable = ClockDelayer(clock: ContinuousClock()),
    writeDelay: OperationDuration = .milliseconds(50),
    onProblem: @escaping @Sendable (Problem) -> Void = PersistentQueryCache.reportProblem
  ) async throws {
    self.storage = storage
    self.synchronousReader = storage as? any SynchronousCacheReading
    self.version = version
    self.storedVersion = "\(Self.keyFormat)/\(version)"
    self.maxAge = maxAge
    self.bounds = bounds
    self.clock = clock
    self.delayer = delayer
    self.writeDelay = writeDelay
    self.onProblem = onProblem
    _ = try await storage.removeCacheEntries(
      notMatching: self.storedVersion,
      updatedBefore: self.oldestLoadableDate
    )
  }

  /// Tells `onProblem` of a problem.
  func report(_ problem: Problem) {
    self.onProblem(problem)
  }

  /// Reports a problem as an issue: a test failure under a test runner, a runtime warning
  /// otherwise. The default `onProblem` handler.
  ///
  /// - Parameter problem: The problem.
  public static let reportProblem: @Sendable (Problem) -> Void = { problem in
    reportWarning(.queryCacheProblem(problem))
  }

  private var oldestLoadableDate: Date? {
    self.maxAge.map { self.clock.now().addingTimeInterval(-$0.timeInterval) }
  }

  /// The number of entries, their size and the oldest update, on disk (pending writes are not
  /// counted until they are written).
  ///
  /// - Returns: The statistics.
  /// - Throws: The storage's error.
  public func statistics() async throws -> Statistics {
    try await self.storage.cacheStatistics()
  }

  /// The number of saved values not yet written.
  public var pendingWriteCount: Int {
    self.pending.withLock { $0.values.count }
  }

  // MARK: Loading and saving

  /// The value stored for `key`, decoded as `type`, with its update date; `nil` when there is
  /// none, it is too old or of another version, or it cannot be decoded (then it is reported and
  /// removed).
  ///
  /// - Parameters:
  ///   - type: The value's type.
  ///   - key: The entry's key.
  /// - Returns: The value and the date it was last updated.
  public func load<Value: Decodable>(_ type: Value.Type, forKey key: String) async -> (
    value: Value, updatedAt: Date
  )? {
    await self.load(forKey: key) { try JSONDecoder().decode(type, from: $0) }
  }

  /// Reads and decodes the entry for `key` through the storage's `async` read.
  func load<Value>(
    forKey key: String,
    decode: (Data) throws -> Value
  ) async -> (value: Value, updatedAt: Date)? {
    let entry: PersistedQueryEntry?
    do {
      entry = try await self.storage.cacheEntry(forKey: key)
    } catch {
      self.onProblem(.storageFailed(error: String(describing: error)))
      return nil
    }
    let decoded = self.decoded(entry, forKey: key, decode: decode)
    if case .corrupt = decoded { await self.removeCorruptEntry(forKey: key) }
    return decoded.loaded
  }

  /// Reads and decodes the entry for `key` at once, through `reader`: the fast path of store
  /// creation. A corrupt entry is removed in the background.
  func loadNow<Value>(
    from reader: any SynchronousCacheReading,
    forKey key: String,
    decode: (Data) throws -> Value
  ) -> (value: Value, updatedAt: Date)? {
    let entry: PersistedQueryEntry?
    do {
      entry = try reader.cacheEntryNow(forKey: key)
    } catch {
      self.onProblem(.storageFailed(error: String(describing: error)))
      return nil
    }
    let decoded = self.decoded(entry, forKey: key, decode: decode)
    if case .corrupt = decoded { Task { await self.removeCorruptEntry(forKey: key) } }
    return decoded.loaded
  }

  private enum Decoded<Value> {
    case loaded(Value, Date)
    case none
    case corrupt

    var loaded: (value: Value, updatedAt: Date)? {
      guard case .loaded(let value, let updatedAt) = self else { return nil }
      return (value, updatedAt)
    }
  }

  /// Decodes an entry that may be loaded; records the access of a loaded one, and reports a
  /// corrupt one.
  private func decoded<Value>(
    _ entry: PersistedQueryEntry?,
    forKey key: String,
    decode: (Data) throws -> Value
  ) -> Decoded<Value> {
    guard let entry, entry.version == self.storedVersion else { return .none }
    if let oldest = self.oldestLoadableDate, entry.valueUpdatedAt < oldest { return .none }
    do {
      let value = try decode(entry.value)
      self.recordAccess(forKey: key)
      return .loaded(value, entry.valueUpdatedAt)
    } catch {
      self.onProblem(.undecodableEntry(key: key, error: String(describing: error)))
      return .corrupt
    }
  }

  private func removeCorruptEntry(forKey key: String) async {
    do {
      try await self.storage.removeCacheEntries(forKeys: [key])
    } catch {
      self.onProblem(.storageFailed(error: String(describing: error)))
    }
  }

  /// Records `value` for `key`, to be written with the next batch.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - key: The entry's key.
  ///   - updatedAt: When the value was updated in its store.
  public func save(_ value: some Encodable & Sendable, forKey key: String, updatedAt: Date) {
    self.save(value, forKey: key, updatedAt: updatedAt, recordFailure: nil)
  }

  func save(
    _ value: some Encodable & Sendable,
    forKey key: String,
    updatedAt: Date,
    recordFailure: (@Sendable () -> Void)?
  ) {
    let now = self.clock.now()
    let schedules = self.pending.withLock { pending in
      pending.values[key] = PendingValue(
        value: value,
        updatedAt: updatedAt,
        recordedAt: now,
        recordFailure: recordFailure
      )
      return self.scheduleFlush(&pending)
    }
    if schedules { self.startFlushTask() }
  }

  private func recordAccess(forKey key: String) {
    let now = self.clock.now()
    let schedules = self.pending.withLock { pending in
      pending.accesses[key] = now
      return self.scheduleFlush(&pending)
    }
    if schedules { self.startFlushTask() }
  }

  private func scheduleFlush(_ pending: inout Pending) -> Bool {
    guard !pending.isFlushScheduled else { return false }
    pending.isFlushScheduled = true
    return true
  }

  private func startFlushTask() {
    let delay = self.writeDelay
    Task(priority: .utility) { [weak self, delayer] in
      if delay > .zero {
        try? await delayer.delay(for: delay)
      }
      // NB: Whatever the background write could not write was reported to `onProblem`.
      try? await self?.flush()
    }
  }

  /// Writes the saved values and recorded accesses now, in one transaction, and returns once
  /// they are written; throws when some of them could not be written.
  ///
  /// Batches are written one at a time and in order: while another batch is being written, the
  /// flush waits for it, then for the batch that holds the values saved before the flush. Every
  /// value saved before the call is in that batch or an earlier one.
  ///
  /// ```swift
  /// // Before the process stops:
  /// do {
  ///   try await cache.flush()
  /// } catch {
  ///   logger.error("Cached values were lost: \(error)")
  /// }
  /// ```
  ///
  /// - Throws: ``FlushError`` with the problems of the batch that held the values saved before
  ///   the call (a value that could not be encoded, a write the storage refused); each was
  ///   also reported to `onProblem`.
  public func flush() async throws {
    let turn = await withCheckedContinuation {
      (continuation: CheckedContinuation<FlushTurn, Never>) in
      let writes = self.pending.withLock { pending -> Bool in
        guard pending.isWriting else {
          pending.isWriting = true
          return true
        }
        pending.flushWaiters.append((pending.batchesStarted + 1, continuation))
        return false
      }
      if writes { continuation.resume(returning: .writes) }
    }
    let problems =
      switch turn {
      // NB: The writer writes the batches of every flush, and the values it took are no longer
      // pending: its caller's cancellation must not stop the writes (a storage's `async` write
      // may give up when its task is cancelled), so they run on a task of their own.
      case .writes: await Task { await self.writeBatches() }.value
      case .written(let problems): problems
      }
    if !problems.isEmpty { throw FlushError(problems: problems) }
  }

  /// Writes batches until no flush waits for one; called by the one caller that writes. Returns
  /// the problems of the first batch, which holds the caller's values.
  private func writeBatches() async -> [Problem] {
    var first: [Problem]?
    while true {
      let (values, accesses, batch) = self.pending.withLock { pending in
        defer {
          pending.values.removeAll()
          pending.accesses.removeAll()
          pending.isFlushScheduled = false
          pending.batchesStarted += 1
        }
        return (pending.values, pending.accesses, pending.batchesStarted + 1)
      }
      // NB: `onProblem` and the instruments are the app's code; they run with no lock held.
      let (problems, failures) = await self.write(values, accesses)
      first = first ?? problems
      for problem in problems {
        self.onProblem(problem)
      }
      for failure in failures {
        failure()
      }
      let (written, isDone) = self.pending.withLock { pending in
        pending.batchesFinished = batch
        var written = [CheckedContinuation<FlushTurn, Never>]()
        pending.flushWaiters.removeAll { waiter in
          guard waiter.batch <= batch else { return false }
          written.append(waiter.continuation)
          return true
        }
        let isDone = pending.flushWaiters.isEmpty
        if isDone { pending.isWriting = false }
        return (written, isDone)
      }
      for continuation in written {
        continuation.resume(returning: .written(problems))
      }
      if isDone { return first ?? [] }
    }
  }

  /// Writes values and accesses in one transaction; returns the problems met and what tells the
  /// stores of the values that were not written.
  private func write(
    _ values: [String: PendingValue],
    _ accesses: [String: Date]
  ) async -> ([Problem], [@Sendable () -> Void]) {
    guard !values.isEmpty || !accesses.isEmpty else { return ([], []) }
    var problems = [Problem]()
    var failures = [@Sendable () -> Void]()
    let encoder = JSONEncoder()
    var entries = [PersistedQueryEntry]()
    var written = [PendingValue]()
    entries.reserveCapacity(values.count)
    for (key, pending) in values {
      do {
        let data = try encoder.encode(pending.value)
        entries.append(
          PersistedQueryEntry(
            key: key,
            version: self.storedVersion,
            value: data,
            valueUpdatedAt: pending.updatedAt,
            lastAccessedAt: pending.recordedAt
          )
        )
        written.append(pending)
      } catch {
        problems.append(.unencodableValue(key: key, error: String(describing: error)))
        if let recordFailure = pending.recordFailure { failures.append(recordFailure) }
      }
    }
    do {
      try await self.storage.writeCacheEntries(entries, accesses: accesses, bounds: self.bounds)
    } catch {
      problems.append(.storageFailed(error: String(describing: error)))
      failures.append(contentsOf: written.compactMap(\.recordFailure))
    }
    return (problems, failures)
  }
}
