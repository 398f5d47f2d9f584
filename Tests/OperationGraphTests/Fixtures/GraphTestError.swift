/// An error for graph tests, told apart by its code.
struct GraphTestError: Error, Hashable, Sendable {
  var code = 0
}

extension Array where Element == any Error {
  /// The codes of the graph test errors among the errors.
  var testCodes: [Int] {
    self.compactMap { ($0 as? GraphTestError)?.code }
  }
}
