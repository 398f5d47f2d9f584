/// The errors that the combinators of this module add to those of their parts.
///
/// ```swift
/// do {
///   let posts = try await OperationRunner(operation: combineAll(queries)).run()
/// } catch let error as OperationChainError {
///   switch error {
///   case .noResult:
///     print("There was nothing to combine.")
///   case .combinedFailure(let errors):
///     print("\(errors.count) of the queries failed.")
///   }
/// }
/// ```
public enum OperationChainError: Error, CustomStringConvertible {
  /// `combineAll(_:)` was given no request, so it has no value to produce.
  case noResult

  /// Some parts of a `combineAll(_:)` failed: every failure, in the order of the
  /// parts.
  case combinedFailure(errors: [any Error])

  /// The failures this error carries: those of ``combinedFailure(errors:)``, none for
  /// ``noResult``.
  public var errors: [any Error] {
    switch self {
    case .noResult: []
    case .combinedFailure(let errors): errors
    }
  }

  /// What happened, and what to do about it.
  public var description: String {
    switch self {
    case .noResult:
      "combineAll was given no requests, so it has no result; pass at least one request."
    case .combinedFailure(let errors):
      "\(errors.count) combined request(s) failed: "
        + errors.map { String(describing: $0) }.joined(separator: "; ")
    }
  }
}
