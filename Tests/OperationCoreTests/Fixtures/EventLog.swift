import OperationCore
import OperationSynchronization

/// An instrument that keeps the events it hears, in order.
final class EventLog: OperationInstrument {
  private let recorded = Lock([OperationInstrumentEvent]())

  var events: [OperationInstrumentEvent] { self.recorded.withLock { $0 } }

  func started(_ work: OperationWork) -> (any OperationWorkObservation)? { nil }

  func record(_ event: OperationInstrumentEvent, in run: OperationRunInfo) {
    self.recorded.withLock { $0.append(event) }
  }
}
