import OperationDemoSupport

/// The demo's checks: each one prints a check mark or a cross, and any cross makes the demo exit
/// with a non-zero status.
final class Checks: Sendable {
  private let terminal: Terminal
  private let results = Locked<[Bool]>([])

  init(terminal: Terminal) {
    self.terminal = terminal
  }

  /// Records and prints a check.
  @discardableResult
  func expect(_ condition: Bool, _ message: String) -> Bool {
    self.results.withLock { $0.append(condition) }
    self.terminal.line("   \(condition ? "✓" : "✗ FAILED:") \(message)")
    return condition
  }

  /// Records and prints a check's verdict.
  ///
  /// - Returns: Whether the check passed.
  @discardableResult
  func record(_ verdict: Verdict) -> Bool {
    self.expect(verdict.passed, verdict.message)
  }

  /// The number of checks that passed.
  var passed: Int {
    self.results.withLock { $0.count { $0 } }
  }

  /// The number of checks that failed.
  var failed: Int {
    self.results.withLock { $0.count { !$0 } }
  }
}
