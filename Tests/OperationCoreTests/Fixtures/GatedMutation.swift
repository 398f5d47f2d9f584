import OperationCore
import OperationSynchronization
import OperationTestSupport

/// A mutation that holds every attempt until the test releases its arguments, then returns the
/// arguments or throws ``TestError``.
///
/// An attempt opens the "started" gate of its arguments when it begins, so a test can wait until
/// it is in flight, and then waits for the "released" gate of its arguments.
struct GatedMutation: MutationRequest {
  let gates = GatedMutationGates()

  var path: OperationPath {
    ["gated-mutation", ObjectIdentifier(self.gates)]
  }

  func mutate(
    isolation: isolated (any Actor)?,
    with arguments: String,
    in context: OperationContext,
    with continuation: OperationContinuation<String, any Error>
  ) async throws -> String {
    self.gates.started(arguments).open()
    await self.gates.released(arguments).wait()
    if self.gates.fails(arguments) {
      throw TestError(message: "Failed for \(arguments).")
    }
    return arguments
  }
}

/// The gates of a ``GatedMutation``, one pair per set of arguments.
final class GatedMutationGates: Sendable {
  private struct Pair {
    let started = Gate()
    let released = Gate()
    var fails = false
  }

  private let pairs = Lock([String: Pair]())

  func started(_ arguments: String) -> Gate {
    self.pair(arguments).started
  }

  func released(_ arguments: String) -> Gate {
    self.pair(arguments).released
  }

  func fails(_ arguments: String) -> Bool {
    self.pair(arguments).fails
  }

  /// Waits until an attempt with these arguments is in flight.
  func waitUntilStarted(_ arguments: String) async {
    await self.started(arguments).wait()
  }

  /// Lets the attempts with these arguments finish, with a value or with ``TestError``.
  func release(_ arguments: String, failing: Bool = false) {
    let gate = self.pairs.withLock { pairs in
      pairs[arguments, default: Pair()].fails = failing
      return pairs[arguments, default: Pair()].released
    }
    gate.open()
  }

  private func pair(_ arguments: String) -> Pair {
    self.pairs.withLock { pairs in
      if let pair = pairs[arguments] { return pair }
      let pair = Pair()
      pairs[arguments] = pair
      return pair
    }
  }
}
