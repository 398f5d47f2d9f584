/// Collects what the operations report while they run: attempts, retries and runs per label, and
/// prints the retries as they happen.
final class DemoReporter: Sendable {
  let terminal: Terminal
  private let counts = Locked(Counts())

  private struct Counts {
    var attempts: [String: Int] = [:]
    var firstAttempts: [String: Int] = [:]
  }

  init(terminal: Terminal) {
    self.terminal = terminal
  }

  /// An attempt started: the first one of a run (`retryIndex == nil`) or a retry.
  func attemptStarted(label: String, retryIndex: Int?, maxRetries: Int) {
    self.counts.withLock { counts in
      counts.attempts[label, default: 0] += 1
      if retryIndex == nil {
        counts.firstAttempts[label, default: 0] += 1
      }
    }
    if let retryIndex {
      self.terminal.event(label, "retrying: attempt \(retryIndex + 2) of \(maxRetries + 1)")
    }
  }

  /// An attempt failed.
  func attemptFailed(label: String, retryIndex: Int?, maxRetries: Int, error: any Error) {
    let attempt = (retryIndex ?? -1) + 2
    self.terminal.event(label, "attempt \(attempt) of \(maxRetries + 1) failed: \(error)")
  }

  /// The number of attempts (requests) made under a label.
  func attempts(for label: String) -> Int {
    self.counts.withLock { $0.attempts[label, default: 0] }
  }

  /// The number of runs that reached the operation under a label (its first attempts).
  func runs(for label: String) -> Int {
    self.counts.withLock { $0.firstAttempts[label, default: 0] }
  }

  /// The number of retries, over every label.
  var retries: Int {
    self.counts.withLock { counts in
      counts.attempts.values.reduce(0, +) - counts.firstAttempts.values.reduce(0, +)
    }
  }
}
