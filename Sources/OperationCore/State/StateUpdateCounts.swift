#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// The counters and dates of a ``MutationState`` or a ``PaginatedState``: how many values and
/// errors arrived, and when the last of each did.
@usableFromInline
struct StateUpdateCounts: Sendable {
  @usableFromInline var valueCount = 0
  @usableFromInline var valueDate: Date?
  @usableFromInline var errorCount = 0
  @usableFromInline var errorDate: Date?

  @inlinable init() {}

  /// Counts a value, or an error when `isSuccess` is `false`, that arrived at `date`.
  @inlinable mutating func record(isSuccess: Bool, at date: Date) {
    if isSuccess {
      self.valueCount += 1
      self.valueDate = date
    } else {
      self.errorCount += 1
      self.errorDate = date
    }
  }
}
