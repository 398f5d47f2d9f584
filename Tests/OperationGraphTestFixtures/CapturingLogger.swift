#if SwiftOperationLogging
  package import Logging

  /// A logger whose messages a test reads back, in the order they were logged, at every level.
  package func capturingLogger() -> (Logger, EventLog) {
    let log = EventLog()
    let logger = Logger(label: "graph") { _ in CapturingHandler(log: log) }
    return (logger, log)
  }

  /// Appends every message to an event log.
  private struct CapturingHandler: LogHandler {
    let log: EventLog
    var metadata = Logger.Metadata()
    var logLevel = Logger.Level.trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { self.metadata[key] }
      set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      self.log.append(event.message.description)
    }
  }
#endif
