#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// Renders a client's snapshot (``InspectorSnapshot``) as an aligned text table, one store a row:
///
/// ```text
/// PATH            STATE              PHASE    STALE  SUBS  TASKS  UPDATED   ERROR  HISTORY/PAGES
/// [Query(id: 1)]  QueryState<Post?>  success  no        0      0  0.4s ago  -      -
/// ```
///
/// Long state types and errors are cut to a width and end with `…`, long paths lose their middle,
/// so a row stays on one line; the last update is relative to the snapshot's `takenAt`.
public enum InspectorTable {
  /// The widest a cell of each cut column may be.
  public struct Limits: Hashable, Sendable {
    /// The widest path.
    public var path: Int
    /// The widest state type, once shortened.
    public var stateType: Int
    /// The widest error description.
    public var error: Int

    /// Creates the limits.
    ///
    /// - Parameters:
    ///   - path: The widest path; at least 1.
    ///   - stateType: The widest state type; at least 1.
    ///   - error: The widest error description; at least 1.
    public init(path: Int = 40, stateType: Int = 34, error: Int = 32) {
      self.path = path
      self.stateType = stateType
      self.error = error
    }
  }

  /// The column titles.
  public static let header = [
    "PATH", "STATE", "PHASE", "STALE", "SUBS", "TASKS", "UPDATED", "ERROR", "HISTORY/PAGES",
  ]

  /// The columns whose cells are right-aligned: the counts.
  private static let rightAligned: Set<Int> = [4, 5]

  /// The table's lines: the header, then a row per store, in the snapshot's order; `no stores`
  /// for a snapshot without any.
  ///
  /// - Parameters:
  ///   - snapshot: The snapshot.
  ///   - limits: The widest cells of the cut columns.
  /// - Returns: The lines, without line breaks and without trailing spaces.
  public static func render(_ snapshot: InspectorSnapshot, limits: Limits = Limits()) -> [String] {
    guard !snapshot.stores.isEmpty else { return ["no stores"] }
    let rows = snapshot.stores.map { Self.cells(of: $0, takenAt: snapshot.takenAt, limits) }
    return self.align([Self.header] + rows)
  }

  /// The cells of one store's row.
  private static func cells(
    of store: InspectorSnapshot.Store,
    takenAt: Date,
    _ limits: Limits
  ) -> [String] {
    let stale = store.isInvalidated ? "invalidated" : store.isStale ? "yes" : "no"
    let error = store.errorDescription.map { Self.truncate(Self.oneLine($0), to: limits.error) }
    let counts: String =
      if let pages = store.pageCount {
        pages == 1 ? "1 page" : "\(pages) pages"
      } else if let history = store.historyCount {
        "\(history) in history"
      } else {
        "-"
      }
    return [
      Self.truncateMiddle(Self.shortPath(store.path), to: limits.path),
      Self.truncate(Self.shortTypeName(store.stateType), to: limits.stateType),
      store.phase,
      stale,
      "\(store.subscriberCount)",
      "\(store.activeTaskCount)",
      Self.relativeTime(since: store.lastUpdatedAt, now: takenAt),
      error ?? "-",
      counts,
    ]
  }

  /// Pads every cell to its column's width, two spaces between columns.
  private static func align(_ rows: [[String]]) -> [String] {
    let columnCount = rows.map(\.count).max() ?? 0
    let widths = (0..<columnCount).map { column in
      rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0
    }
    return rows.map { row in
      let padded = row.enumerated().map { column, cell in
        let padding = String(repeating: " ", count: widths[column] - cell.count)
        return Self.rightAligned.contains(column) ? padding + cell : cell + padding
      }
      let line = padded.joined(separator: "  ")
      return String(line.reversed().drop { $0 == " " }.reversed())
    }
  }

  /// A store's path without the `OperationPath(…)` around its elements, on one line:
  /// `OperationPath([Query(id: 1)])` reads `[Query(id: 1)]`.
  ///
  /// - Parameter path: The path, as the snapshot spells it.
  public static func shortPath(_ path: String) -> String {
    let path = Self.oneLine(path)
    let prefix = "OperationPath("
    guard path.hasPrefix(prefix), path.hasSuffix(")") else { return path }
    return String(path.dropFirst(prefix.count).dropLast())
  }

