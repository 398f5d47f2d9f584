import OperationCore
import OperationSynchronization
import OperationTestSupport

/// Counts calls across tasks.
final class CallCounter: Sendable {
  private let count = Lock(0)

  var value: Int {
    self.count.withLock { $0 }
  }

  /// Counts a call and returns the count so far.
  func increment() -> Int {
    self.count.withLock { count in
      count += 1
      return count
    }
  }
}

/// A request that yields ``yields``, fails its first ``failures`` attempts, then returns
/// ``value``.
struct NumberRequest: OperationRequest, Sendable {
  let attempts = CallCounter()
  var yields = [Result<Int, any Error>]()
  var failures = 0
  var value = 42

  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    let attempt = self.attempts.increment()
    for result in self.yields {
      continuation.yield(with: result)
    }
    if attempt <= self.failures {
      throw TestError(message: "Attempt \(attempt)")
    }
    return self.value
  }
}

/// A request that waits on ``work`` for ten seconds, then returns `1`.
struct WaitingRequest: OperationRequest, Sendable {
  let work: ManualDelayer

  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    try await self.work.delay(for: .seconds(10))
    return 1
  }
}

/// A query that returns ``value``, or throws when ``fails``.
struct NumberQuery: QueryRequest, Hashable {
  var value = 1
  var fails = false

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    if self.fails {
      throw TestError()
    }
    return self.value
  }
}

/// A query that waits for ``gate`` before returning `1`.
struct GatedQuery: QueryRequest {
  let gate = Gate()
  let started = Gate()

  var path: OperationPath {
    ["gated-query", ObjectIdentifier(self.gate)]
  }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    self.started.open()
    await self.gate.wait()
    return 1
  }
}

/// A request that returns the context's ``OperationContext/testNumber``.
struct ContextReadingRequest: OperationRequest, Sendable {
  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    context.testNumber
  }
}

extension OperationContext {
  /// A number for requests to read, `0` by default.
  var testNumber: Int {
    get { self[TestNumberKey.self] }
    set { self[TestNumberKey.self] = newValue }
  }

  private enum TestNumberKey: Key {
    static var defaultValue: Int { 0 }
  }
}
