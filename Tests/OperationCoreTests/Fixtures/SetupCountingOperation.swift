import OperationCore

/// A stateless operation that counts its setups and returns the setup count it sees in its
/// context.
struct SetupCountingOperation: OperationRequest {
  let setupCount = CallCounter()

  func setup(context: inout OperationContext) {
    context.setupNumber = self.setupCount.increment()
  }

  func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, Never>
  ) async -> Int {
    context.setupNumber
  }
}

extension OperationContext {
  /// The number of the setup that prepared this context; `0` when none did.
  fileprivate var setupNumber: Int {
    get { self[SetupNumberKey.self] }
    set { self[SetupNumberKey.self] = newValue }
  }

  private enum SetupNumberKey: Key {
    static let defaultValue = 0
  }
}
