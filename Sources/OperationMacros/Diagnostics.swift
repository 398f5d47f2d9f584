import SwiftDiagnostics
import SwiftSyntax

/// An error or fix-it message of the operation macros.
struct OperationMacroMessage: DiagnosticMessage, FixItMessage {
  let message: String
  let id: String

  var diagnosticID: MessageID { MessageID(domain: "OperationMacros", id: self.id) }
  var fixItID: MessageID { self.diagnosticID }
  var severity: DiagnosticSeverity { .error }

  init(_ id: String, _ message: String) {
    self.id = id
    self.message = message
  }
}

extension DiagnosticsError {
  /// One diagnosed problem: expansion stops and the macro emits nothing.
  init(
    node: some SyntaxProtocol,
    id: String,
    _ message: String,
    fixIts: [FixIt] = []
  ) {
    self.init(diagnostics: [
      Diagnostic(node: Syntax(node), message: OperationMacroMessage(id, message), fixIts: fixIts)
    ])
  }
}

extension FixIt {
  /// A fix-it that replaces one node with another.
  static func replace(
    _ message: String,
    _ oldNode: some SyntaxProtocol,
    with newNode: some SyntaxProtocol
  ) -> FixIt {
    FixIt(
      message: OperationMacroMessage("fixit", message),
      changes: [.replace(oldNode: Syntax(oldNode), newNode: Syntax(newNode))]
    )
  }
}
