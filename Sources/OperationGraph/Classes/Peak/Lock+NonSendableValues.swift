import OperationCore
import OperationSynchronization

extension Lock {
  /// A copy of the value, which need not be `Sendable`.
  ///
  /// `withLock` returns a `sending` result, which a non-`Sendable` generic value (an operation's
  /// `Result<Output, any Error>`) cannot be. The classes that use this are `@unchecked Sendable`
  /// and hand their values to whichever thread asks, as PeakOperation's do; the lock makes each
  /// read and write whole.
  func read() -> Value {
    var copy: Value?
    self.withLock { copy = $0 }
    return copy!
  }
}
