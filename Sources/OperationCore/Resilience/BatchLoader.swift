import OperationSynchronization

/// Turns the lookups of one entity by id that arrive within a window into one call of a batch
/// resolver: a DataLoader.
///
/// An operation that fetches one entity by id loads it through a shared loader, and the loader
/// sends the ids that arrive together in one request:
///
/// ```swift
/// let users = BatchLoader<Int, User>(name: "users") { ids in
///   try await api.users(ids: ids)  // [Int: User]
/// }
///
/// struct UserQuery: QueryRequest {
///   let id: Int
///   var path: OperationPath { ["user", self.id] }
///
///   func fetch(
///     isolation: isolated (any Actor)?,
///     in context: OperationContext,
///     with continuation: OperationContinuation<User, any Error>
///   ) async throws -> User {
///     try await users.load(self.id, in: context)
///   }
/// }
/// ```
///
/// - **The window.** The first lookup of a batch opens it. ``Window/tick`` sends it as soon as the
///   loader's task gets to run, with every lookup that arrived by then; ``Window/duration(_:)``
///   waits that long on the first lookup's ``OperationContext/operationDelayer``. A batch that
///   reaches `maxBatchSize` ids goes at once.
/// - **One request per id.** A lookup of an id that is already in the open batch, or in a batch in
///   flight, joins it. Stores still deduplicate their own runs and cache their values, so a
///   loader sits below both.
/// - **Each lookup its own result.** The resolver answers with a value or an error per id; an id
///   missing from its answer fails with ``BatchLoaderMissingValueError``, and only that lookup. A
///   resolver that throws fails every lookup of the batch. Under `retry(limit:)`, each failed
///   store retries its own lookup, so the retries of a batch ask again only for the ids that
///   failed.
/// - **Cancellation.** A cancelled lookup stops waiting at once; the batch goes on for the others.
///
/// The resolver runs in a task of its own, so that no caller's cancellation cancels the others'
/// request.
public final class BatchLoader<ID: Hashable & Sendable, Value: Sendable>: Sendable {
  /// When a batch is sent.
  public enum Window: Hashable, Sendable {
    /// As soon as the loader's task runs: the lookups that arrived by then go together.
    case tick
    /// After a duration on the context's delayer, from the batch's first lookup.
    case duration(OperationDuration)
  }

  /// What a loader has done since it was created.
  public struct Statistics: Hashable, Sendable {
    /// The calls of the resolver.
    public var batches = 0
    /// The ids the resolver was asked for.
    public var ids = 0
    /// The lookups, joins included.
    public var lookups = 0
    /// The lookups that joined an id already in a batch.
    public var joins = 0
  }

  private struct Batch {
    var ids = [ID]()
    /// The waiters of each id, by the ids of ``Waiters``.
    var waiters = [ID: [Int]]()
  }

  private struct State {
    var open: Batch?
    var openNumber = 0
    /// The task that sends the open batch when its window ends; cancelled when the batch fills
    /// first.
    var windowTask: Task<Void, Never>?
    /// The waiters of the ids of the batches in flight.
    var inFlight = [ID: [Int]]()
    var statistics = Statistics()
    /// Tasks of ``waitForStatistics(_:)`` and what they wait for.
    var statisticsWaiters = [
      (isMet: @Sendable (Statistics) -> Bool, continuation: CheckedContinuation<Void, Never>)
    ]()
  }

  /// The loader's name.
  public let name: String
  /// When a batch is sent.
  public let window: Window
  /// The most ids in one call of the resolver.
  public let maxBatchSize: Int

  private let delayer: (any OperationDelayer & Sendable)?
  private let resolve: @Sendable ([ID]) async throws -> [ID: Result<Value, any Error>]
  private let state = Lock(State())
  private let waiters = Waiters<Value>()

