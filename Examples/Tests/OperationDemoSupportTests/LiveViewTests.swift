import OperationDemoSupport
import Testing

@Suite struct `LiveView tests` {
  private static let esc = "\u{1B}"

  @Test func `the first frame clears the line it starts on, then draws its lines unwrapped`() {
    #expect(
      LiveView.redraw(["a", "b"], replacingLineCount: 0)
        == "\r\(Self.esc)[J\(Self.esc)[?7la\nb\n\(Self.esc)[?7h"
    )
  }

  @Test func `a frame moves up over the previous frame's lines and clears them`() {
    #expect(
      LiveView.redraw(["c"], replacingLineCount: 2)
        == "\(Self.esc)[2A\r\(Self.esc)[J\(Self.esc)[?7lc\n\(Self.esc)[?7h"
    )
  }

  @Test func `erasing leaves no lines`() {
    #expect(LiveView.erase(lineCount: 3) == "\(Self.esc)[3A\r\(Self.esc)[J")
    #expect(LiveView.erase(lineCount: 0) == "\r\(Self.esc)[J")
    #expect(LiveView.redraw([], replacingLineCount: 3) == LiveView.erase(lineCount: 3))
  }

  @Test func `on a screen, each frame replaces the last, and lines written between stay above`() {
    var screen = Screen()
    screen.write("header\n")
    var drawn = 0
    for frame in [["one", "two", "three"], ["four"], ["five", "six"]] {
      screen.write(LiveView.redraw(frame, replacingLineCount: drawn))
      drawn = frame.count
      #expect(screen.lines == ["header"] + frame)
    }
    // A line written above the frame: erase, write, draw again.
    screen.write(LiveView.erase(lineCount: drawn) + "event\n")
    screen.write(LiveView.redraw(["seven"], replacingLineCount: 0))
    drawn = 1
    #expect(screen.lines == ["header", "event", "seven"])
    screen.write(LiveView.erase(lineCount: drawn))
    #expect(screen.lines == ["header", "event"])
    #expect(screen.wrapsLines)
  }

  @Test func `the first frame replaces an open line, such as a progress line`() {
    var screen = Screen()
    screen.write("header\n   feed [###---] 30/100")
    screen.write(LiveView.redraw(["   feed [###---] 30/100", "table"], replacingLineCount: 0))
    #expect(screen.lines == ["header", "   feed [###---] 30/100", "table"])
  }

  @Test func `fit keeps a short frame and cuts a tall one, saying how much`() {
    let lines = (1...5).map { "line \($0)" }
    #expect(LiveView.fit(lines, maxLines: 5) == lines)
    #expect(
      LiveView.fit(lines, maxLines: 3, indent: "  ") == ["line 1", "line 2", "  … 3 more lines"]
    )
    #expect(LiveView.fit(lines, maxLines: 4) == ["line 1", "line 2", "line 3", "… 2 more lines"])
    #expect(LiveView.fit(lines, maxLines: 5 - 1).count == 4)
    #expect(LiveView.fit(["a", "b"], maxLines: 0) == ["… 2 more lines"])
    #expect(LiveView.fit(["a", "b", "c"], maxLines: 2) == ["a", "… 2 more lines"])
    #expect(LiveView.fit(["a", "b"], maxLines: 1) == ["… 2 more lines"])
    #expect(LiveView.fit(["a", "b", "c"], maxLines: 2).count == 2)
    #expect(LiveView.fit([], maxLines: 2) == [])
  }
}

/// A screen that understands the control sequences ``LiveView`` writes: line feed, carriage
/// return, cursor up (`ESC [ n A`), clear to the end of the screen (`ESC [ J`), and line wrapping
/// off and on (`ESC [ ? 7 l`, `ESC [ ? 7 h`).
private struct Screen {
  private var rows = [""]
  private var row = 0
  private var column = 0
  private(set) var wrapsLines = true

  /// The rows, without the empty row the cursor waits on below the text.
  var lines: [String] {
    var lines = self.rows
    while lines.last == "" { lines.removeLast() }
    return lines
  }

  mutating func write(_ text: String) {
    var characters = Array(text)[...]
    while let character = characters.popFirst() {
      switch character {
      case "\n":
        self.row += 1
        self.column = 0
        if self.row == self.rows.count { self.rows.append("") }
      case "\r":
        self.column = 0
      case "\u{1B}":
        precondition(characters.popFirst() == "[")
        var parameter = ""
        while let next = characters.first, next.isNumber || next == "?" {
          parameter.append(next)
          characters.removeFirst()
        }
        switch characters.popFirst() {
        case "A": self.row = max(self.row - (Int(parameter) ?? 1), 0)
        case "J":
          self.rows[self.row] = String(self.rows[self.row].prefix(self.column))
          self.rows.removeSubrange((self.row + 1)...)
        case "l" where parameter == "?7": self.wrapsLines = false
        case "h" where parameter == "?7": self.wrapsLines = true
        case let other:
          Issue.record("unexpected control sequence \(parameter)\(String(describing: other))")
        }
      default:
        var line = Array(self.rows[self.row])
        while line.count < self.column { line.append(" ") }
        if self.column < line.count {
          line[self.column] = character
        } else {
          line.append(character)
        }
        self.rows[self.row] = String(line)
        self.column += 1
      }
    }
  }
}
