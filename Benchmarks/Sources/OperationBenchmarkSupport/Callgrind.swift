import CCallgrind

/// Callgrind's instrumentation switch, for counting the instructions of a measured loop alone.
///
/// Run the profile with `valgrind --tool=callgrind --instr-atstart=no`: the setup (100,000 or
/// 1,000,000 stores) then runs uninstrumented, several times faster, and the counts cover only
/// what runs inside ``measure(_:)``. Outside Valgrind both calls do nothing.
public enum Callgrind {
  /// Whether the process runs under Valgrind.
  public static var isRunning: Bool {
    benchmark_running_on_valgrind() != 0
  }

  /// Runs `body` with callgrind's instrumentation on.
  ///
  /// - Parameter body: The work to count.
  /// - Returns: What `body` returns.
  public static func measure<Result>(_ body: () throws -> Result) rethrows -> Result {
    benchmark_callgrind_start()
    defer { benchmark_callgrind_stop() }
    return try body()
  }

  /// Runs `body` with callgrind's instrumentation on.
  ///
  /// - Parameter body: The work to count.
  /// - Returns: What `body` returns.
  public static func measure<Result>(_ body: () async throws -> Result) async rethrows -> Result {
    benchmark_callgrind_start()
    defer { benchmark_callgrind_stop() }
    return try await body()
  }
}