  /// Creates a loader whose resolver answers each id with a value or an error.
  ///
  /// - Parameters:
  ///   - name: The loader's name, in its errors.
  ///   - window: When a batch is sent; ``Window/tick`` by default.
  ///   - maxBatchSize: The most ids in one call of the resolver; at least one.
  ///   - delayer: What a ``Window/duration(_:)`` window waits on; `nil` (the default) for the
  ///     delayer of the batch's first lookup's context, which is also what its retries wait on.
  ///   - resolve: Fetches the entities of some ids; the answer of an id it leaves out is
  ///     ``BatchLoaderMissingValueError``.
  public init(
    name: String = "batch",
    window: Window = .tick,
    maxBatchSize: Int = 100,
    delayer: (any OperationDelayer & Sendable)? = nil,
    resolve: @escaping @Sendable ([ID]) async throws -> [ID: Result<Value, any Error>]
  ) {
    self.name = name
    self.window = window
    self.maxBatchSize = max(1, maxBatchSize)
    self.delayer = delayer
    self.resolve = resolve
  }

  /// Creates a loader whose resolver answers with the values it found.
  ///
  /// - Parameters:
  ///   - name: The loader's name, in its errors.
  ///   - window: When a batch is sent; ``Window/tick`` by default.
  ///   - maxBatchSize: The most ids in one call of the resolver; at least one.
  ///   - delayer: What a ``Window/duration(_:)`` window waits on; `nil` (the default) for the
  ///     delayer of the batch's first lookup's context.
  ///   - resolve: Fetches the entities of some ids; an id it leaves out fails with
  ///     ``BatchLoaderMissingValueError``.
  public convenience init(
    name: String = "batch",
    window: Window = .tick,
    maxBatchSize: Int = 100,
    delayer: (any OperationDelayer & Sendable)? = nil,
    values resolve: @escaping @Sendable ([ID]) async throws -> [ID: Value]
  ) {
    self.init(name: name, window: window, maxBatchSize: maxBatchSize, delayer: delayer) { ids in
      try await resolve(ids).mapValues { .success($0) }
    }
  }

  /// What the loader has done so far.
  public var statistics: Statistics {
    self.state.withLock { $0.statistics }
  }

  /// Suspends until at least `count` lookups have joined or opened a batch, so that a test knows
  /// they are in.
  package func waitForLookups(count: Int) async {
    await self.waitForStatistics { $0.lookups >= count }
  }

  /// Suspends until the resolver has been called at least `count` times (or is being called).
  package func waitForBatches(count: Int) async {
    await self.waitForStatistics { $0.batches >= count }
  }

