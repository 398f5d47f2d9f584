package import OperationCore
package import OperationSynchronization

/// A query that counts its fetches and returns the count.
package struct CountingQuery: QueryRequest, Hashable, Sendable {
  package final class Counter: Sendable {
    package let count = Lock(0)
  }

  package let counter = Counter()

  package init() {}

  package func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.counter.count.withLock {
      $0 += 1
      return $0
    }
  }

  package static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.counter === rhs.counter
  }

  package func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(self.counter))
  }
}
