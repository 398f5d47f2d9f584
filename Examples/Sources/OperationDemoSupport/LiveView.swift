/// The escape sequences of a block of lines that redraws in place at the bottom of a terminal,
/// such as the `--inspect` table while a step runs.
///
/// A frame is drawn as whole lines, each ending with a line break, so that the cursor ends at the
/// start of the line below it; the next frame moves the cursor up over the previous one's lines
/// and clears from there to the end of the screen before drawing itself:
///
/// ```swift
/// var drawn = 0
/// print(LiveView.redraw(["a", "b"], replacingLineCount: drawn), terminator: "")
/// drawn = 2
/// print(LiveView.redraw(["c"], replacingLineCount: drawn), terminator: "")  // "a" and "b" go
/// ```
///
/// Line wrapping is off while a frame is drawn, so a line wider than the terminal is cut at its
/// edge instead of taking two rows, and moving up by the number of lines lands on the frame's
/// first row.
public enum LiveView {
  /// ESC, which starts every control sequence.
  private static let escape = "\u{1B}"

  /// Replaces the frame drawn last (if any) with `lines`.
  ///
  /// - Parameters:
  ///   - lines: The new frame's lines, without line breaks; none erases the previous frame.
  ///   - previousLineCount: The number of lines of the frame on screen, which the cursor is just
  ///     below; 0 when none is (the cursor is then on the line where the frame begins, at any
  ///     column, and that line is cleared too).
  /// - Returns: The text to write: cursor up `previousLineCount` lines (`ESC [ n A`), to the
  ///   first column (`CR`), clear to the end of the screen (`ESC [ J`), then, with line wrapping
  ///   off (`ESC [ ? 7 l`, back on with `ESC [ ? 7 h`), each line and a line break.
  public static func redraw(_ lines: [String], replacingLineCount previousLineCount: Int) -> String
  {
    var text = ""
    if previousLineCount > 0 {
      text += "\(Self.escape)[\(previousLineCount)A"
    }
    text += "\r\(Self.escape)[J"
    guard !lines.isEmpty else { return text }
    text += "\(Self.escape)[?7l"
    for line in lines {
      text += line + "\n"
    }
    text += "\(Self.escape)[?7h"
    return text
  }

  /// The text that erases the frame drawn last, leaving the cursor where the frame began.
  ///
  /// - Parameter lineCount: The number of lines of the frame on screen.
  public static func erase(lineCount: Int) -> String {
    Self.redraw([], replacingLineCount: lineCount)
  }

  /// A frame cut to a number of lines, so that it fits on the screen (moving the cursor up cannot
  /// go past the top of the screen): the first `maxLines - 1` lines and a line that says how many
  /// were left out.
  ///
  /// - Parameters:
  ///   - lines: The frame's lines.
  ///   - maxLines: The most lines; at least 1.
  ///   - indent: The start of the line that says how many were left out.
  public static func fit(_ lines: [String], maxLines: Int, indent: String = "") -> [String] {
    let maxLines = max(maxLines, 1)
    guard lines.count > maxLines else { return lines }
    let kept = lines.prefix(maxLines - 1)
    let omitted = lines.count - kept.count
    return kept + ["\(indent)… \(omitted) more line\(omitted == 1 ? "" : "s")"]
  }
}
