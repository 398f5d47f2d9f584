import OperationSynchronization

#if SwiftOperationLogging
  import Logging
  import OperationCore
  import OperationTestSupport
  import Testing

  @Suite struct `LogDuration tests` {
    @Test func `Logs The Run Duration With The Operation Type`() async throws {
      let handler = CapturingLogHandler()
      let logger = Logger(label: "test") { _ in handler }
      let store = OperationStore.detached(
        query: TestQuery().logDuration(with: logger, at: .debug),
        initialValue: nil
      )
      store.context.operationClock = IncrementingOperationClock()

      try await store.fetch()

      #expect(
        handler.messages == [
          CapturingLogHandler.Message(
            message: "An operation finished running.",
            level: .debug,
            metadata: ["operation.type": "TestQuery", "operation.runDuration": "1.0 sec"]
          )
        ]
      )
    }

    @Test func `Uses The Context Logger At Info By Default`() async throws {
      let handler = CapturingLogHandler()
      let clock = ManualOperationClock()
      var runner = OperationRunner(operation: TestQuery().logDuration())
      runner.context.operationLogger = Logger(label: "context") { _ in handler }
      runner.context.operationClock = clock

      _ = try await runner.run()

      #expect(handler.messages.map(\.level) == [.info])
      #expect(handler.messages.first?.metadata["operation.runDuration"] == "0.0 secs")
    }

    @Test func `Logs Failed Runs Too`() async {
      let handler = CapturingLogHandler()
      var runner = OperationRunner(
        operation: FailingQuery().logDuration(with: Logger(label: "test") { _ in handler })
      )
      runner.context.operationClock = IncrementingOperationClock()

      _ = try? await runner.run()

      #expect(handler.messages.count == 1)
      #expect(handler.messages.first?.metadata["operation.runDuration"] == "1.0 sec")
    }

    @Test func `The Default Context Logger Is Labelled Swift Operation`() {
      #expect(OperationContext().operationLogger.label == "swift.operation")
    }
  }

  /// A log handler that keeps every message it receives.
  private struct CapturingLogHandler: LogHandler {
    struct Message: Equatable, Sendable {
      let message: Logger.Message
      let level: Logger.Level
      let metadata: Logger.Metadata
    }

    private let storage = Lock([Message]())

    var messages: [Message] {
      self.storage.withLock { $0 }
    }

    var metadata = Logger.Metadata()
    var logLevel = Logger.Level.trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { self.metadata[key] }
      set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      let message = Message(
        message: event.message,
        level: event.level,
        metadata: event.metadata ?? [:]
      )
      self.storage.withLock { $0.append(message) }
    }
  }
#endif
