import OperationCore

/// Records how each caller of a deduplicated operation settled, and lets a test wait until a
/// number of them have.
final class JoinRecorder: Sendable {
  private let counter = AsyncCounter()
  private let recorded = ValueRecorder<DeduplicationJoin>()

  /// How the callers settled, in order.
  var joins: [DeduplicationJoin] { self.recorded.values }

  /// The observer to set as `deduplicationJoinObserver`.
  var record: @Sendable (DeduplicationJoin) -> Void {
    { join in
      self.recorded.record(join)
      self.counter.increment()
    }
  }

  /// Suspends until `count` callers have settled.
  func wait(for count: Int) async {
    await self.counter.wait(for: count)
  }
}
