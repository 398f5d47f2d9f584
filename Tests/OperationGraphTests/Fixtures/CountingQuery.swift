import OperationCore
import OperationSynchronization

/// A query that counts its fetches and returns the count.
struct CountingQuery: QueryRequest, Hashable, Sendable {
  final class Counter: Sendable {
    let count = Lock(0)
  }

  let counter = Counter()

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.counter.count.withLock {
      $0 += 1
      return $0
    }
  }

  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.counter === rhs.counter
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(self.counter))
  }
}
