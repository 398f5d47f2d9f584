import Observation

/// Tracks the observable properties that `apply` reads, and calls `onChange` (once) when one of
/// them is about to change.
@MainActor
func withObservationTrackingOnce<T>(
  _ apply: @MainActor () -> T,
  onChange: @escaping @Sendable () -> Void
) {
  _ = withObservationTracking(apply, onChange: onChange)
}
