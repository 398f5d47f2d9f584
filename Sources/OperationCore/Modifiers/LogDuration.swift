#if SwiftOperationLogging
  public import Logging

  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif

  // MARK: - Modifier

  extension OperationRequest {
    /// Logs how long each run of this operation takes.
    ///
    /// After every run, successful or not, the modifier logs "An operation finished running."
    /// with two metadata values: `operation.type`, the operation's type name without modifiers
    /// (such as `PostQuery`), and `operation.runDuration`, the time between the start and the end
    /// of the run on ``OperationContext/operationClock``, in seconds (`"0.25 secs"`,
    /// `"1.0 sec"`).
    ///
    /// ```swift
    /// let query = PostQuery(id: 1).logDuration(at: .debug)
    /// ```
    ///
    /// Available with the `SwiftOperationLogging` package trait.
    ///
    /// - Parameters:
    ///   - logger: The logger to write to; ``OperationContext/operationLogger`` when `nil`.
    ///   - level: The level of the message; `.info` by default.
    /// - Returns: The modified operation.
    public func logDuration(
      with logger: Logger? = nil,
      at level: Logger.Level = .info
    ) -> ModifiedOperation<Self, _DurationLoggingModifier<Self>> {
      self.modifier(_DurationLoggingModifier(logger: logger, level: level))
    }
  }

  /// The modifier behind ``OperationRequest/logDuration(with:at:)``.
  public struct _DurationLoggingModifier<Operation: OperationRequest>: OperationModifier, Sendable {
    let logger: Logger?
    let level: Logger.Level

    /// Runs the operation and logs the time it took, whether it succeeded or failed.
    ///
    /// - Parameters:
    ///   - isolation: The actor the caller runs on.
    ///   - context: The context of this run.
    ///   - operation: The wrapped operation.
    ///   - continuation: Receives intermediate results.
    /// - Returns: The value of the run.
    /// - Throws: The error of the run.
    public func run(
      isolation: isolated (any Actor)?,
      in context: OperationContext,
      using operation: Operation,
      with continuation: OperationContinuation<Operation.Value, Operation.Failure>
    ) async throws(Operation.Failure) -> Operation.Value {
      let logger = self.logger ?? context.operationLogger
      let clock = context.operationClock
      let start = clock.now()
      defer {
        let seconds = clock.now().timeIntervalSince(start)
        logger.log(
          level: self.level,
          "An operation finished running.",
          metadata: [
            "operation.type": "\(operation._debugTypeName)",
            "operation.runDuration": "\(seconds) \(seconds == 1 ? "sec" : "secs")",
          ]
        )
      }
      return try await operation.run(isolation: isolation, in: context, with: continuation)
    }
  }

  // MARK: - Context

  extension OperationContext {
    /// The logger that ``OperationRequest/logDuration(with:at:)`` writes to when it is given none.
    ///
    /// The default is a `Logger` labelled `swift.operation`. Available with the
    /// `SwiftOperationLogging` package trait.
    public var operationLogger: Logger {
      get { self[OperationLoggerKey.self] }
      set { self[OperationLoggerKey.self] = newValue }
    }

    private enum OperationLoggerKey: Key {
      static let defaultValue = Logger(label: "swift.operation")
    }
  }
#endif
