public import OperationCore
import OperationSynchronization

/// A delayer that records every duration it is asked to wait for, and returns at once.
///
/// Inject it with `OperationContext.operationDelayer` to check the delays that
/// retries and backoff request without the test ever sleeping:
///
/// ```swift
/// let delayer = RecordingDelayer()
/// var context = OperationContext()
/// context.operationDelayer = delayer
///
/// try await context.operationDelayer.delay(for: .seconds(2))
/// #expect(delayer.delays == [.seconds(2)])
/// ```
///
/// > Note: The delayer records a duration even when the waiting task is cancelled, and then
/// > throws `CancellationError`, just as a sleeping delayer would be woken by the cancellation.
public final class RecordingDelayer: OperationDelayer, Sendable {
  private let recorded = Lock([OperationDuration]())

  /// Creates a delayer that has recorded nothing.
  public init() {}

  /// Every duration requested so far, in the order of the requests.
  public var delays: [OperationDuration] {
    self.recorded.withLock { $0 }
  }

  /// Records `duration` and returns without waiting.
  ///
  /// - Parameter duration: The duration to record.
  /// - Throws: `CancellationError` when the current task is cancelled.
  public func delay(for duration: OperationDuration) async throws {
    self.recorded.withLock { $0.append(duration) }
    try Task.checkCancellation()
  }
}
