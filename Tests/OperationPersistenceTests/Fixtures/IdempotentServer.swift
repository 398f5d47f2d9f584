import Foundation
import Operation
import OperationPersistence
import OperationSynchronization
import OperationTestSupport

/// A server that applies each idempotency key once, as a real one that honours an
/// `Idempotency-Key` header does: a request with a key it has applied gets the first response.
final class IdempotentServer: Sendable {
  private struct State {
    var requests = [String]()
    var applied = [String: String]()
  }

  private let state = Lock(State())

  /// The keys of every request, in order.
  var requests: [String] { self.state.withLock { $0.requests } }

  /// The keys applied, each once.
  var appliedKeys: Set<String> { self.state.withLock { Set($0.applied.keys) } }

  /// Applies `text` under `key`, unless the key was applied already.
  func apply(_ text: String, key: String) -> String {
    self.state.withLock { state in
      state.requests.append(key)
      if let response = state.applied[key] { return response }
      let response = "applied \(text)"
      state.applied[key] = response
      return response
    }
  }
}

/// A mutation that sends its text to an ``IdempotentServer`` with the delivery's key, after
/// telling that it started and waiting for its gate: a worker that stalls mid-delivery.
struct ApplyMutation: MutationRequest, Sendable {
  let server: IdempotentServer
  /// Opened when a delivery starts.
  let started: Gate
  /// Holds every delivery until opened.
  let proceed: Gate

  var path: OperationPath { ["apply"] }

  func mutate(
    isolation: isolated (any Actor)?,
    with text: String,
    in context: OperationContext,
    with continuation: OperationContinuation<String, any Error>
  ) async throws -> String {
    self.started.open()
    await self.proceed.wait()
    return self.server.apply(text, key: context.idempotencyKey ?? "")
  }
}
