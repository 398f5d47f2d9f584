import OperationCore
import OperationSynchronization

/// A ``ConcurrentOperation`` that produces the result of a closure: PeakOperation's
/// `BlockResultOperation`.
///
/// ```swift
/// BlockResultOperation { "Hello" }
///   .passesResult(to: BlockMapOperation<String, String> { $0.map { $0 + " World!" } })
///   .enqueue()
/// ```
///
/// Its ``output`` is `.failure(ResultError.noResult)` until the closure has run. Unlike
/// PeakOperation's, the closure is `@Sendable`, the output is stored behind a lock, and `Output`
/// is `Sendable`: the result crosses threads, to consumers and result blocks.
open class BlockResultOperation<Output: Sendable>: ConcurrentOperation, ProducesResult,
  @unchecked Sendable
{
  // NB: `@unchecked Sendable` restates the superclass's conformance. The closure is a `let` of a
  // `Sendable` type, and the output is read and written only inside its lock, which runs no user
  // code; it is a `Sendable` value, so the copy the getter hands out may go to any thread.
  private let block: @Sendable () -> Result<Output, any Error>
  private let result = Lock<Result<Output, any Error>>(.failure(ResultError.noResult))

  /// Creates an operation whose output is the result a closure returns.
  ///
  /// - Parameter block: The work.
  public init(block: @escaping @Sendable () -> Result<Output, any Error>) {
    self.block = block
    super.init()
  }

  /// Creates an operation whose output is the value a closure returns, as a success.
  ///
  /// - Parameter block: The work.
  public convenience init(block: @escaping @Sendable () -> Output) {
    self.init { () -> Result<Output, any Error> in .success(block()) }
  }

  /// The result: `.failure(ResultError.noResult)` until the closure has run.
  public var output: Result<Output, any Error> {
    get { self.result.withLock { $0 } }
    set { self.result.withLock { $0 = newValue } }
  }

  /// Runs the closure, stores its result, and finishes.
  open override func execute() {
    self.output = self.block()
    self.finish()
  }
}
