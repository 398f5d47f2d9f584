import OperationCore
import OperationSynchronization

/// An operation that combines the results of several producers into one array:
/// PeakOperation's `CombineOperation`.
///
/// ```swift
/// [hello, world]
///   .passesResults(to: CombineOperation<String>())
///   .enqueue { result in print(result) }  // success(["hello", "world"]), in finishing order
/// ```
///
/// Its output is:
/// - `.failure(ResultError.noResult)` when it got no input;
/// - `.failure(CombineOperationError.errors(_:))` with every failure, when any input failed;
/// - otherwise `.success` with the values in input order (the order the producers finished).
///
/// The inputs and output are stored behind a lock, so producers append concurrently. Unlike
/// PeakOperation's, `Input` is `Sendable`: the results come from producers on other threads.
open class CombineOperation<Input: Sendable>: ConcurrentOperation, ConsumesMultipleResults,
  ProducesResult, AppendsInput, @unchecked Sendable
{
  // NB: `@unchecked Sendable` restates the superclass's conformance. The inputs and output are
  // read and written only inside their locks, which run no user code, and they are `Sendable`
  // values, so the copies that the accessors hand out of the locks may go to any thread.
  private let inputStorage = Lock<[Result<Input, any Error>]>([])
  private let outputStorage = Lock<Result<[Input], any Error>>(.failure(ResultError.noResult))

  /// Creates an operation with no inputs.
  public override init() {
    super.init()
  }

  /// The inputs, in the order the producers finished.
  public var input: [Result<Input, any Error>] {
    get { self.inputStorage.withLock { $0 } }
    set { self.inputStorage.withLock { $0 = newValue } }
  }

  /// The combined result: `.failure(ResultError.noResult)` until the operation has run.
  public var output: Result<[Input], any Error> {
    get { self.outputStorage.withLock { $0 } }
    set { self.outputStorage.withLock { $0 = newValue } }
  }

  package func appendInput(_ result: Result<Input, any Error>) {
    self.inputStorage.withLock { $0.append(result) }
  }

  /// Combines the inputs and finishes.
  open override func execute() {
    let inputs = self.input
    var values = [Input]()
    var errors = [any Error]()
    for input in inputs {
      switch input {
      case .success(let value): values.append(value)
      case .failure(let error): errors.append(error)
      }
    }
    if inputs.isEmpty {
      self.output = .failure(ResultError.noResult)
    } else if !errors.isEmpty {
      self.output = .failure(CombineOperationError.errors(errors))
    } else {
      self.output = .success(values)
    }
    self.finish()
  }
}

/// Why a ``CombineOperation`` failed.
public enum CombineOperationError: Error, Sendable {
  /// Some inputs failed; these are their errors, in input order.
  case errors([any Error])
}
