/// A line that the crash test's child process prints on its standard output for the parent.
///
/// The child prints ``enqueued(_:)`` only after `MutationOutbox.enqueue` returned, that is after
/// the entry's transaction committed: a line the parent read is a mutation the app could have
/// shown as saved, which no crash may lose.
///
/// ```swift
/// OutboxChildLine.enqueued("lane-0-item-3").text  // "enqueued lane-0-item-3"
/// OutboxChildLine(parsing: "ready 200")  // .ready(entries: 200)
/// ```
public enum OutboxChildLine: Hashable, Sendable {
  /// An entry that the outbox held when the child started.
  case found(String)
  /// An entry written to the outbox: its transaction committed.
  case enqueued(String)
  /// Every mutation of the plan is in the outbox (or was delivered); the child delivers them.
  case ready(entries: Int)
  /// The outbox is empty: every entry was delivered.
  case delivered
  /// An entry failed for good, with its error.
  case failed(key: String, error: String)

  /// The line, without its newline.
  public var text: String {
    switch self {
    case .found(let key): "found \(key)"
    case .enqueued(let key): "enqueued \(key)"
    case .ready(let entries): "ready \(entries)"
    case .delivered: "delivered"
    case .failed(let key, let error): "failed \(key) \(error)"
    }
  }

  /// Parses a line that the child printed.
  ///
  /// - Parameter line: The line, with or without its newline.
  /// - Returns: `nil` for a line that is not one of the child's (such as a message of a library).
  public init?(parsing line: String) {
    let trimmed = line.hasSuffix("\n") ? line.dropLast() : Substring(line)
    let parts = trimmed.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
    switch (parts.first, parts.count) {
    case ("found", 2): self = .found(String(parts[1]))
    case ("enqueued", 2): self = .enqueued(String(parts[1]))
    case ("ready", 2):
      guard let entries = Int(parts[1]) else { return nil }
      self = .ready(entries: entries)
    case ("delivered", 1): self = .delivered
    case ("failed", 3): self = .failed(key: String(parts[1]), error: String(parts[2]))
    default: return nil
    }
  }
}
