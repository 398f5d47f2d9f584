public import ArgumentParser

#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// The command-line flags of `operation-demo`.
///
/// Parsing validates every value, so a bad value ends the program with a message that names the
/// flag and a non-zero exit, before anything starts. A numeric flag takes the next argument as its
/// value even when it starts with a dash, so `--latency-ms -5` is reported as out of range rather
/// than as a missing value:
///
/// ```swift
/// let options = try DemoOptions.parse(["--failure-rate", "0.5", "--seed", "1"])
/// options.faultPlan.failureRate  // 0.5
/// ```
public struct DemoOptions: ParsableArguments, Sendable {
  /// The server to run the client against instead of the embedded one.
  @Option(
    name: .customLong("base-url"),
    help: ArgumentHelp(
      "Run the client against this server instead of the embedded one: another instance "
        + "started with --serve-only, or any server with the same API (dummyjson.com's shape). "
        + "Fault injection, the server's request counts and its "
        + "offline switch are then unavailable, so the offline step simulates the outage in "
        + "the client.",
      valueName: "url"
    ),
    transform: DemoOptions.parseBaseURL
  )
  public var baseURL: URL?

  /// The probability that the embedded server answers a request with HTTP 500 (not on the users
  /// API, whose failures the circuit-breaker step switches itself).
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Probability (0...1) that the embedded server answers a request with HTTP 500 (the users "
        + "API of the circuit-breaker and batch steps excepted).",
      valueName: "rate"
    )
  )
  public var failureRate: Double = 0.2

  /// The latency the embedded server adds to every answer, in milliseconds.
  @Option(
    name: .customLong("latency-ms"),
    parsing: .unconditional,
    help: ArgumentHelp(
      "Milliseconds the embedded server waits before every answer (0...1000).",
      valueName: "ms"
    )
  )
  public var latencyMilliseconds: Int = 20

  /// How long the embedded server stays offline in the reconnection and outbox steps, in
  /// milliseconds.
  @Option(
    name: .customLong("offline-for-ms"),
    parsing: .unconditional,
    help: ArgumentHelp(
      "Milliseconds the server stays offline in the reconnection step (0...10000); it stays "
        + "offline at least until the store has seen the outage. The outbox step stays offline "
        + "as long after its mutations are written.",
      valueName: "ms"
    )
  )
  public var offlineMilliseconds: Int = 500

  /// The seed of the embedded server's failure decisions.
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Seed of the failure decisions: a seed fails the same requests on every run.",
      valueName: "n"
    )
  )
  public var seed: UInt64 = 5

  /// The most time the whole demo may take, in seconds.
  @Option(
    name: .customLong("time-limit"),
    parsing: .unconditional,
    help: ArgumentHelp(
      "Fail if the demo takes longer than this many seconds (1...600).",
      valueName: "seconds"
    )
  )
  public var timeLimitSeconds: Int = 30

  /// Only run the embedded server, until interrupted.
  @Flag(
    help: ArgumentHelp(
      "Only run the embedded server (with its fault injection) until interrupted, so that "
        + "another run can use it with --base-url."
    )
  )
  public var serveOnly = false

  /// Print the client's stores after each step, as the embedded server's `GET /debug/operations`
  /// reports them.
  @Flag(
    help: ArgumentHelp(
      "After each step and at the end, print the client's stores (client.snapshot()) as the "
        + "embedded server's GET /debug/operations reports them; on a terminal, a live view of "
        + "them also redraws while a step runs."
    )
  )
  public var inspect = false

  /// The port of the embedded server; 0 picks a free one.
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Port of the embedded server; 0 picks a free port (0...65535).",
      valueName: "port"
    )
  )
  public var port: Int = 0

  /// Creates the default options.
  public init() {}

  /// The embedded server's faults.
  public var faultPlan: FaultPlan {
    FaultPlan(
      failureRate: self.failureRate,
      latency: .milliseconds(self.latencyMilliseconds),
      seed: self.seed
    )
  }

  /// How long the server stays offline in the reconnection step, and in the outbox step once its
  /// mutations are written.
  public var offlineDuration: Duration {
    .milliseconds(self.offlineMilliseconds)
  }

  /// The most time the whole demo may take.
  public var timeLimit: Duration {
    .seconds(self.timeLimitSeconds)
  }

  /// Checks the values together; ArgumentParser calls it after parsing.
  ///
  /// - Throws: `ValidationError` naming the flag.
  public mutating func validate() throws {
    guard (0...1).contains(self.failureRate) else {
      throw ValidationError("--failure-rate must be between 0 and 1, got \(self.failureRate).")
    }
    guard (0...1000).contains(self.latencyMilliseconds) else {
      throw ValidationError(
        "--latency-ms must be between 0 and 1000, got \(self.latencyMilliseconds)."
      )
    }
    guard (0...10_000).contains(self.offlineMilliseconds) else {
      throw ValidationError(
        "--offline-for-ms must be between 0 and 10000, got \(self.offlineMilliseconds)."
      )
    }
    guard (1...600).contains(self.timeLimitSeconds) else {
      throw ValidationError("--time-limit must be between 1 and 600, got \(self.timeLimitSeconds).")
    }
    guard (0...65_535).contains(self.port) else {
      throw ValidationError("--port must be between 0 and 65535, got \(self.port).")
    }
    if self.serveOnly && self.baseURL != nil {
      throw ValidationError("--serve-only runs the embedded server; it cannot take --base-url.")
    }
    if self.inspect && self.serveOnly {
      throw ValidationError(
        "--inspect shows the demo client's stores; --serve-only runs no client."
      )
    }
    if self.inspect && self.baseURL != nil {
      throw ValidationError(
        "--inspect reads the embedded server's /debug/operations, which reports this run's "
          + "client; it cannot take --base-url."
      )
    }
    if self.port != 0 && self.baseURL != nil {
      throw ValidationError("--port sets the embedded server's port; it cannot take --base-url.")
    }
  }

  /// Parses a `--base-url` value.
  ///
  /// - Parameter value: The raw value.
  /// - Returns: The URL, without a trailing slash.
  /// - Throws: `ValidationError` unless the value is an absolute `http` or `https` URL with a
  ///   host.
  public static func parseBaseURL(_ value: String) throws -> URL {
    let trimmed = value.hasSuffix("/") ? String(value.dropLast()) : value
    guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(),
      scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
    else {
      throw ValidationError(
        "--base-url must be an http or https URL with a host, such as https://dummyjson.com."
      )
    }
    return url
  }
}
