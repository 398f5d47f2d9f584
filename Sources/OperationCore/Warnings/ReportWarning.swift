import IssueReporting

/// Reports a warning as an issue: a test failure under a test runner, a runtime warning otherwise.
///
/// The issue's comment is the warning's message, so tests can match it exactly.
@_spi(Warnings)
public func reportWarning(
  _ warning: OperationWarning,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column
) {
  reportIssue(warning.message, fileID: fileID, filePath: filePath, line: line, column: column)
}
