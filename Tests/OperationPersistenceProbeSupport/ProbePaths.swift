import Foundation
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

  /// Paths and operation types that name a private or a local type, whose runtime names hold the
  /// address of their scope: the cache refuses to key them, in every process.
  public static var unstable: [(path: OperationPath, operationType: any Any.Type)] {
    [
      ([PrivateElement(id: 1)], [String: Int].self),
      ([[PrivateElement(id: 1)]], [String: Int].self),
      (["posts"], PrivateOperation.self),
      ([localElement()], [String: Int].self),
    ]
  }

  /// A value of a type declared in a function.
  private static func localElement() -> any Hashable & Sendable {
    struct LocalElement: Hashable, Sendable {
      let id: Int
    }
    return LocalElement(id: 1)
  }
}

/// A path element of a private type.
private struct PrivateElement: Hashable, Sendable {
  let id: Int
}

/// A private operation type.
private enum PrivateOperation {}
