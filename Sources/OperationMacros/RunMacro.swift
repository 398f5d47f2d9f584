public import SwiftSyntax
import SwiftSyntaxBuilder
public import SwiftSyntaxMacros

/// `#run(op, context:, continuation:)`: builds an `OperationRunner` and runs it once.
public struct RunMacro: ExpressionMacro {
  /// Expands to the expression that replaces the macro.
  public static func expansion(
    of node: some FreestandingMacroExpansionSyntax,
    in context: some MacroExpansionContext
  ) -> ExprSyntax {
    // NB: The declarations' signatures guarantee the operation comes first, then an optional
    // `context:`, then an optional `continuation:`.
    let arguments = Array(node.arguments)
    let operation = arguments.first?.expression.trimmed ?? "()"
    let initialContext = arguments.first { $0.label?.text == "context" }?.expression.trimmed
    let continuation = arguments.first { $0.label?.text == "continuation" }?.expression.trimmed
    let runner: ExprSyntax =
      if let initialContext {
        "OperationCore.OperationRunner(operation: \(operation), initialContext: \(initialContext))"
      } else {
        "OperationCore.OperationRunner(operation: \(operation))"
      }
    if let continuation {
      return "\(runner).run(with: \(continuation))"
    }
    return "\(runner).run()"
  }
}
