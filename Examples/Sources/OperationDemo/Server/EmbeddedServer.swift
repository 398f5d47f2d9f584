import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The posts API running in this process on `127.0.0.1`.
///
/// Built on Hummingbird, so the client talks to it over real HTTP on a real socket.
struct EmbeddedServer: Sendable {
  /// The server's base URL, such as `http://127.0.0.1:41235`.
  let baseURL: URL
  private let group: ServiceGroup
  private let task: Task<Void, any Error>

  /// Starts the server and returns once it accepts connections.
  ///
  /// - Parameters:
  ///   - state: The server's posts, faults and counters.
  ///   - port: The port; 0 lets the system pick a free one.
  /// - Throws: The error that kept the server from starting, such as a port in use.
  static func start(state: ServerState, port: Int) async throws -> EmbeddedServer {
    let (ports, continuation) = AsyncStream<Int>.makeStream()
    let application = Self.application(state: state, port: port) { boundPort in
      continuation.yield(boundPort)
      continuation.finish()
    }
    let group = ServiceGroup(services: [application], logger: application.logger)
    let task = Task {
      defer { continuation.finish() }
      try await group.run()
    }
    var iterator = ports.makeAsyncIterator()
    guard let boundPort = await iterator.next() else {
      let reason: String
      do {
        try await task.value
        reason = "it stopped before it started listening"
      } catch {
        reason = Self.describe(error)
      }
      throw ServerStartError(port: port, reason: reason)
    }
    // NB: A literal host and a bound port always make a valid URL.
    let baseURL = URL(string: "http://127.0.0.1:\(boundPort)")!
    return EmbeddedServer(baseURL: baseURL, group: group, task: task)
  }

  /// Runs the server until the process receives SIGINT or SIGTERM.
  static func serve(state: ServerState, port: Int, onRunning: @escaping @Sendable (Int) -> Void)
    async throws
  {
    do {
      try await Self.application(state: state, port: port, onRunning: onRunning).runService()
    } catch let error as IOError {
      throw ServerStartError(port: port, reason: Self.describe(error))
    }
  }

  /// The text of the error that kept the server from starting.
  ///
  /// NB: SwiftNIO's own description of a system call's error has an unbalanced parenthesis
  /// (`bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)`), so the demo words
  /// those itself: `Address already in use (errno 98)`.
  private static func describe(_ error: any Error) -> String {
    guard let error = error as? IOError else { return "\(error)" }
    return "\(String(cString: strerror(error.errnoCode))) (errno \(error.errnoCode))"
  }

  /// Stops the server gracefully and waits for it to close.
  func stop() async {
    await self.group.triggerGracefulShutdown()
    _ = await self.task.result
  }

  private static func application(
    state: ServerState,
    port: Int,
    onRunning: @escaping @Sendable (Int) -> Void
  ) -> Application<RouterResponder<BasicRequestContext>> {
    let router = Router()
    router.add(middleware: FaultInjectionMiddleware(state: state))
    PostsRoutes.add(to: router, state: state)
    UsersRoutes.add(to: router, state: state)
    OutboxRoutes.add(to: router, state: state)
    FleetRoutes.add(to: router, state: state)
    DebugRoutes.add(to: router, state: state)
    var logger = Logger(label: "operation-demo.server")
    logger.logLevel = .error
    return Application(
      router: router,
      configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)),
      onServerRunning: { channel in onRunning(channel.localAddress?.port ?? port) },
      logger: logger
    )
  }
}

/// The server could not start, for example because its port is in use.
struct ServerStartError: Error, CustomStringConvertible {
  let port: Int
  let reason: String

  var description: String {
    "The embedded server could not start on 127.0.0.1:\(self.port): \(self.reason)"
  }
}
