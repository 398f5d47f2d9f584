import Observation
import Processed

/// An observable model with one loadable state that records every assignment to it.
///
/// `history` starts with the initial state, so a test can compare the whole sequence of states.
@MainActor
@Observable
final class LoadableContainer: LoadableSupport {
  var loadable: LoadableState<Int> = .absent {
    didSet { self.history.append(self.loadable) }
  }

  @ObservationIgnored private(set) var history: [LoadableState<Int>] = [.absent]

  /// A binding over ``loadable``, made once so that its task slot is shared by every use.
  @ObservationIgnored private(set) lazy var binding = LoadableBinding(
    get: { self.loadable },
    set: { self.loadable = $0 }
  )
}
