import OperationCore

extension OperationContext {
  /// The reporter that a run reports its progress to, if someone observes it; `nil` by default.
  ///
  /// A combinator such as `then(_:)` splits the reporter's units evenly over
  /// its steps and gives each step a child reporter here; a graph gives each node one. A request
  /// that can tell how far it got reports to it:
  ///
  /// ```swift
  /// func run(
  ///   isolation: isolated (any Actor)?,
  ///   in context: OperationContext,
  ///   with continuation: OperationContinuation<Void, any Error>
  /// ) async throws {
  ///   for (index, file) in self.files.enumerated() {
  ///     try await upload(file)
  ///     context.progressReporter?.report(
  ///       fractionCompleted: Double(index + 1) / Double(self.files.count)
  ///     )
  ///   }
  /// }
  /// ```
  public var progressReporter: ProgressReporter? {
    get { self[ProgressReporterKey.self] }
    set { self[ProgressReporterKey.self] = newValue }
  }

  private enum ProgressReporterKey: Key {
    static let defaultValue: ProgressReporter? = nil
  }
}
