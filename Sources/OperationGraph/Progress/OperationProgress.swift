/// A snapshot of a ``ProgressReporter``'s progress.
///
/// `completedUnitCount` counts whole units: the reporter's own units and the pending units of
/// every child that has finished. `fractionCompleted` also counts the part of each unfinished
/// child that is done, so it moves smoothly while children work:
///
/// ```swift
/// let reporter = ProgressReporter(totalUnitCount: 10)
/// let child = reporter.makeChild(pendingUnitCount: 4)
/// child.report(fractionCompleted: 0.5)
/// reporter.progress.completedUnitCount  // 0
/// reporter.progress.fractionCompleted  // 0.2
/// child.complete()
/// reporter.progress.completedUnitCount  // 4
/// ```
public struct OperationProgress: Hashable, Sendable, CustomStringConvertible {
  /// The whole units done, finished children included.
  public var completedUnitCount: Int64

  /// The units of the whole work.
  public var totalUnitCount: Int64

  /// The part of the work that is done, from 0 to 1, partial progress of unfinished children
  /// included; 0 when ``totalUnitCount`` is 0.
  public var fractionCompleted: Double

  /// Whether the work is done: ``totalUnitCount`` is positive and ``completedUnitCount`` has
  /// reached it.
  public var isFinished: Bool {
    self.totalUnitCount > 0 && self.completedUnitCount >= self.totalUnitCount
  }

  /// Creates a snapshot whose fraction is `completedUnitCount / totalUnitCount`.
  ///
  /// The fraction is clamped to 0...1, and is 0 when `totalUnitCount` is 0 or less.
  ///
  /// - Parameters:
  ///   - completedUnitCount: The whole units done.
  ///   - totalUnitCount: The units of the whole work.
  public init(completedUnitCount: Int64, totalUnitCount: Int64) {
    self.init(
      completedUnitCount: completedUnitCount,
      totalUnitCount: totalUnitCount,
      partialUnitCount: 0
    )
  }

  /// Creates a snapshot that also counts `partialUnitCount` units of unfinished children in its
  /// fraction.
  init(completedUnitCount: Int64, totalUnitCount: Int64, partialUnitCount: Double) {
    self.completedUnitCount = completedUnitCount
    self.totalUnitCount = totalUnitCount
    if totalUnitCount > 0 {
      let fraction = (Double(completedUnitCount) + partialUnitCount) / Double(totalUnitCount)
      self.fractionCompleted = min(max(fraction, 0), 1)
    } else {
      self.fractionCompleted = 0
    }
  }

  /// A description such as `3/10 (35%)`: whole units, then the fraction as a percentage.
  public var description: String {
    let percent = (self.fractionCompleted * 100).rounded()
    return "\(self.completedUnitCount)/\(self.totalUnitCount) (\(Int(percent))%)"
  }
}
