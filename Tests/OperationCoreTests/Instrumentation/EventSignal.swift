import OperationCore
import OperationSynchronization

/// An instrument that lets a test wait until a store records an event.
final class EventSignal: OperationInstrument {
  private let state = Lock(State())

  private struct State {
    var recorded = [OperationInstrumentEvent]()
    var waiters = [(OperationInstrumentEvent, CheckedContinuation<Void, Never>)]()
  }

  func started(_ work: OperationWork) -> (any OperationWorkObservation)? {
    nil
  }

  func record(_ event: OperationInstrumentEvent, in run: OperationRunInfo) {
    let ready = self.state.withLock { state in
      state.recorded.append(event)
      let ready = state.waiters.filter { $0.0 == event }.map(\.1)
      state.waiters.removeAll { $0.0 == event }
      return ready
    }
    for waiter in ready {
      waiter.resume()
    }
  }

  /// Returns once `event` was recorded, at once if it already was.
  func wait(for event: OperationInstrumentEvent) async {
    await withCheckedContinuation { continuation in
      let recorded = self.state.withLock { state in
        if state.recorded.contains(event) { return true }
        state.waiters.append((event, continuation))
        return false
      }
      if recorded {
        continuation.resume()
      }
    }
  }
}
