/// Why a store received a result: an intermediate yield, or the value the operation returned.
///
/// Event handlers and ``OperationState/update(with:for:)`` find it in
/// ``OperationContext/operationResultUpdateReason``.
public struct OperationResultUpdateReason: Hashable, Sendable {
  private let rawValue: String

  /// The operation yielded the result through its ``OperationContinuation``.
  public static let yieldedResult = Self(rawValue: "Yielded Result")

  /// The operation returned (or threw) the result.
  public static let returnedFinalResult = Self(rawValue: "Returned Final Result")
}

extension OperationResultUpdateReason: CustomStringConvertible {
  /// A readable name of the reason, such as `Yielded Result`.
  public var description: String {
    self.rawValue
  }
}

extension OperationContext {
  /// Why the current result was received; `nil` outside result delivery.
  public var operationResultUpdateReason: OperationResultUpdateReason? {
    get { self[ResultUpdateReasonKey.self] }
    set { self[ResultUpdateReasonKey.self] = newValue }
  }

  private enum ResultUpdateReasonKey: Key {
    static let defaultValue: OperationResultUpdateReason? = nil
  }
}
