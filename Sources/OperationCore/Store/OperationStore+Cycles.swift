// MARK: - OperationCycleError

/// The error of a run that a run of the same store waits for, directly or through other stores:
/// a query whose fetch fetches the same query, or query A fetching B while B fetches A.
///
/// Such a run could never end: without deduplication each run starts the next one forever, and
/// with deduplication the inner fetch joins the run that waits for it. So the store does not run
/// the operation again; the inner run fails with this error at once, and the run that waited for
/// it receives the error from its own fetch:
///
/// ```swift
/// struct Feed: QueryRequest, Hashable {
///   func fetch(
///     isolation: isolated (any Actor)?,
///     in context: OperationContext,
///     with continuation: OperationContinuation<[Post], any Error>
///   ) async throws -> [Post] {
///     let client = context.operationClient!
///     return try await client.store(for: Feed()).fetch()  // Throws OperationCycleError.
///   }
/// }
/// ```
///
/// The store also reports the misuse as an issue (a test failure under a test runner, a runtime
/// warning otherwise), with the message of
/// `OperationWarning.operationRunCycle(paths:)`.
///
/// A run is part of a cycle when it starts inside a run of the same store, in the same tree of
/// tasks: from the operation's own code, from a task that the operation's code created, or from a
/// run of another store that such code started. Runs started from elsewhere, such as a
/// subscriber's automatic run or another screen's fetch, are not part of it and share a
/// deduplicated run as usual.
///
/// > Note: The inner run fails with this error when the operation's `Failure` can hold it:
/// > `any Error` (the failure type of an operation declared `async throws`) or
/// > `OperationCycleError` itself. An operation with any other typed failure has no way to fail
/// > with this error, so its run stops the program after the issue is reported, rather than
/// > waiting forever.
public struct OperationCycleError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The paths of the stores along the cycle, from the run that waits to the run that was refused:
  /// the first and the last are the same store's.
  public let paths: [OperationPath]

  /// Creates the error.
  ///
  /// - Parameter paths: The paths of the stores along the cycle, starting and ending with the
  ///   same store's.
  public init(paths: [OperationPath]) {
    self.paths = paths
  }

  /// What went wrong and how to avoid it.
  public var description: String {
    """
    A store was asked to run its operation from inside one of its own runs, which would wait for \
    itself forever: \(self.paths.map(\.description).joined(separator: " -> ")). The inner run \
    failed without running the operation. Fetch the other store's data without going back to \
    this store, for example by passing the value down or by reading the store's currentValue.
    """
  }
}

// MARK: - Warning

@_spi(Warnings)
extension OperationWarning {
  /// A store was asked to run its operation from inside one of its own runs (directly or through
  /// other stores), so the inner run failed with ``OperationCycleError`` instead of waiting for
  /// itself forever.
  ///
  /// - Parameter paths: The paths of the stores along the cycle, starting and ending with the
  ///   same store's.
  public static func operationRunCycle(paths: [OperationPath]) -> Self {
    Self(
      """
      A store was asked to run its operation from inside one of its own runs:

        \(paths.map(\.description).joined(separator: " -> "))

      The run would have waited for itself forever, so it failed with OperationCycleError \
      without running the operation. Fetch the other store's data without going back to this \
      store, for example by passing the value down or by reading the store's currentValue.
      """
    )
  }
}

// MARK: - StoreRun

/// One run of a store, and the run inside which it started.
///
/// The runs of the current task tree form a chain through ``enclosing``: a store's run makes
/// itself ``current`` while its operation runs, so that the runs that its operation starts (of the
/// same store or of others, in the operation's own task or in tasks that it creates, such as the
/// shared task of a deduplicated run) find it. A run that finds its own store along the chain is
/// part of a cycle.
// NB: `@unchecked Sendable` is safe because every stored property, here and in the one subclass
// (`YieldingStoreRun`), is a `let` of a `Sendable` type; the class is not final only so that a
// store's run can be its operation's continuation too, in one allocation.
@usableFromInline
class StoreRun: @unchecked Sendable {
  /// The run inside which this run started, in the current task tree; `nil` for a run started
  /// outside any run.
  ///
  /// NB: A task local, and not an entry of the `OperationContext`, because the code that starts
  /// the inner run calls `fetch()` on another store without passing any context: only the task
  /// knows which runs it works for.
  @usableFromInline static var current: StoreRun? {
    Self.binding.get()
  }

  /// The task local behind ``current``.
  ///
  /// NB: Declared without `@TaskLocal`, whose projected value is internal, so that
  /// `withCurrent`, on the inlinable run path, is inlinable too: a function of its own, it was
  /// one more asynchronous frame in every run.
  @usableFromInline static let binding = TaskLocal<StoreRun?>(wrappedValue: nil)

  /// Runs `operation` with `run` as the current run.
  @inlinable @inline(__always)
  static func withCurrent<Result>(
    _ run: StoreRun,
    _ operation: () async -> Result
  ) async -> Result {
    await Self.binding.withValue(run, operation: operation)
  }

  /// The store.
  let store: any OperationPathable & AnyObject & Sendable

  /// The run inside which this run started.
  @usableFromInline let enclosing: StoreRun?

  @usableFromInline
  init(store: any OperationPathable & AnyObject & Sendable, enclosing: StoreRun?) {
    self.store = store
    self.enclosing = enclosing
  }

  /// The paths of the stores from the nearest enclosing run of the same store to this one, when
  /// there is one.
  ///
  /// - Complexity: O(*d*) for *d* enclosing runs.
  @usableFromInline
  var cycle: [OperationPath]? {
    var chain = [StoreRun]()
    var run = self.enclosing
    while let enclosing = run {
      chain.append(enclosing)
      if enclosing.store === self.store {
        return chain.reversed().map(\.store.path) + [self.store.path]
      }
      run = enclosing.enclosing
    }
    return nil
  }
}

extension OperationStore {
  /// The failure of a run that is part of a cycle, after the issue is reported.
  @usableFromInline
  static func cycleFailure(_ paths: [OperationPath]) -> State.Failure {
    let warning = OperationWarning.operationRunCycle(paths: paths)
    reportWarning(warning)
    guard let failure = OperationCycleError(paths: paths) as? State.Failure else {
      // NB: See `OperationCycleError`: a failure type that cannot hold the error leaves no
      // answer but stopping; running the operation would wait for itself forever.
      preconditionFailure(warning.message)
    }
    return failure
  }
}
