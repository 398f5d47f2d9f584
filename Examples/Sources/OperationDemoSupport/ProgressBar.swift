/// Renders a one-line progress bar, such as `[##########----------]  50/100 posts`.
public enum ProgressBar {
  /// Renders a progress bar.
  ///
  /// - Parameters:
  ///   - completed: The finished amount; clamped to `0...total`.
  ///   - total: The whole amount; a total of zero or less renders an empty bar.
  ///   - width: The number of cells between the brackets; at least 1.
  ///   - unit: The word after the counts.
  /// - Returns: The bar with its counts.
  public static func render(completed: Int, total: Int, width: Int = 20, unit: String) -> String {
    let width = max(width, 1)
    let total = max(total, 0)
    let completed = min(max(completed, 0), total)
    let filled = total == 0 ? 0 : completed * width / total
    let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    let digits = String(total).count
    let count = String(completed)
    let padded = String(repeating: " ", count: max(digits - count.count, 0)) + count
    return "[\(bar)] \(padded)/\(total) \(unit)"
  }
}
