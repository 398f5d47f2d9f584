import OperationCore

/// A query that returns ``value`` at once, and counts its fetches.
struct TestQuery: QueryRequest, Hashable {
  static let value = 1

  /// Tells queries of one test apart, as every test's client is new but paths are compared.
  var id = 0
  let fetches = CallCounter()

  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.id == rhs.id
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(self.id)
  }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.fetches.increment()
    return Self.value
  }
}
