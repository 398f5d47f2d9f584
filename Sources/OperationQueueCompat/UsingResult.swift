/// An operation that produces a result: PeakOperation's `ProducesResult`.
///
/// ```swift
/// final class IntOperation: ConcurrentOperation, ProducesResult, @unchecked Sendable {
///   var output: Result<Int, any Error> = .failure(ResultError.noResult)
///   override func execute() {
///     output = Result { 1 }
///     finish()
///   }
/// }
/// ```
///
/// Set ``output`` before finishing: `passesResult(to:)` copies it into the next operation as this
/// one is about to finish, and `addResultBlock(block:)` reads it once it has.
public protocol ProducesResult: AnyObject {
  /// The type of a successful result.
  associatedtype Output

  /// The result; by convention `.failure(ResultError.noResult)` until the operation sets it.
  var output: Result<Output, any Error> { get set }
}

/// An operation that consumes the result of another: PeakOperation's `ConsumesResult`.
public protocol ConsumesResult: AnyObject {
  /// The type of a successful input.
  associatedtype Input

  /// The input; by convention `.failure(ResultError.noResult)` until a producer passes its
  /// result, which it keeps when the producer is cancelled.
  var input: Result<Input, any Error> { get set }
}

/// An operation that consumes the results of several others: PeakOperation's
/// `ConsumesMultipleResults`.
public protocol ConsumesMultipleResults: AnyObject {
  /// The type of a successful input.
  associatedtype Input

  /// The inputs, in the order the producers finished.
  var input: [Result<Input, any Error>] { get set }
}

/// Why an operation has no result.
public enum ResultError: Error, Hashable, Sendable {
  /// No result was produced: the operation has not finished, or its producer was cancelled
  /// before it passed one.
  case noResult
}