  /// A text cut to a width: its first `width - 1` characters and `…` when it is longer.
  ///
  /// - Parameters:
  ///   - text: The text.
  ///   - width: The widest result; at least 1.
  public static func truncate(_ text: String, to width: Int) -> String {
    let width = max(width, 1)
    guard text.count > width else { return text }
    return text.prefix(width - 1) + "…"
  }

  /// A text cut to a width in its middle: its start, `…`, then its end, when it is longer. For
  /// paths, whose ends tell stores apart (`[CreateMutation(lab…post · optimistic")]`).
  ///
  /// - Parameters:
  ///   - text: The text.
  ///   - width: The widest result; at least 1.
  public static func truncateMiddle(_ text: String, to width: Int) -> String {
    let width = max(width, 1)
    guard text.count > width else { return text }
    let kept = width - 1
    let head = (kept + 1) / 2
    return text.prefix(head) + "…" + text.suffix(kept - head)
  }

  /// How long before `now` a date was, such as `0.4s ago`, `12s ago`, `3m ago` or `2h ago`;
  /// `never` without a date.
  ///
  /// Under ten seconds it shows tenths of a second, rounded down (from whole milliseconds). A date after `now` (two clocks
  /// that disagree) reads as `0.0s ago`.
  ///
  /// - Parameters:
  ///   - date: The date, or `nil`.
  ///   - now: The moment to count back from: the snapshot's `takenAt`.
  public static func relativeTime(since date: Date?, now: Date) -> String {
    guard let date else { return "never" }
    // NB: Whole milliseconds first, so that 0.4 s computed as 0.39999… reads `0.4s ago`.
    let milliseconds = Int((max(now.timeIntervalSince(date), 0) * 1000).rounded())
    let seconds = Double(milliseconds) / 1000
    if seconds < 10 {
      let tenths = milliseconds / 100
      return "\(tenths / 10).\(tenths % 10)s ago"
    }
    if seconds < 60 { return "\(Int(seconds))s ago" }
    if seconds < 3600 { return "\(Int(seconds / 60))m ago" }
    return "\(Int(seconds / 3600))h ago"
  }

  /// A state type's name, shorter: each type by its own name, without the types it is nested in
  /// (`Post.FeedPage` as `FeedPage`), `Optional<Post>` as `Post?`, and without a last generic
  /// argument of `Error` or `any Error` (the failure type of every demo store), so
  /// `QueryState<Optional<Post>, Error>` reads `QueryState<Post?>`.
  ///
  /// - Parameter name: The name, as the snapshot spells it.
  public static func shortTypeName(_ name: String) -> String {
    let name = Self.trimmed(name)
    guard let open = name.firstIndex(of: "<"), name.last == ">" else {
      return Self.innermostName(name)
    }
    let base = Self.innermostName(String(name[..<open]))
    let inner = name[name.index(after: open)..<name.index(before: name.endIndex)]
    var arguments = Self.topLevelArguments(inner).map(Self.shortTypeName)
    if base == "Optional" && arguments.count == 1 {
      let wrapped = arguments[0]
      return wrapped.contains(" ") ? "(\(wrapped))?" : "\(wrapped)?"
    }
    if arguments.count > 1, let last = arguments.last, ["Error", "any Error"].contains(last) {
      arguments.removeLast()
    }
    return "\(base)<\(arguments.joined(separator: ", "))>"
  }

  /// A dotted type name's last component, such as `FeedPage` for `Post.FeedPage`; a tuple or a
  /// function type stays whole.
  private static func innermostName(_ name: String) -> String {
    guard !name.contains("("), let dot = name.lastIndex(of: ".") else { return name }
    return String(name[name.index(after: dot)...])
  }

  /// The comma-separated parts of a generic argument list, ignoring the commas nested in angle
  /// brackets or parentheses.
  private static func topLevelArguments(_ list: Substring) -> [String] {
    var arguments = [String]()
    var current = ""
    var depth = 0
    for character in list {
      switch character {
      case "<", "(", "[": depth += 1
      case ">", ")", "]": depth -= 1
      case "," where depth == 0:
        arguments.append(Self.trimmed(current))
        current = ""
        continue
      default: break
      }
      current.append(character)
    }
    arguments.append(Self.trimmed(current))
    return arguments
  }

  /// The text without its leading and trailing spaces.
  private static func trimmed(_ text: String) -> String {
    String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
  }

  /// The text on one line: line breaks and tabs become spaces.
  private static func oneLine(_ text: String) -> String {
    String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
  }
}
