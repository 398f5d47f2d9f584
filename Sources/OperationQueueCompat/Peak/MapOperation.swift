import OperationCore
import OperationSynchronization

/// An operation that maps its input to its output: PeakOperation's `MapOperation`.
///
/// Subclass it and override ``map(input:)-(Input)`` to map a value (a failed input is passed on
/// unchanged), or ``map(input:)-(Result<Input,Error>)`` to see failures too:
///
/// ```swift
/// final class NegateOperation: MapOperation<Bool, Bool>, @unchecked Sendable {
///   override func map(input: Bool) -> Result<Bool, any Error> {
///     .success(!input)
///   }
/// }
///
/// BlockResultOperation { true }
///   .passesResult(to: NegateOperation())
///   .enqueue { result in print(result) }  // success(false)
/// ```
///
/// ``input`` and ``output`` are `.failure(ResultError.noResult)` until set, and are stored behind
/// a lock. Unlike PeakOperation's, the value map does not trap when it is not overridden, and
/// `Input` and `Output` are `Sendable`: a result crosses threads, from its producer to each of
/// its consumers (which may run at once) and to result blocks.
open class MapOperation<Input: Sendable, Output: Sendable>: ConcurrentOperation, ConsumesResult,
  ProducesResult, @unchecked Sendable
{
  // NB: `@unchecked Sendable` restates the superclass's conformance. The input and output are
  // read and written only inside their locks, which run no user code, and they are `Sendable`
  // values, so the copies that the accessors hand out of the locks may go to any thread.
  private let inputStorage = Lock<Result<Input, any Error>>(.failure(ResultError.noResult))
  private let outputStorage = Lock<Result<Output, any Error>>(.failure(ResultError.noResult))

  /// Creates an operation whose input a producer passes (see
  /// `passesResult(to:)`).
  public override init() {
    super.init()
  }

  /// Creates an operation with a successful input.
  ///
  /// - Parameter input: The value to map.
  public init(input: Input) {
    super.init()
    self.input = .success(input)
  }

  /// The input: `.failure(ResultError.noResult)` until a producer passes its result.
  public var input: Result<Input, any Error> {
    get { self.inputStorage.withLock { $0 } }
    set { self.inputStorage.withLock { $0 = newValue } }
  }

  /// The output: `.failure(ResultError.noResult)` until the operation has run.
  public var output: Result<Output, any Error> {
    get { self.outputStorage.withLock { $0 } }
    set { self.outputStorage.withLock { $0 = newValue } }
  }

  /// Maps the input, stores the output, and finishes.
  open override func execute() {
    self.output = self.map(input: self.input)
    self.finish()
  }

  /// Maps a result. The default passes a failure on unchanged and maps a value with
  /// ``map(input:)-(Input)``.
  ///
  /// - Parameter input: The operation's input.
  /// - Returns: The operation's output.
  open func map(input: Result<Input, any Error>) -> Result<Output, any Error> {
    switch input {
    case .success(let value): self.map(input: value)
    case .failure(let error): .failure(error)
    }
  }

  /// Maps a value; override it. The default returns `.failure(ResultError.noResult)`
  /// (PeakOperation's traps).
  ///
  /// - Parameter input: The successful input.
  /// - Returns: The operation's output.
  open func map(input: Input) -> Result<Output, any Error> {
    .failure(ResultError.noResult)
  }
}
