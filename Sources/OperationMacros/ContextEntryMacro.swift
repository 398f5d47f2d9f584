import SwiftDiagnostics
public import SwiftSyntax
import SwiftSyntaxBuilder
public import SwiftSyntaxMacros

/// `@ContextEntry`: a stored-looking property of `OperationContext` backed by a private key.
///
/// The peer role diagnoses misuse; the accessor role then expands to nothing, so that every
/// problem is reported once.
public struct ContextEntryMacro: AccessorMacro, PeerMacro {
  /// Expands to the accessors of the attached declaration.
  public static func expansion(
    of node: AttributeSyntax,
    providingAccessorsOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AccessorDeclSyntax] {
    guard let entry = try? Entry(declaration, node: node, in: context) else { return [] }
    return [
      "get { self[__Key_\(raw: entry.name).self] }",
      "set { self[__Key_\(raw: entry.name).self] = newValue }",
    ]
  }

  /// Expands to the declarations generated next to the attached declaration.
  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    let entry = try Entry(declaration, node: node, in: context)
    let type = entry.type.map { ": \($0)" } ?? ""
    return [
      """
      private struct __Key_\(raw: entry.name): OperationCore.OperationContext.Key {
        static let defaultValue\(raw: type) = \(entry.defaultValue)
      }
      """
    ]
  }

  private struct Entry {
    let name: String
    let type: TypeSyntax?
    let defaultValue: ExprSyntax

    init(
      _ declaration: some DeclSyntaxProtocol,
      node: AttributeSyntax,
      in context: some MacroExpansionContext
    ) throws {
      guard let variable = declaration.as(VariableDeclSyntax.self) else {
        throw DiagnosticsError(
          node: node,
          id: "notAVariable",
          "@ContextEntry applies only to a 'var' in an extension of OperationContext"
        )
      }
      let isInContextExtension = context.lexicalContext.first.map { scope in
        guard let extensionDecl = scope.as(ExtensionDeclSyntax.self) else { return false }
        let name = extensionDecl.extendedType.trimmedDescription
        return name == "OperationContext" || name.hasSuffix(".OperationContext")
      }
      guard isInContextExtension == true else {
        throw DiagnosticsError(
          node: node,
          id: "outsideContextExtension",
          "@ContextEntry declares an OperationContext entry: move this property into "
            + "'extension OperationContext { … }'"
        )
      }
      if let modifier = variable.modifiers.first(where: {
        $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class)
      }) {
        throw DiagnosticsError(
          node: modifier,
          id: "static",
          "@ContextEntry declares an entry of each context: remove '\(modifier.name.text)'",
          fixIts: [
            FixIt(
              message: OperationMacroMessage("fixit", "Remove '\(modifier.name.text)'"),
              changes: [
                .replace(
                  oldNode: Syntax(modifier),
                  newNode: Syntax(
                    DeclModifierSyntax(name: .identifier("", leadingTrivia: modifier.leadingTrivia))
                  )
                )
              ]
            )
          ]
        )
      }
      if variable.bindingSpecifier.tokenKind == .keyword(.let) {
        throw DiagnosticsError(
          node: variable.bindingSpecifier,
          id: "let",
          "@ContextEntry needs a settable property: declare it with 'var' instead of 'let'",
          fixIts: [
            .replace(
              "Replace 'let' with 'var'",
              variable.bindingSpecifier,
              with: variable.bindingSpecifier.with(\.tokenKind, .keyword(.var))
            )
          ]
        )
      }
      guard variable.bindings.count == 1, let binding = variable.bindings.first,
        let identifier = binding.pattern.as(IdentifierPatternSyntax.self)
      else {
        throw DiagnosticsError(
          node: variable.bindings,
          id: "pattern",
          "@ContextEntry declares one entry: write a single name, such as 'var name: Type = value'"
        )
      }
      if let accessorBlock = binding.accessorBlock {
        throw DiagnosticsError(
          node: accessorBlock,
          id: "computed",
          "@ContextEntry generates the accessors: remove them and give the property a default "
            + "value instead"
        )
      }
      self.name = identifier.identifier.trimmedDescription
      var type = binding.typeAnnotation?.type.trimmed
      if let unwrapped = type?.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
        type = TypeSyntax(OptionalTypeSyntax(wrappedType: unwrapped.wrappedType.trimmed))
      }
      if let initializer = binding.initializer {
        self.defaultValue = initializer.value.trimmed
      } else if let type,
        type.is(OptionalTypeSyntax.self)
          || type.as(IdentifierTypeSyntax.self)?.name.text == "Optional"
      {
        self.defaultValue = "nil"
      } else {
        var fixed = binding
        fixed.initializer = InitializerClauseSyntax(
          equal: .equalToken(leadingTrivia: .space, trailingTrivia: .space),
          value: ExprSyntax("<#default value#>")
        )
        if let typeAnnotation = fixed.typeAnnotation {
          fixed.typeAnnotation = typeAnnotation.with(\.trailingTrivia, [])
        } else {
          fixed.pattern = fixed.pattern.with(\.trailingTrivia, [])
        }
        throw DiagnosticsError(
          node: binding,
          id: "noDefault",
          "@ContextEntry needs the entry's default value: add an initial value, or make the "
            + "type optional to default to nil",
          fixIts: [.replace("Add a default value", binding, with: fixed)]
        )
      }
      self.type = type
    }
  }
}