  private func waitForStatistics(_ isMet: @escaping @Sendable (Statistics) -> Bool) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let isReady = self.state.withLock { state in
        guard !isMet(state.statistics) else { return true }
        state.statisticsWaiters.append((isMet, continuation))
        return false
      }
      if isReady {
        continuation.resume()
      }
    }
  }

  /// Takes the waiters of ``waitForStatistics(_:)`` whose condition now holds, under the lock.
  private static func metWaiters(in state: inout State) -> [CheckedContinuation<Void, Never>] {
    guard !state.statisticsWaiters.isEmpty else { return [] }
    let statistics = state.statistics
    let met = state.statisticsWaiters.filter { $0.isMet(statistics) }.map(\.continuation)
    state.statisticsWaiters.removeAll { $0.isMet(statistics) }
    return met
  }

  /// The entity of `id`, from the batch that the lookup joins or opens.
  ///
  /// - Parameters:
  ///   - id: The entity's id.
  ///   - context: The context of the run; its delayer times a ``Window/duration(_:)`` window.
  /// - Returns: The entity.
  /// - Throws: The resolver's error for the id, ``BatchLoaderMissingValueError``, or
  ///   `CancellationError` when the calling task is cancelled first.
  public func load(_ id: ID, in context: OperationContext = OperationContext()) async throws
    -> Value
  {
    let waiter = self.waiters.makeID()
    let delayer = self.delayer ?? context.operationDelayer
    let (full, window, met) = self.state.withLock {
      state -> (Batch?, Task<Void, Never>?, [CheckedContinuation<Void, Never>]) in
      state.statistics.lookups += 1
      let (opened, full) = self.enqueue(id, waiter: waiter, in: &state)
      var window: Task<Void, Never>?
      if full != nil {
        swap(&window, &state.windowTask)
      } else if let opened {
        // NB: Made and kept under the lock that opens the batch, so that the batch's window is
        // known to whoever fills the batch first, and is never cancelled once it has taken the
        // batch: it resolves the batch itself.
        state.windowTask = self.makeWindow(for: opened, delayer: delayer)
      }
      return (full, window, Self.metWaiters(in: &state))
    }
    // NB: Cancelled after the lock is released: cancelling runs the delayer's handler.
    window?.cancel()
    for continuation in met {
      continuation.resume()
    }
    if let full {
      self.send(full)
    }
    return try await self.waiters.wait(waiter)
  }

  /// Puts a lookup of `id` in the batch in flight, the open batch, or a new batch, under the
  /// lock.
  ///
  /// - Returns: The number of the batch it opened, if it did, and the batch it filled, if it did.
  private func enqueue(_ id: ID, waiter: Int, in state: inout State) -> (opened: Int?, full: Batch?)
  {
    if state.inFlight[id] != nil {
      state.inFlight[id]!.append(waiter)
      state.statistics.joins += 1
      return (nil, nil)
    }
    var opened: Int?
    if state.open == nil {
      state.open = Batch()
      state.openNumber += 1
      opened = state.openNumber
    }
    if state.open!.waiters[id] != nil {
      state.open!.waiters[id]!.append(waiter)
      state.statistics.joins += 1
      return (opened, nil)
    }
    state.open!.ids.append(id)
    state.open!.waiters[id] = [waiter]
    guard state.open!.ids.count >= self.maxBatchSize else { return (opened, nil) }
    defer { state.open = nil }
    return (opened, self.takeForFlight(state.open!, in: &state))
  }

  /// The task that waits out the window of batch `number`, then takes the batch and resolves
  /// it; made under the lock, and cancelled only while the batch is still open.
  private func makeWindow(
    for number: Int,
    delayer: any OperationDelayer & Sendable
  ) -> Task<Void, Never> {
    let window = self.window
    return Task {
      if case .duration(let duration) = window {
        try? await delayer.delay(for: duration)
      }
      let (batch, met) = self.state.withLock {
        state -> (Batch?, [CheckedContinuation<Void, Never>]) in
        guard state.openNumber == number, let batch = state.open else { return (nil, []) }
        state.open = nil
        state.windowTask = nil
        return (self.takeForFlight(batch, in: &state), Self.metWaiters(in: &state))
      }
      for continuation in met {
        continuation.resume()
      }
      if let batch {
        await self.run(batch)
      }
    }
  }

  /// Moves a batch's waiters to the ids in flight, under the lock; the batch's window task, if it
  /// still waits, is the caller's to cancel once the lock is released.
  private func takeForFlight(_ batch: Batch, in state: inout State) -> Batch {
    for (id, waiters) in batch.waiters {
      state.inFlight[id] = waiters
    }
    state.statistics.batches += 1
    state.statistics.ids += batch.ids.count
    return batch
  }

  private func send(_ batch: Batch) {
    Task { await self.run(batch) }
  }

  private func run(_ batch: Batch) async {
    let answer: Result<[ID: Result<Value, any Error>], any Error>
    do {
      answer = .success(try await self.resolve(batch.ids))
    } catch {
      answer = .failure(error)
    }
    let waiting = self.state.withLock { state in
      batch.ids.map { id in (id, state.inFlight.removeValue(forKey: id) ?? []) }
    }
    for (id, waiters) in waiting {
      let result: Result<Value, any Error> =
        switch answer {
        case .success(let values):
          values[id] ?? .failure(BatchLoaderMissingValueError(loader: self.name, id: id))
        case .failure(let error):
          .failure(error)
        }
      for waiter in waiters {
        self.waiters.resume(waiter, with: result)
      }
    }
  }
}

/// The error of a lookup whose id the batch resolver left out of its answer.
public struct BatchLoaderMissingValueError: Error, Sendable, CustomStringConvertible {
  /// The loader's name.
  public let loader: String
  /// The id that had no value.
  public let id: any Hashable & Sendable

  /// Creates the error.
  ///
  /// - Parameters:
  ///   - loader: The loader's name.
  ///   - id: The id that had no value.
  public init(loader: String, id: any Hashable & Sendable) {
    self.loader = loader
    self.id = id
  }

  /// A sentence such as `The batch loader "users" found no value for 7.`
  public var description: String {
    "The batch loader \"\(self.loader)\" found no value for \(self.id)."
  }
}
