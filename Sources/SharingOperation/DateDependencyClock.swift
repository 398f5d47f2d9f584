import Dependencies
public import Foundation
public import OperationCore

/// An `OperationClock` that reads the time from `@Dependency(\.date)`.
///
/// Use it to make the dates a store records (such as `valueLastUpdatedAt`) follow the date
/// dependency, so tests that override it with `withDependencies` control them:
///
/// ```swift
/// let store = withDependencies {
///   $0.date.now = Date(timeIntervalSince1970: 1_000)
/// } operation: {
///   OperationStore.detached(
///     query: Post.query(for: 1).clock(.dateDependency),
///     initialValue: nil
///   )
/// }
/// ```
///
/// The clock keeps the dependencies in effect where it was created.
public struct DateDependencyClock: OperationClock, Sendable {
  @Dependency(\.date) private var date

  /// Creates a clock that reads `@Dependency(\.date)` as it is where the clock is created.
  public init() {}

  /// The date the date dependency reports now.
  ///
  /// - Returns: The date.
  public func now() -> Date {
    self.date.now
  }
}

extension OperationClock where Self == DateDependencyClock {
  /// A clock that reads the time from `@Dependency(\.date)`.
  public static var dateDependency: Self {
    DateDependencyClock()
  }
}
