import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// Reads the function a request macro is attached to, checks it, and keeps what the generated
/// declarations need (``declarations()`` in `RequestGenerator+Declarations.swift` writes them;
/// the path argument is read in `RequestGenerator+Path.swift`).
struct RequestGenerator<Context: MacroExpansionContext> {
  let kind: RequestKind
  let node: AttributeSyntax
  let function: FunctionDeclSyntax
  let context: Context

  let parentName: String?
  let parentIsActorIsolated: Bool
  let isStatic: Bool
  let parameters: [RequestParameter]
  let reserved: [String: RequestParameter]
  let valueType: TypeSyntax
  let failureType: TypeSyntax
  let isThrowing: Bool
  let isAsync: Bool
  let path: PathSynthesis?

  init(
    kind: RequestKind,
    node: AttributeSyntax,
    declaration: some DeclSyntaxProtocol,
    in context: Context
  ) throws {
    self.kind = kind
    self.node = node
    self.context = context
    guard let function = declaration.as(FunctionDeclSyntax.self) else {
      throw DiagnosticsError(
        node: node,
        id: "notAFunction",
        "\(kind.macroName) applies only to functions: attach it to a 'func' that does the work"
      )
    }
    self.function = function
    let name = function.name.text

    // NB: Only the innermost scope names the parent: a type is the function's parent, and
    // anything else (a function, a closure, an accessor) makes it a local function.
    var parentName: String?
    var parentIsActorIsolated = false
    let scopes = context.lexicalContext
    if let type = scopes.first?.asProtocol((any DeclGroupSyntax).self) {
      if type.is(ProtocolDeclSyntax.self) {
        throw DiagnosticsError(
          node: node,
          id: "protocol",
          "\(kind.macroName) cannot generate a request inside a protocol: move the function "
            + "into a type or an extension"
        )
      }
      if let named = type.asProtocol((any NamedDeclSyntax).self) {
        parentName = named.name.text
      } else if let extensionDecl = type.as(ExtensionDeclSyntax.self) {
        parentName = extensionDecl.extendedType.trimmedDescription
      }
      parentIsActorIsolated =
        type.is(ActorDeclSyntax.self) || type.attributes.contains(where: isGlobalActor)
    } else if scopes.contains(where: { $0.isProtocol((any DeclGroupSyntax).self) }) {
      // NB: A local function has no member to call through the value or type that encloses it,
      // so the request could not run it (upstream's expansion calls a member that does not
      // exist). A plain local function expands as a top-level one does, as upstream's does,
      // though Swift 6.3 does not yet let code see what a peer macro adds in a local scope
      // (swiftlang/swift#68661); the macros article says so.
      throw DiagnosticsError(
        node: node,
        id: "localInType",
        "\(kind.macroName) cannot generate a request from a local function inside a type: the "
          + "request could not call it; make it a method of the type"
      )
    }
    self.parentName = parentName
    self.parentIsActorIsolated = parentIsActorIsolated
    let modifiers = function.modifiers.map(\.name.tokenKind)
    self.isStatic = modifiers.contains(.keyword(.static)) || modifiers.contains(.keyword(.class))
    if parentName != nil, !self.isStatic,
      let modifier = function.modifiers.first(where: {
        $0.name.tokenKind == .keyword(.mutating) || $0.name.tokenKind == .keyword(.consuming)
      })
    {
      throw DiagnosticsError(
        node: modifier,
        id: "mutating",
        "\(kind.macroName) calls the method on a copy of '\(parentName!)' that it cannot change: "
          + "remove '\(modifier.name.text)'",
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
    if parentName == nil, kind.memberNames.contains(name) {
      throw DiagnosticsError(
        node: function.name,
        id: "memberName",
        "\(kind.macroName) generates a request with a member named '\(name)', which would hide "
          + "this function: rename the function"
      )
    }

    // MARK: Effects and result
    let effects = function.signature.effectSpecifiers
    self.isAsync = effects?.asyncSpecifier != nil
    let throwsClause = effects?.throwsClause
    self.isThrowing = throwsClause != nil
    if let throwsClause, throwsClause.throwsSpecifier.tokenKind == .keyword(.rethrows) {
      throw DiagnosticsError(
        node: throwsClause,
        id: "rethrows",
        "\(kind.macroName) cannot generate a request from a 'rethrows' function: use 'throws'",
        fixIts: [
          .replace(
            "Replace 'rethrows' with 'throws'",
            throwsClause.throwsSpecifier,
            with: throwsClause.throwsSpecifier.with(\.tokenKind, .keyword(.throws))
          )
        ]
      )
    }
    if let type = throwsClause?.type {
      self.failureType = type.trimmed
    } else if throwsClause != nil {
      self.failureType = "any Error"
    } else {
      self.failureType = "Never"
    }
    if var returnType = function.signature.returnClause?.type.trimmed {
      if let attributed = returnType.as(AttributedTypeSyntax.self), attributed.attributes.isEmpty,
        attributed.specifiers.allSatisfy({
          $0.as(SimpleTypeSpecifierSyntax.self)?.specifier.tokenKind == .keyword(.sending)
        })
      {
        returnType = attributed.baseType.trimmed
      }
      if returnType.is(SomeOrAnyTypeSyntax.self),
        returnType.as(SomeOrAnyTypeSyntax.self)?.someOrAnySpecifier.tokenKind == .keyword(.some)
      {
        throw DiagnosticsError(
          node: function.signature.returnClause!.type,
          id: "opaqueResult",
          "\(kind.macroName) needs the function's result type by name: replace the opaque "
            + "'some' type with a concrete type"
        )
      }
      self.valueType = returnType
    } else {
      self.valueType = "Void"
    }

    // MARK: Parameters
    var parameters = [RequestParameter]()
    var reserved = [String: RequestParameter]()
    for (index, parameter) in function.signature.parameterClause.parameters.enumerated() {
      if let ellipsis = parameter.ellipsis {
        throw DiagnosticsError(
          node: ellipsis,
          id: "variadic",
          "\(kind.macroName) stores each argument, and cannot store a variadic one: take an "
            + "array instead",
          fixIts: [
            .replace(
              "Take an array",
              parameter,
              with: parameter.with(\.ellipsis, nil).with(
                \.type,
                TypeSyntax(ArrayTypeSyntax(element: parameter.type.trimmed))
              )
            )
          ]
        )
      }
      var type = parameter.type.trimmed
      if let attributed = parameter.type.as(AttributedTypeSyntax.self) {
        for specifier in attributed.specifiers {
          guard let simple = specifier.as(SimpleTypeSpecifierSyntax.self) else { continue }
          if simple.specifier.tokenKind == .keyword(.inout) {
            throw DiagnosticsError(
              node: simple,
              id: "inout",
              "\(kind.macroName) stores each argument, and cannot write an 'inout' one back: "
                + "take the value and return the result instead",
              fixIts: [
                .replace(
                  "Remove 'inout'",
                  parameter.type,
                  with: attributed.baseType.trimmed.with(
                    \.leadingTrivia,
                    parameter.type.leadingTrivia
                  ).with(\.trailingTrivia, parameter.type.trailingTrivia)
                )
              ]
            )
          }
        }
      }
      let label = parameter.firstName.tokenKind == .wildcard ? nil : parameter.firstName.text
      let internalName = (parameter.secondName ?? parameter.firstName).text
      let name = internalName == "_" ? "__argument\(index)" : internalName
      if let name = reservedName(of: parameter, kind) {
        let value = RequestParameter(
          label: label,
          name: name,
          storedType: type,
          accessorParameter: "",
          index: index
        )
        if reserved[name] != nil {
          throw DiagnosticsError(
            node: parameter,
            id: "duplicateReserved",
            "\(kind.macroName) passes the run's '\(name)' to one parameter only: remove this "
              + "one or rename it"
          )
        }
        if let opaque = type.as(SomeOrAnyTypeSyntax.self),
          opaque.someOrAnySpecifier.tokenKind == .keyword(.some)
        {
          throw DiagnosticsError(
            node: parameter.type,
            id: "opaqueReservedParameter",
            "\(kind.macroName) needs the type of '\(name)' by name, and an opaque 'some' type has "
              + "none: declare a generic parameter instead"
          )
        }
        reserved[name] = value
        continue
      }
      if let attributed = type.as(AttributedTypeSyntax.self) {
        // NB: `@escaping` and ownership specifiers belong to the parameter, not to the stored
        // property.
        type = attributed.baseType.trimmed
      }
      if let opaque = type.as(SomeOrAnyTypeSyntax.self),
        opaque.someOrAnySpecifier.tokenKind == .keyword(.some)
      {
        throw DiagnosticsError(
          node: parameter.type,
          id: "opaqueParameter",
          "\(kind.macroName) stores each argument, and cannot store an opaque 'some' one: "
            + "declare a generic parameter instead"
        )
      }
      if parentName == nil, name == function.name.text || kind.memberNames.contains(name) {
        throw DiagnosticsError(
          node: parameter,
          id: "parameterName",
          "\(kind.macroName) stores the argument '\(name)' in a property that would hide a "
            + "member of the request: rename the parameter"
        )
      }
      var accessorParameter = parameter.trimmed.with(\.trailingComma, nil)
      if internalName == "_" {
        accessorParameter.firstName = accessorParameter.firstName.with(\.trailingTrivia, .space)
        accessorParameter.secondName = .identifier(name)
      }
      parameters.append(
        RequestParameter(
          label: label,
          name: name,
          storedType: type,
          accessorParameter: accessorParameter.trimmedDescription,
          index: index
        )
      )
    }
    self.parameters = parameters
    self.reserved = reserved

    // MARK: Reserved parameters' types
    let functionName = kind.macroName
    func check(_ name: String, accepts: (TypeSyntax) -> Bool, expected: String) throws {
      guard
        let parameter = function.signature.parameterClause.parameters.first(where: {
          reservedName(of: $0, kind) == name
        }), !accepts(parameter.type.trimmed)
      else { return }
      throw DiagnosticsError(
        node: parameter.type,
        id: "reservedType",
        "\(functionName) passes the run's \(name) to the '\(name)' parameter, which must be "
          + "of type '\(expected)': change its type, or rename the parameter",
        fixIts: [
          .replace(
            "Change the type to '\(expected)'",
            parameter.type,
            with: TypeSyntax("\(raw: expected)").with(\.leadingTrivia, parameter.type.leadingTrivia)
              .with(\.trailingTrivia, parameter.type.trailingTrivia)
          )
        ]
      )
    }
    let normalized = { (type: TypeSyntax) in
      type.trimmedDescription.filter { !$0.isWhitespace }
    }
    try check(
      "isolation",
      accepts: {
        [
          "isolated(anyActor)?", "isolated(any_Concurrency.Actor)?",
          "isolatedOptional<anyActor>",
        ].contains(normalized($0))
      },
      expected: "isolated (any Actor)?"
    )
    try check(
      "context",
      accepts: { ["OperationContext", "OperationCore.OperationContext"].contains(normalized($0)) },
      expected: "OperationContext"
    )
    let continuationType = "OperationContinuation<\(self.valueType), \(failureType)>"
    try check(
      "continuation",
      accepts: {
        let text = normalized($0)
        return text.hasPrefix("OperationContinuation<")
          || text.hasPrefix("OperationCore.OperationContinuation<")
      },
      expected: continuationType
    )
    if kind != .operation {
      try check(
        "path",
        accepts: { ["OperationPath", "OperationCore.OperationPath"].contains(normalized($0)) },
        expected: "OperationPath"
      )
    }

    // MARK: Path
    if kind == .operation {
      self.path = nil
    } else {
      self.path = try Self.pathSynthesis(
        kind: kind,
        node: node,
        parameters: parameters
      )
    }
  }
}
