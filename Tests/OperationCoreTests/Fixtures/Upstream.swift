import Foundation
import OperationCore
import OperationSynchronization
import OperationTestSupport

/// A fake service that counts its requests, answers, fails or throttles, and notes when each
/// request arrived by the run's clock.
final class Upstream: Sendable {
  enum Mode: Sendable {
    case up
    case down
    case throttled(retryAfter: OperationDuration)
  }

  private struct State {
    var mode = Mode.up
    var requestTimes = [Date]()
  }

  private let state = Lock(State())

  init(_ mode: Mode = .up) {
    self.state.withLock { $0.mode = mode }
  }

  var mode: Mode {
    get { self.state.withLock { $0.mode } }
    set { self.state.withLock { $0.mode = newValue } }
  }

  var requests: Int { self.state.withLock { $0.requestTimes.count } }
  var requestTimes: [Date] { self.state.withLock { $0.requestTimes } }

  func call(_ id: Int, at date: Date) throws -> Int {
    let mode = self.state.withLock { state in
      state.requestTimes.append(date)
      return state.mode
    }
    switch mode {
    case .up: return id
    case .down: throw UpstreamError()
    case .throttled(let retryAfter): throw ThrottledError(retryAfter: retryAfter)
    }
  }
}

struct UpstreamError: Error, Equatable {}

/// A 429 with a `Retry-After`.
struct ThrottledError: RetryAfterProviding, Equatable {
  let retryAfter: OperationDuration?
}

/// A query of one id from an ``Upstream``.
struct UpstreamQuery: QueryRequest {
  let upstream: Upstream
  let id: Int

  var path: OperationPath { ["upstream", self.id] }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    try self.upstream.call(self.id, at: context.operationClock.now())
  }
}

/// A delayer that returns at once after moving a manual clock forward by each delay, so that a
/// run's waits show on its clock.
final class AdvancingDelayer: OperationDelayer, Sendable {
  let clock: ManualOperationClock
  private let requested = Lock([OperationDuration]())

  init(clock: ManualOperationClock) {
    self.clock = clock
  }

  var delays: [OperationDuration] { self.requested.withLock { $0 } }

  func delay(for duration: OperationDuration) async throws {
    self.requested.withLock { $0.append(duration) }
    self.clock.advance(by: Double(duration.attoseconds) / 1e18)
  }
}
