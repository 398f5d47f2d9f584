import Foundation
import OperationDemoSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes the demo's output: timestamped event lines, step headings, check marks, and one progress
/// line that redraws in place on a terminal (and prints line by line into a pipe or a CI log).
///
/// On a terminal it also keeps a live frame (``setLiveFrame(_:)``), such as `--inspect`'s table,
/// below everything else: each line written goes above the frame, which is erased and drawn again
/// under it.
final class Terminal: Sendable {
  private let start = ContinuousClock.now
  /// Whether standard output is a terminal, where lines can be redrawn in place.
  let isInteractive = isatty(STDOUT_FILENO) != 0
  private let progressState = Locked(ProgressState())

  private struct ProgressState {
    var isOpen = false
    var lastText: String?
    /// The live frame's lines; `nil` when there is no live frame.
    var liveLines: [String]?
    /// Whether live frames are refused from now on (``closeLiveFrames()``).
    var isLiveClosed = false
    /// The number of lines drawn at the bottom while there is a live frame: the open progress
    /// line, if any, then the frame's lines, each ending with a line break.
    var drawnLineCount = 0

    /// What is drawn at the bottom while there is a live frame.
    var liveRegion: [String] {
      let progress = self.isOpen ? self.lastText.map { ["   \($0)"] } ?? [] : []
      return progress + (self.liveLines ?? [])
    }
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
      if state.liveLines != nil {
        // NB: Above a live frame, the progress line is the first line of the redrawn region.
        state.isOpen = true
        self.redrawLiveRegion(&state)
      } else if self.isInteractive {
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
      if state.liveLines != nil {
        self.writeAboveLiveFrame("", &state)
      } else if state.isOpen {
        self.emit("\n")
      }
      state.isOpen = false
      state.lastText = nil
    }
  }

  /// Shows `lines` below everything else, in place of the previous live frame; each later line
  /// goes above it, until ``endLiveFrame()``. Only on a terminal: elsewhere it does nothing.
  ///
  /// - Parameter lines: The frame's lines, without line breaks.
  func setLiveFrame(_ lines: [String]) {
    guard self.isInteractive else { return }
    self.progressState.withLock { state in
      guard !state.isLiveClosed else { return }
      state.liveLines = lines
      self.redrawLiveRegion(&state)
    }
  }

  /// Erases the live frame; an open progress line stays, to be redrawn in place as before.
  func endLiveFrame() {
    self.progressState.withLock { state in
      guard state.liveLines != nil else { return }
      self.emit(LiveView.erase(lineCount: state.drawnLineCount))
      state.liveLines = nil
      state.drawnLineCount = 0
      if state.isOpen, let text = state.lastText {
        self.emit("   \(text)")
      }
    }
  }

  /// Erases the live frame and refuses any later one, for output that ends the program while a
  /// live view may still be refreshing (the time limit).
  func closeLiveFrames() {
    self.progressState.withLock { $0.isLiveClosed = true }
    self.endLiveFrame()
  }

  private func write(_ text: String) {
    self.progressState.withLock { state in
      if state.liveLines != nil {
        self.writeAboveLiveFrame(text, &state)
        return
      }
      // NB: A line written while the progress line is open goes below it.
      if state.isOpen {
        self.emit("\n")
        state.isOpen = false
      }
      self.emit(text)
    }
  }

  /// Erases the live region, closes the open progress line (it stays on screen, as without a
  /// live frame), writes `text`, then draws the live frame again below it.
  private func writeAboveLiveFrame(_ text: String, _ state: inout ProgressState) {
    self.emit(LiveView.erase(lineCount: state.drawnLineCount))
    if state.isOpen, let progress = state.lastText {
      self.emit("   \(progress)\n")
    }
    state.isOpen = false
    state.drawnLineCount = 0
    self.emit(text)
    self.redrawLiveRegion(&state)
  }

  /// Draws the live region (the open progress line and the live frame) over the one drawn last.
  private func redrawLiveRegion(_ state: inout ProgressState) {
    let region = state.liveRegion
    self.emit(LiveView.redraw(region, replacingLineCount: state.drawnLineCount))
    state.drawnLineCount = region.count
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
