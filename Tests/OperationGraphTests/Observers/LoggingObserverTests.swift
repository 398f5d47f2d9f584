#if SwiftOperationLogging
  import Logging
  import OperationCore
  import OperationGraph
  import OperationGraphTestFixtures
  import Testing

  @Suite struct `LoggingObserver tests` {
    @Test func `It Logs A Failed Node's Finish With Its Errors`() async throws {
      let (logger, messages) = capturingLogger()
      let graph = WorkGraph(observers: [LoggingObserver(logger: logger)])
      try graph.add(name: "Test Logging Operation") { _ in throw GraphTestError(code: 1) }
      await graph.run()
      #expect(
        messages.events.contains(
          "Test Logging Operation: did finish with error(s): [\(String(reflecting: GraphTestError(code: 1)))]."
        )
      )
      #expect(messages.events.first == "Test Logging Operation: did start.")
    }

    @Test func `It Logs Cancellation And Production And Follows Produced Nodes`() async throws {
      let (logger, messages) = capturingLogger()
      let graph = WorkGraph()
      let cancelled = try graph.add(name: "Cancelled", observers: [LoggingObserver(logger: logger)])
      {
        _ in 1
      }
      graph.cancel(cancelled)
      try graph.add(name: "Test Logging Operation", observers: [LoggingObserver(logger: logger)]) {
        context in
        try context.produce(GraphWork(name: "Test Operation") { _ in 2 })
      }
      await graph.run()
      let events = messages.events
      #expect(events.contains("Cancelled: did cancel."))
      #expect(events.contains("Test Logging Operation: did produce operation: Test Operation."))
      #expect(events.contains("Test Operation: did finish with no errors."))
      #expect(events.contains("Test Logging Operation: will finish with no errors."))
    }
  }
#endif
