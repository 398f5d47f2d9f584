import SwiftDiagnostics
public import SwiftSyntax
import SwiftSyntaxBuilder
public import SwiftSyntaxMacros

/// `@OperationRequest`: a stateless request that runs the function.
public struct OperationRequestMacro: PeerMacro {
  /// Expands to the declarations generated next to the attached declaration.
  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    try RequestGenerator(kind: .operation, node: node, declaration: declaration, in: context)
      .declarations()
  }
}

/// `@QueryRequest(path:)`: a query whose `fetch` runs the function.
public struct QueryRequestMacro: PeerMacro {
  /// Expands to the declarations generated next to the attached declaration.
  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    try RequestGenerator(kind: .query, node: node, declaration: declaration, in: context)
      .declarations()
  }
}

/// `@MutationRequest(path:)`: a mutation whose `mutate` runs the function.
public struct MutationRequestMacro: PeerMacro {
  /// Expands to the declarations generated next to the attached declaration.
  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    try RequestGenerator(kind: .mutation, node: node, declaration: declaration, in: context)
      .declarations()
  }
}

enum RequestKind {
  case operation, query, mutation

  var macroName: String {
    switch self {
    case .operation: "@OperationRequest"
    case .query: "@QueryRequest"
    case .mutation: "@MutationRequest"
    }
  }

  var reservedNames: Set<String> {
    switch self {
    case .operation: ["isolation", "context", "continuation"]
    case .query: ["isolation", "context", "continuation", "path"]
    case .mutation: ["isolation", "context", "continuation", "path", "arguments"]
    }
  }

  /// Names the generated struct declares, which a free function must not use: inside the struct
  /// they would shadow it.
  var memberNames: Set<String> {
    var names: Set<String> = ["_debugTypeName", "setup", "run", "path", "makePath"]
    switch self {
    case .operation: break
    case .query: names.insert("fetch")
    case .mutation: names.insert("mutate")
    }
    return names
  }
}

/// One parameter of the function.
struct RequestParameter {
  /// The argument label, or nil for `_`.
  let label: String?
  /// The name of the stored property, or of the reserved argument.
  let name: String
  /// The type without `@escaping` and ownership specifiers.
  let storedType: TypeSyntax
  /// The parameter as the accessor function declares it.
  let accessorParameter: String
  /// The position of the parameter in the function's signature.
  var index = 0

  /// The argument of the call of the function.
  func argument(_ value: String) -> String {
    if let label { "\(label): \(value)" } else { value }
  }
}

/// How a query or mutation request gets its path.
enum PathSynthesis {
  case hashable
  case identifiable(ExprSyntax)
  case custom(ClosureExprSyntax)
}

// MARK: - Helpers

extension TokenKind {
  /// The keyword, when the token is one.
  var keywordValue: Keyword? {
    if case .keyword(let keyword) = self { keyword } else { nil }
  }
}

/// Whether an attribute is a global actor, such as `@MainActor`.
func isGlobalActor(_ element: AttributeListSyntax.Element) -> Bool {
  guard case .attribute(let attribute) = element else { return false }
  return attribute.attributeName.trimmedDescription.hasSuffix("Actor")
}

/// The reserved name a parameter takes the run's value for: its name, or else its label.
func reservedName(of parameter: FunctionParameterSyntax, _ kind: RequestKind) -> String? {
  let internalName = (parameter.secondName ?? parameter.firstName).text
  if kind.reservedNames.contains(internalName) { return internalName }
  if kind.reservedNames.contains(parameter.firstName.text) { return parameter.firstName.text }
  return nil
}
