public import Foundation
public import OperationCore

/// Paths whose keys the probe prints; the tests compute the same in their own process.
///
/// NB: Only standard types, so that the probe and the tests name them alike; sets and
/// dictionaries iterate in another order in each process, whose hash seed differs.
public enum ProbePaths {
  /// The paths.
  public static var all: [OperationPath] {
    let words = (0..<300).map { "word \($0)" }
    return [
      ["posts", 1, 2.5, Date(timeIntervalSinceReferenceDate: 1_000.25)],
      [Set(words)],
      [Dictionary(uniqueKeysWithValues: words.enumerated().map { ($1, $0) })],
      [[Set([1, 2, 3]), Set([4, 5])], "a\", \"b", Int?.none as Int?],
    ]
  }
}
