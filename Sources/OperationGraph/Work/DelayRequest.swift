public import OperationCore

#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import struct Foundation.Date
#endif

/// A request that only waits: for a duration, or until a date.
///
/// This is danthorpe/Operations' `DelayOperation`, for a graph node or a chain step that does
/// nothing but wait. The wait goes through the context's ``OperationContext/operationDelayer``
/// (and a date is compared with its ``OperationContext/operationClock``), so tests never sleep:
///
/// ```swift
/// let pause = DelayRequest(for: .seconds(30))
/// pause.name  // "Delay for 30.0 seconds"
///
/// var context = OperationContext()
/// context.operationDelayer = RecordingDelayer()
/// try await OperationRunner(operation: pause, initialContext: context).run()
/// ```
///
/// A duration of zero or less, or a date that has passed, finishes at once without asking the
/// delayer. The request fails only when its task is cancelled during the wait (or had been
/// before it), with `CancellationError`.
public struct DelayRequest: OperationRequest, Hashable, Sendable {
  private enum Target: Hashable, Sendable {
    case duration(OperationDuration)
    case date(Date)
  }

  private let target: Target

  /// Creates a request that waits for a duration.
  ///
  /// - Parameter duration: How long to wait; zero or less finishes at once.
  public init(for duration: OperationDuration) {
    self.target = .duration(duration)
  }

  /// Creates a request that waits for a Swift `Duration`.
  ///
  /// - Parameter duration: How long to wait; zero or less finishes at once.
  @_disfavoredOverload
  public init(for duration: Duration) {
    self.init(for: OperationDuration(duration: duration))
  }

  /// Creates a request that waits until a date.
  ///
  /// - Parameter date: When to finish; a past date finishes at once.
  public init(until date: Date) {
    self.target = .date(date)
  }

  /// What the request waits for, such as `Delay for 1.0 seconds` or
  /// `Delay until 2026-01-01T09:00:00Z`.
  public var name: String {
    switch self.target {
    case .duration(let duration): "Delay for \(duration)"
    case .date(let date): "Delay until \(date.formatted(.iso8601))"
    }
  }

  /// Waits on the context's delayer.
  ///
  /// - Parameters:
  ///   - isolation: The actor the caller runs on.
  ///   - context: The context of this run.
  ///   - continuation: Unused: the request yields nothing.
  /// - Throws: `CancellationError` when the task is cancelled during the wait or before it.
  public func run(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Void, CancellationError>
  ) async throws(CancellationError) {
    let wait =
      switch self.target {
      case .duration(let duration): duration
      case .date(let date): OperationDuration.until(date, in: context)
      }
    guard wait > .zero else { return }
    // NB: A delayer throws only when its task is cancelled, which the check below handles.
    try? await context.operationDelayer.delay(for: wait)
    if Task.isCancelled {
      throw CancellationError()
    }
  }
}
