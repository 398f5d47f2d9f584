import Foundation
import OperationCore
import OperationSynchronization

/// Whether a ``RetryingOperation`` runs again, from the number of failures so far (1 after the
/// first): PeakOperation's `StrategyBlock`.
///
/// PeakOperation's also got the error; its README writes the one-argument form used here.
public typealias StrategyBlock = @Sendable (_ failureCount: Int) -> Bool

/// An operation that executes again while its output is a failure and its strategy says so:
/// PeakOperation's `RetryingOperation`.
///
/// ```swift
/// final class FlakyOperation: RetryingOperation<Data>, @unchecked Sendable {
///   override func execute() {
///     output = Result { try download() }
///     finish()
///   }
/// }
///
/// let operation = FlakyOperation()
/// operation.retryStrategy = { failureCount in failureCount < 3 }  // at most 3 executions
/// // or: operation.retryStrategy = RetryStrategy.repeat(times: 2)
/// ```
///
/// ``finish()`` decides: when ``output`` is a failure, ``failureCount`` goes up by one and, if
/// the operation is not cancelled and ``retryStrategy`` returns `true`, ``ConcurrentOperation/execute()`` runs again
/// on the same instance, at once, without finish events in between; the output is not reset.
/// Otherwise the operation finishes. Only ``finish()`` retries: `finish(_:)` with errors
/// finishes at once.
///
/// Unlike PeakOperation's, the strategy is `@Sendable` and gets only the failure count, the
/// output is stored behind a lock, and `Output` is `Sendable`: the result crosses threads, to
/// consumers and result blocks. For waits between attempts, use
/// `OperationRequest.retrying(_:waiting:onFailedAttempt:)`.
open class RetryingOperation<Output: Sendable>: ConcurrentOperation, ProducesResult,
  @unchecked Sendable
{
  // NB: `@unchecked Sendable` restates the superclass's conformance. The mutable state is read
  // and written only inside its lock, which runs no user code (the strategy runs after it), and
  // every value in it is `Sendable`, so what the accessors hand out of it may go to any thread.
  private let state = Lock(State())

  private struct State {
    var output: Result<Output, any Error> = .failure(ResultError.noResult)
    var failureCount = 0
    var retryStrategy: StrategyBlock = { _ in false }
  }

  /// Creates an operation that never retries until given a ``retryStrategy``.
  public override init() {
    super.init()
  }

  /// The result; `.failure(ResultError.noResult)` until set, and not reset between attempts.
  public var output: Result<Output, any Error> {
    get { self.state.withLock { $0.output } }
    set { self.state.withLock { $0.output = newValue } }
  }

  /// The number of times the operation finished with a failed output: 0 at first.
  public var failureCount: Int {
    self.state.withLock { $0.failureCount }
  }

  /// Whether to execute again after a failure; never, by default (`RetryStrategy.none`).
  public var retryStrategy: StrategyBlock {
    get { self.state.withLock { $0.retryStrategy } }
    set { self.state.withLock { $0.retryStrategy = newValue } }
  }

  /// Executes again when the output is a failure and the strategy says so; finishes otherwise.
  open override func finish() {
    if case .failure = self.output {
      let (failureCount, strategy) = self.state.withLock { state in
        state.failureCount += 1
        return (state.failureCount, state.retryStrategy)
      }
      // NB: Checked again after the strategy, which may cancel the operation.
      if !self.isCancelRequested, strategy(failureCount), !self.isCancelRequested {
        self.execute()
        return
      }
    }
    super.finish()
  }
}

// MARK: - Strategy blocks

extension RetryStrategy where Failure == Never {
  /// A ``StrategyBlock`` that never retries: PeakOperation's `RetryStrategy.none`.
  ///
  /// ```swift
  /// operation.retryStrategy = RetryStrategy.none
  /// ```
  ///
  /// `RetryStrategy` is also this module's strategy for requests; written without a contextual
  /// `RetryStrategy<Failure>` type, as above, the name means this block.
  public static var none: StrategyBlock {
    { _ in false }
  }

  /// A ``StrategyBlock`` that retries `times` times, so the operation executes at most
  /// `times + 1` times: PeakOperation's `RetryStrategy.repeat(times:)`.
  ///
  /// It retries while the failure count is at most `times`. A negative count is reported as an
  /// issue and treated as 0.
  ///
  /// ```swift
  /// operation.retryStrategy = RetryStrategy.repeat(times: 2)
  /// ```
  ///
  /// - Parameter times: The number of retries.
  /// - Returns: The strategy block.
  public static func `repeat`(times: Int) -> StrategyBlock {
    let strategy = RetryStrategy<any Error>.repeat(times: times)
    return { failureCount in
      strategy.shouldRetry(failureCount: failureCount, error: ResultError.noResult)
    }
  }
}
