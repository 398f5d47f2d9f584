/// Reads Prometheus' text exposition format, as swift-prometheus writes it and the demo's server
/// serves it at `GET /debug/metrics`.
///
/// ```swift
/// let text = """
///   # TYPE operation_runs_total counter
///   operation_runs_total{operation="FeedQuery"} 12
///   """
/// PrometheusText.samples(in: text)
/// // [PrometheusSample(name: "operation_runs_total", labels: ["operation": "FeedQuery"], value: 12)]
/// ```
public enum PrometheusText {
  /// The samples of a text, in order; comment lines, blank lines and lines that are not samples
  /// are skipped.
  ///
  /// - Parameter text: The text, one sample or comment per line.
  /// - Returns: The samples.
  public static func samples(in text: String) -> [PrometheusSample] {
    text.split(separator: "\n", omittingEmptySubsequences: true).compactMap {
      PrometheusSample(line: $0)
    }
  }

  /// The lines of the metric families whose name starts with `prefix`, in a stable order: the
  /// families by name, each with its `# TYPE` line first, then its samples by labels.
  ///
  /// The registry writes its families in no particular order; sorted, two runs that counted the
  /// same print the same lines.
  ///
  /// - Parameters:
  ///   - text: The text.
  ///   - prefix: The start of the names to keep, such as `operation_`.
  ///   - dropsBuckets: Whether to leave out the histograms' `_bucket` samples (their `_count` and
  ///     `_sum` stay).
  ///   - dropsEmptyHistograms: Whether to leave out the histogram series that recorded nothing
  ///     (`_count` 0), such as the timer of an outcome that never happened.
  /// - Returns: The lines, without their line feeds.
  public static func excerpt(
    of text: String,
    prefix: String,
    dropsBuckets: Bool = true,
    dropsEmptyHistograms: Bool = true
  ) -> [String] {
    var families = [String: Family]()
    var current: String?
    for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
      if line.hasPrefix("#") {
        let words = line.split(separator: " ")
        guard words.count >= 3, words[1] == "TYPE" || words[1] == "HELP" else { continue }
        let name = String(words[2])
        current = name
        guard name.hasPrefix(prefix) else { continue }
        families[name, default: Family()].comments.append(String(line))
        continue
      }
      guard let sample = PrometheusSample(line: line), sample.name.hasPrefix(prefix) else {
        continue
      }
      let family =
        current.flatMap { sample.name.hasPrefix($0) ? $0 : nil } ?? sample.name
      families[family, default: Family()].samples.append((sample, String(line)))
    }
    return families.keys.sorted().flatMap { name -> [String] in
      // NB: Force-unwrapped: the key comes from the dictionary.
      let family = families[name]!
      var samples = family.samples
      if dropsBuckets {
        samples.removeAll { $0.sample.name == name + "_bucket" }
      }
      if dropsEmptyHistograms {
        let empty = Set(
          samples.filter { $0.sample.name == name + "_count" && $0.sample.value == 0 }
            .map { $0.sample.labelText(excluding: "le") }
        )
        samples.removeAll {
          $0.sample.name != name && empty.contains($0.sample.labelText(excluding: "le"))
        }
      }
      let ordered = samples.sorted {
        ($0.sample.labelText, $0.sample.name) < ($1.sample.labelText, $1.sample.name)
      }
      return family.comments + ordered.map(\.line)
    }
  }

  private struct Family {
    var comments = [String]()
    var samples = [(sample: PrometheusSample, line: String)]()
  }
}

/// One sample of Prometheus' text format: a name, its labels and a value.
public struct PrometheusSample: Hashable, Sendable {
  /// The sample's name, such as `operation_runs_total` or `operation_run_duration_seconds_sum`.
  public var name: String

  /// The sample's labels, such as `["operation": "FeedQuery"]`.
  public var labels: [String: String]

  /// The sample's value.
  public var value: Double

  /// Creates a sample.
  ///
  /// - Parameters:
  ///   - name: The name.
  ///   - labels: The labels.
  ///   - value: The value.
  public init(name: String, labels: [String: String] = [:], value: Double) {
    self.name = name
    self.labels = labels
    self.value = value
  }

  /// Reads a sample line, such as `operation_runs_total{operation="FeedQuery"} 12`, or
  /// `operation_up 1` without labels; `nil` for a comment or a line that is not a sample.
  ///
  /// A timestamp after the value is ignored. Label values may hold the escapes `\\`, `\"` and
  /// `\n`.
  ///
  /// - Parameter line: The line, without its line feed.
  public init?(line: Substring) {
    let line = line.drop { $0 == " " }
    guard let first = line.first, first != "#" else { return nil }
    let nameEnd = line.firstIndex { $0 == "{" || $0 == " " } ?? line.endIndex
    let name = String(line[..<nameEnd])
    guard !name.isEmpty else { return nil }
    var labels = [String: String]()
    var rest = line[nameEnd...]
    if rest.first == "{" {
      guard let (parsed, after) = Self.labels(in: rest.dropFirst()) else { return nil }
      labels = parsed
      rest = after
    }
    guard let valueText = rest.split(separator: " ").first, let value = Double(valueText) else {
      return nil
    }
    self.init(name: name, labels: labels, value: value)
  }

  /// The labels as the text writes them, sorted by name: `operation="FeedQuery",outcome="success"`.
  public var labelText: String {
    self.labelText(excluding: nil)
  }

  /// The labels but one, as ``labelText`` writes them.
  ///
  /// - Parameter excluded: The label to leave out, such as a histogram bucket's `le`.
  /// - Returns: The text.
  public func labelText(excluding excluded: String?) -> String {
    self.labels.filter { $0.key != excluded }.sorted { $0.key < $1.key }
      .map { "\($0.key)=\"\($0.value)\"" }
      .joined(separator: ",")
  }

  /// Reads `name="value",…}` and returns the labels and what follows the closing brace.
  private static func labels(in text: Substring) -> ([String: String], Substring)? {
    var labels = [String: String]()
    var rest = text
    while true {
      rest = rest.drop { $0 == " " || $0 == "," }
      if rest.first == "}" {
        return (labels, rest.dropFirst())
      }
      guard let equals = rest.firstIndex(of: "=") else { return nil }
      let key = String(rest[..<equals]).trimmingSpaces
      rest = rest[rest.index(after: equals)...]
      guard rest.first == "\"" else { return nil }
      rest = rest.dropFirst()
      var value = ""
      var isEscaped = false
      var closed = false
      while let character = rest.first {
        rest = rest.dropFirst()
        if isEscaped {
          value.append(character == "n" ? "\n" : character)
          isEscaped = false
        } else if character == "\\" {
          isEscaped = true
        } else if character == "\"" {
          closed = true
          break
        } else {
          value.append(character)
        }
      }
      guard closed, !key.isEmpty else { return nil }
      labels[key] = value
    }
  }
}

extension String {
  fileprivate var trimmingSpaces: String {
    String(self.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
  }
}
