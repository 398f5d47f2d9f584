#if SwiftOperationLogging
  public import Logging

  /// An observer that logs every event of the nodes it observes, and of the nodes they produce,
  /// on a swift-log `Logger`.
  ///
  /// Only the `SwiftOperationLogging` trait builds it, so an app that does not log links no
  /// logging package. The messages, after the node's name and a colon:
  /// `did start.`, `did cancel.`, `did produce operation: <name>.`,
  /// `will finish with no errors.` or `will finish with error(s): [<errors>].`, and the same with
  /// `did finish`.
  ///
  /// ```swift
  /// let graph = WorkGraph(observers: [LoggingObserver(logger: Logger(label: "sync"))])
  /// ```
  ///
  /// With `OperationQueueCompat` imported, it logs a `ConcurrentOperation`'s events the same
  /// way, after the operation's `name`, as danthorpe/Operations' `LoggingObserver` does.
  public struct LoggingObserver: GraphObserver {
    /// The logger it writes to.
    public let logger: Logger

    /// The level of its messages.
    public let level: Logger.Level

    /// Creates the observer.
    ///
    /// - Parameters:
    ///   - logger: The logger to write to.
    ///   - level: The level of the messages; `.info` by default.
    public init(logger: Logger, level: Logger.Level = .info) {
      self.logger = logger
      self.level = level
    }

    public var attachesToProducedNodes: Bool { true }

    public func didStart(_ node: NodeInfo) {
      self.log(node, "did start.")
    }

    public func didCancel(_ node: NodeInfo, errors: [any Error]) {
      self.log(node, "did cancel.")
    }

    public func didProduce(_ produced: NodeInfo, from node: NodeInfo) {
      self.log(node, "did produce operation: \(produced.displayName).")
    }

    public func willFinish(_ node: NodeInfo, outcome: NodeOutcome) {
      self.log(node, "will finish with \(Self.describe(outcome.errors)).")
    }

    public func didFinish(_ node: NodeInfo, outcome: NodeOutcome) {
      self.log(node, "did finish with \(Self.describe(outcome.errors)).")
    }

    /// Logs a message after a name and a colon.
    package func log(_ name: String, _ message: String) {
      self.logger.log(level: self.level, "\(name): \(message)")
    }

    private func log(_ node: NodeInfo, _ message: String) {
      self.log(node.displayName, message)
    }

    /// "no errors", or the errors.
    package static func describe(_ errors: [any Error]) -> String {
      errors.isEmpty ? "no errors" : "error(s): \(errors)"
    }
  }
#endif
