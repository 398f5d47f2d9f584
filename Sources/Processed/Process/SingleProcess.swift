public import OperationCore

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
  ///   - initializedAt: The creation date; by default, now according to ``clock``.
  public init(id: String = UUID().uuidString, initializedAt: Date = SingleProcess.clock.now()) {
    self.id = id
    self.initializedAt = initializedAt
  }
}

extension SingleProcess {
  /// The clock that dates new processes: the default ``initializedAt`` is its `now()`.
  ///
  /// It is the default `operationClock` of an `OperationContext`, the system's wall clock, unless
  /// the current task binds another one. The runs that create a process for you (`run` without
  /// a process, ``ProcessState/start()``, ``ProcessState/setRunning()``…) read it too, so a test
  /// can pin their dates:
  ///
  /// ```swift
  /// let date = Date(timeIntervalSince1970: 0)
  /// await SingleProcess.$clock.withValue(.timeFreeze(date)) {
  ///   await model.$saving.run { try await storage.save(document) }
  /// }
  /// model.saving.process?.initializedAt  // date
  /// ```
  ///
  /// A task started inside `withValue` (such as the task of a `run` that returns one) inherits
  /// the clock.
  @TaskLocal
  public static var clock: any OperationClock & Sendable = OperationContext().operationClock
}

extension SingleProcess: CustomDebugStringConvertible {
  /// The process's ``id``.
  public var debugDescription: String {
    self.id
  }
}
