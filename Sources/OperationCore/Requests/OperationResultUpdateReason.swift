/// Why a store received a result: an intermediate yield, or the value the operation returned.
///
/// Event handlers and ``OperationState/update(with:for:)`` find it in
/// ``OperationContext/operationResultUpdateReason``.
public enum OperationResultUpdateReason: Hashable, Sendable {
  /// The operation yielded the result through its ``OperationContinuation``.
  case yieldedResult

  /// The operation returned (or threw) the result.
  case returnedFinalResult
}

extension OperationResultUpdateReason: CustomStringConvertible {
  /// A readable name of the reason, such as `Yielded Result`.
  public var description: String {
    switch self {
    case .yieldedResult: "Yielded Result"
    case .returnedFinalResult: "Returned Final Result"
    }
  }
}

extension OperationContext {
  /// Why the current result was received; `nil` outside result delivery.
  public var operationResultUpdateReason: OperationResultUpdateReason? {
    get { self.runEntries.resultUpdateReason }
    set { self.runEntries.resultUpdateReason = newValue }
  }
}
