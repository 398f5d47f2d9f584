extension MutationRequest {
  /// Keeps only the most recent attempts in a mutation's ``MutationState/history``.
  ///
  /// By default the history keeps the latest
  /// ``OperationContext/defaultMaxHistoryLength`` (100) attempts, so a store that runs a mutation
  /// for the whole life of an app holds a bounded history. This modifier raises or lowers that
  /// bound: scheduling an attempt drops the oldest entries beyond `length`. An attempt that left the history still runs to its end,
  /// and its task can still be awaited, but its results no longer touch the state: they update
  /// neither the history, the value, the error, nor the counters.
  ///
  /// ```swift
  /// let store = client.store(for: SendMessage().maxHistory(length: 20))
  /// ```
  ///
  /// The modifier sets ``OperationContext/maxHistoryLength``. As with every context-setting
  /// modifier, the innermost (first-applied) one wins.
  ///
  /// > Note: Upstream swift-operation traps when `length` is 0 or less. Here the modifier reports
  /// > the issue and keeps 1 entry, the latest attempt.
  ///
  /// - Parameter length: The number of attempts to keep; at least 1.
  /// - Returns: The modified mutation.
  public func maxHistory(length: Int) -> ModifiedOperation<Self, _MaxHistoryLengthModifier<Self>> {
    guard length > 0 else {
      reportWarning(.mutationMaxHistoryLengthNotPositive(length))
      return self.modifier(_MaxHistoryLengthModifier(length: 1))
    }
    return self.modifier(_MaxHistoryLengthModifier(length: length))
  }
}

/// The modifier behind ``MutationRequest/maxHistory(length:)``.
public struct _MaxHistoryLengthModifier<Operation: MutationRequest>:
  _ContextUpdatingOperationModifier
{
  let length: Int

  /// Writes the length to ``OperationContext/maxHistoryLength``.
  public func setup(context: inout OperationContext) {
    context.maxHistoryLength = self.length
  }
}

extension OperationContext {
  /// The largest number of attempts a mutation's ``MutationState/history`` keeps.
  ///
  /// ``defaultMaxHistoryLength`` (100) by default; ``MutationRequest/maxHistory(length:)`` sets
  /// it, and `Int.max` keeps every attempt. It is read each time an attempt is scheduled, from the
  /// attempt's context, so setting it on a store's context changes the limit for later attempts.
  /// Values below 1 count as 1.
  public var maxHistoryLength: Int {
    get { self[MaxHistoryLengthKey.self] }
    set { self[MaxHistoryLengthKey.self] = newValue }
  }

  /// The number of attempts a mutation's history keeps when nothing sets
  /// ``maxHistoryLength``: 100.
  ///
  /// Upstream swift-operation keeps every attempt, which grows without bound in a store that
  /// lives as long as the app (280 MiB after 100,000 mutations). A hundred entries is more than a
  /// screen shows or a retry needs; use ``MutationRequest/maxHistory(length:)`` for more or fewer.
  public static let defaultMaxHistoryLength = 100

  private enum MaxHistoryLengthKey: Key {
    static let defaultValue = OperationContext.defaultMaxHistoryLength
  }
}
