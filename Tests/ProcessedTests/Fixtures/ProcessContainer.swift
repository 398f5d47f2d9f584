import Observation
import Processed

/// An observable model with one process state that records every assignment to it.
///
/// `history` starts with the initial state, so a test can compare the whole sequence of states.
@MainActor
@Observable
final class ProcessContainer: ProcessSupport {
  var process: SingleProcessState = .idle {
    didSet { self.history.append(self.process) }
  }

  @ObservationIgnored private(set) var history: [SingleProcessState] = [.idle]

  /// A binding over ``process``, made once so that its task slot is shared by every use.
  @ObservationIgnored private(set) lazy var binding = ProcessBinding(
    get: { self.process },
    set: { self.process = $0 }
  )
}
