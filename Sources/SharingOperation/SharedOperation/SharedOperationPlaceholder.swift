public import OperationCore

/// What a ``SharedOperation`` shows while its store has produced no result yet.
///
/// A store that has never received a value or an error (its `valueUpdateCount` and
/// `errorUpdateCount` are both `0`) has only its initial value to show, often `nil`. A placeholder
/// shows something else in the meantime, as TanStack Query's `placeholderData` does. Pass one to
/// a ``SharedOperation`` initializer; re-pointing a wrapper with a placeholder of
/// ``previousValue`` keeps showing the old value while a new page or a new search loads:
///
/// ```swift
/// func pageButtonTapped(_ page: Int) {
///   self.$posts = SharedOperation(Post.listQuery(page: page), placeholder: .previousValue)
/// }
/// ```
///
/// While the placeholder is shown, the wrapper's ``SharedOperation/wrappedValue`` and
/// ``SharedOperation/currentValue`` are the placeholder and ``SharedOperation/isPlaceholder`` is
/// `true`. ``SharedOperation/state`` and every member read through dynamic member lookup
/// (`$posts.status`, `$posts.isLoading`) always show the store's real state. The first value or
/// error that the store receives ends the placeholder: once a query has failed, its wrapper shows
/// the store's value and its error, not the placeholder. Resetting the store's state brings the
/// placeholder back, as the store has no result again.
public enum SharedOperationPlaceholder<State: OperationState & Sendable>: Sendable {
  /// No placeholder: the wrapper always shows the store's value.
  ///
  /// This is the default.
  case none

  /// The value the wrapper showed when it was re-pointed to this operation.
  ///
  /// When a wrapper is re-pointed by assigning a shared operation with this placeholder to its
  /// projected value, the wrapper remembers what its wrapped value showed at that moment, and
  /// shows it until the new store has a result. Re-pointing again while the new store loads
  /// remembers that placeholder in turn, so a chain of re-points keeps the last value that came
  /// from a store.
  ///
  /// A wrapper that was created with this placeholder and never re-pointed has no previous value:
  /// it shows the store's value, and ``SharedOperation/isPlaceholder`` is `false`.
  case previousValue

  /// A fixed value, shown from the wrapper's creation until its store has a result.
  ///
  /// ```swift
  /// @SharedOperation(Post.listQuery(page: 1), placeholder: .value([])) var posts
  /// ```
  case value(State.StateValue)
}

// MARK: - Showing a state

extension SharedOperationPlaceholder {
  /// The value a wrapper shows for `state`, and whether it is a placeholder.
  ///
  /// - Parameters:
  ///   - state: The state the wrapper mirrors.
  ///   - previousValue: What the wrapper showed when it was re-pointed to this store, if it was.
  /// - Returns: The value to show and whether it is a placeholder.
  func shownValue(
    for state: State,
    previousValue: State.StateValue?
  ) -> (value: State.StateValue, isPlaceholder: Bool) {
    guard state.valueUpdateCount == 0, state.errorUpdateCount == 0 else {
      return (state.currentValue, false)
    }
    return switch self {
    case .none: (state.currentValue, false)
    case .previousValue:
      if let previousValue { (previousValue, true) } else { (state.currentValue, false) }
    case .value(let value): (value, true)
    }
  }

  /// Whether a wrapper re-pointed to a store with this placeholder remembers what it showed.
  var keepsPreviousValue: Bool {
    if case .previousValue = self { true } else { false }
  }
}
