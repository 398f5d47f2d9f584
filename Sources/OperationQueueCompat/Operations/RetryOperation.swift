public import Foundation
import OperationCore

/// What a ``RetryOperation``'s handler learns about a failed attempt: danthorpe/Operations'
/// `RetryFailureInfo`.
public struct RetryFailureInfo<T: Foundation.Operation>: Sendable {
  /// The attempt that failed.
  public let operation: T

  /// The attempt's errors.
  public let errors: [any Error]

  /// The errors of every attempt so far, this one's included.
  public let aggregateErrors: [any Error]

  /// The number of attempts so far, this one included: 1 after the first.
  public let count: Int

  /// Creates the information about a failed attempt.
  ///
  /// - Parameters:
  ///   - operation: The attempt that failed.
  ///   - errors: Its errors.
  ///   - aggregateErrors: The errors of every attempt so far.
  ///   - count: The number of attempts so far.
  public init(operation: T, errors: [any Error], aggregateErrors: [any Error], count: Int) {
    self.operation = operation
    self.errors = errors
    self.aggregateErrors = aggregateErrors
    self.count = count
  }
}

/// A ``RepeatedOperation`` that makes a new attempt only when the last one finished with errors,
/// up to `maxCount` attempts, waiting between attempts: danthorpe/Operations' `RetryOperation`.
///
/// ```swift
/// let upload = RetryOperation(maxCount: 3, wait: .exponential(.seconds(1), max: .seconds(10))) {
///   _ in UploadOperation(file: file)
/// } retry: { info, recommended in
///   info.errors.contains(where: { $0 is AuthenticationError }) ? nil : recommended
/// }
/// queue.addOperation(upload)
/// ```
///
/// - The generator gets the attempt's number, from 1, and returns the operation, or `nil` to
///   stop.
/// - After a failed attempt the handler, when there is one, gets a ``RetryFailureInfo`` and the
///   recommended next attempt (the generator's operation with the `WaitStrategy`'s wait) and
///   returns it, another, or `nil` to stop. It is not asked once ``RepeatedOperation/maxCount``
///   attempts ran or the generator ended.
/// - ``RepeatedOperation/count`` is the number of attempts; ``GroupOperation/aggregateErrors``
///   keeps the errors of every attempt.
///
/// Differences from Operations 2.x: the operation finishes with the **last attempt's errors**, so
/// a retry that eventually succeeds has no ``ConcurrentOperation/errors`` (2.x finished with every
/// attempt's errors; they are still in ``GroupOperation/aggregateErrors``); the default wait is
/// `WaitStrategy.fixed(_:)` of 0.1 s, through the context's delayer.
open class RetryOperation<T: Foundation.Operation>: RepeatedOperation<T>, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; the only stored property is
  // a `let` of an optional `Sendable` closure.

  /// Decides the next attempt after a failed one: the recommended one, another, or `nil` to
  /// stop.
  public typealias Handler =
    @Sendable (_ info: RetryFailureInfo<T>, _ recommended: RepeatedPayload<T>) ->
    RepeatedPayload<T>?

  private let handler: Handler?

  /// Creates a retrying operation from a generator of attempts.
  ///
  /// - Parameters:
  ///   - maxCount: The most attempts; 5 by default.
  ///   - wait: The waits between attempts; 0.1 s by default.
  ///   - generator: Returns the operation for an attempt, numbered from 1, or `nil` to stop.
  ///   - handler: Decides the next attempt after a failed one; every failure is retried by
  ///     default.
  public init(
    maxCount: Int? = 5,
    wait: WaitStrategy = .fixed(.seconds(0.1)),
    _ generator: @escaping @Sendable (_ attempt: Int) -> T?,
    retry handler: Handler? = nil
  ) {
    self.handler = handler
    super.init(maxCount: maxCount, wait: wait, generator)
    self.name = "Retry<\(T.self)>"
  }

  /// Retries a failed attempt, as the handler decides.
  open override func nextPayload(after operation: T, errors: [any Error]) -> RepeatedPayload<T>? {
    guard !errors.isEmpty, let recommended = self.recommendedPayload() else { return nil }
    guard let handler else { return recommended }
    let info = RetryFailureInfo(
      operation: operation,
      errors: errors,
      aggregateErrors: self.aggregateErrors + errors,
      count: self.count
    )
    return handler(info, recommended)
  }

  override func finishingErrors(aggregate: [any Error]) -> [any Error] {
    self.lastRunErrors
  }
}
