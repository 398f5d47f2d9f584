#if SwiftOperationLogging
  public import Foundation
  import Logging
  import OperationGraph

  extension LoggingObserver: OperationObserver {
    /// `true`: it logs the operations that an operation it observes produces.
    public var attachesToProducedOperations: Bool { true }

    /// Logs `<name>: did start.`, after the operation's `name` (its type name when it has none),
    /// as danthorpe/Operations' `LoggingObserver` does.
    ///
    /// ```swift
    /// sync.addObserver(LoggingObserver(logger: Logger(label: "sync")))
    /// ```
    public func didStart(_ operation: ConcurrentOperation) {
      self.log(Self.name(of: operation), "did start.")
    }

    /// Logs `<name>: did cancel.`
    public func didCancel(_ operation: ConcurrentOperation, errors: [any Error]) {
      self.log(Self.name(of: operation), "did cancel.")
    }

    /// Logs `<name>: did produce operation: <produced name>.`
    public func didProduce(_ produced: Foundation.Operation, from operation: ConcurrentOperation) {
      self.log(Self.name(of: operation), "did produce operation: \(Self.name(of: produced)).")
    }

    /// Logs `<name>: will finish with no errors.` or `… with error(s): [<errors>].`
    public func willFinish(_ operation: ConcurrentOperation, errors: [any Error]) {
      self.log(Self.name(of: operation), "will finish with \(Self.describe(errors)).")
    }

    /// Logs `<name>: did finish with no errors.` or `… with error(s): [<errors>].`
    public func didFinish(_ operation: ConcurrentOperation, errors: [any Error]) {
      self.log(Self.name(of: operation), "did finish with \(Self.describe(errors)).")
    }

    private static func name(of operation: Foundation.Operation) -> String {
      operation.name ?? "\(type(of: operation))"
    }
  }
#endif
