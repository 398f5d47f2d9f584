import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes the demo's output: timestamped event lines, step headings, check marks, and one progress
/// line that redraws in place on a terminal (and prints line by line into a pipe or a CI log).
final class Terminal: Sendable {
  private let start = ContinuousClock.now
  private let isInteractive = isatty(STDOUT_FILENO) != 0
  private let progressState = Locked(ProgressState())

  private struct ProgressState {
    var isOpen = false
    var lastText: String?
  }

  /// The time since the demo started.
  var elapsed: Duration {
    ContinuousClock.now - self.start
  }

  /// A plain line.
  func line(_ text: String = "") {
    self.write(text + "\n")
  }

  /// A step heading.
  func step(_ number: Int, _ title: String) {
    self.line()
    self.line("\(number). \(title)")
  }

  /// An explanation inside a step.
  func note(_ text: String) {
    self.line("   \(text)")
  }

  /// A timestamped event of a store, an operation or the network.
  func event(_ label: String, _ text: String) {
    let time = String(format: "%6.3fs", self.elapsed.inSeconds)
    let padded = label.padding(toLength: max(label.count, 20), withPad: " ", startingAt: 0)
    self.line("   \(time)  \(padded)  \(text)")
  }

  /// The progress line. On a terminal each call redraws it in place; into a pipe, each call
  /// prints a line, except transient ones (such as "loading page 3") and repeats.
  ///
  /// - Parameters:
  ///   - text: The progress text.
  ///   - isTransient: Whether the text only matters until the next update.
  func progress(_ text: String, isTransient: Bool = false) {
    guard self.isInteractive || !isTransient else { return }
    self.progressState.withLock { state in
      guard state.lastText != text else { return }
      state.lastText = text
      if self.isInteractive {
        state.isOpen = true
        self.emit("\r\u{1B}[2K   \(text)")
      } else {
        self.emit("   \(text)\n")
      }
    }
  }

  /// Closes the progress line, so that the next progress line starts afresh.
  func endProgress() {
    self.progressState.withLock { state in
      if state.isOpen {
        self.emit("\n")
      }
      state = ProgressState()
    }
  }

  private func write(_ text: String) {
    self.progressState.withLock { state in
      // NB: A line written while the progress line is open goes below it.
      if state.isOpen {
        self.emit("\n")
        state.isOpen = false
      }
      self.emit(text)
    }
  }

  private func emit(_ text: String) {
    print(text, terminator: "")
    fflush(nil)
  }
}

extension Duration {
  /// The duration in seconds, as a floating-point number.
  var inSeconds: Double {
    Double(self.components.seconds) + Double(self.components.attoseconds) / 1e18
  }

  /// The duration in whole milliseconds.
  var inMilliseconds: Int64 {
    self.components.seconds * 1000 + self.components.attoseconds / 1_000_000_000_000_000
  }
}
