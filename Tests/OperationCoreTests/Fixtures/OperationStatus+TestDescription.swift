public import OperationCore
public import Testing

// NB: The conformance of a public type to a public protocol is public, hence the public imports.
// Swift Testing describes an argument or an expectation's value with `testDescription`;
// without it a status prints with its `Result`'s full generic type, such as
// `result(Swift.Result<Swift.Int, OperationCoreTests.TestError>.success(2))`.
extension OperationStatus: CustomTestStringConvertible {
  /// The status on one short line, such as `success(2)` or `failure(TestError(negative))`.
  public var testDescription: String {
    switch self {
    case .idle: "idle"
    case .loading: "loading"
    case .result(.success(let value)): "success(\(String(reflecting: value)))"
    case .result(.failure(let error)): "failure(\(error))"
    }
  }
}
