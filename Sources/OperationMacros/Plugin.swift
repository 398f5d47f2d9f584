import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct OperationMacrosPlugin: CompilerPlugin {
  let providingMacros: [any Macro.Type] = [
    RunMacro.self,
    ContextEntryMacro.self,
    OperationRequestMacro.self,
    QueryRequestMacro.self,
    MutationRequestMacro.self,
  ]
}
