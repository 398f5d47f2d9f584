import IssueReporting
import OperationSynchronization

/// Reports a warning as an issue: a test failure under a test runner, a runtime warning otherwise.
///
/// The issue's comment is the warning's message, so tests can match it exactly. A warning raised
/// while the thread holds a store's or a client's lock is reported right after the thread
/// releases it, so that issue reporters never run under a library lock.
@_spi(Warnings)
public func reportWarning(
  _ warning: OperationWarning,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column
) {
  LibraryLocks.afterRelease {
    reportIssue(warning.message, fileID: fileID, filePath: filePath, line: line, column: column)
  }
}
