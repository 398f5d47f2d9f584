#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// The process kind of a state that tracks a single kind of work, such as "save".
///
/// Each value is unique: two values are equal only when both their ``id`` and their
/// ``initializedAt`` date are, so `SingleProcess() != SingleProcess()`. Keep a value to compare
/// against it later:
///
/// ```swift
/// let save = SingleProcess()
/// model.run(\.saving, as: save) { try await store.save() }
/// model.saving.hasFinished(save)  // true once saved
/// ```
public struct SingleProcess: Hashable, Sendable {
  /// The identifier of the process.
  public var id: String

  /// When the process value was created.
  public var initializedAt: Date

  /// Creates a process value.
  ///
  /// - Parameters:
  ///   - id: The identifier; a new UUID string by default.
  ///   - initializedAt: The creation date; now by default.
  public init(id: String = UUID().uuidString, initializedAt: Date = Date()) {
    self.id = id
    self.initializedAt = initializedAt
  }
}

extension SingleProcess: CustomDebugStringConvertible {
  /// The process's ``id``.
  public var debugDescription: String {
    self.id
  }
}
