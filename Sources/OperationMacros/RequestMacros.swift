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

enum PathSynthesis {
  case hashable
  case identifiable(ExprSyntax)
  case custom(ClosureExprSyntax)
}

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

    // NB: Only the innermost scope matters: a local function has no parent.
    var parentName: String?
    var parentIsActorIsolated = false
    if let scope = context.lexicalContext.first {
      if let type = scope.asProtocol((any DeclGroupSyntax).self) {
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
      } else {
        throw DiagnosticsError(
          node: node,
          id: "local",
          "\(kind.macroName) cannot generate a request from a local function: move the function "
            + "to the top level or into a type"
        )
      }
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

  private static func pathSynthesis(
    kind: RequestKind,
    node: AttributeSyntax,
    parameters: [RequestParameter]
  ) throws -> PathSynthesis {
    guard case .argumentList(let arguments) = node.arguments,
      let argument = arguments.first(where: { $0.label?.text == "path" })
    else { return .hashable }
    let expression = argument.expression
    let expected =
      "path: expects '.inferredFromHashable', '.inferredFromIdentifiable' or "
      + "'.custom { (argument: Type) in [...] }'"
    if let member = expression.as(MemberAccessExprSyntax.self) {
      switch member.declName.baseName.text {
      case "inferredFromHashable":
        return .hashable
      case "inferredFromIdentifiable":
        guard parameters.contains(where: { $0.name == "id" }) else {
          throw DiagnosticsError(
            node: expression,
            id: "missingID",
            "path: .inferredFromIdentifiable makes the request's path its 'id': add an 'id' "
              + "parameter to the function, or use another path",
            fixIts: [
              .replace(
                "Use '.inferredFromHashable'",
                expression,
                with: ExprSyntax(".inferredFromHashable").with(
                  \.trailingTrivia,
                  expression.trailingTrivia
                )
              )
            ]
          )
        }
        return .identifiable(expression)
      default:
        throw DiagnosticsError(node: expression, id: "unknownPath", expected)
      }
    }
    guard let call = expression.as(FunctionCallExprSyntax.self),
      call.calledExpression.as(MemberAccessExprSyntax.self)?.declName.baseName.text == "custom",
      let closure = call.trailingClosure
        ?? call.arguments.first(where: { $0.label?.text == "construct" })?.expression.as(
          ClosureExprSyntax.self
        )
    else {
      throw DiagnosticsError(node: expression, id: "unknownPath", expected)
    }
    let expectedParameters = parameters.map { "\($0.name): \($0.storedType.trimmedDescription)" }
    let expectedClause = "(\(expectedParameters.joined(separator: ", ")))"
    var actualParameters = [String]()
    var isWellFormed = true
    switch closure.signature?.parameterClause {
    case .parameterClause(let clause):
      for parameter in clause.parameters {
        guard let type = parameter.type, parameter.secondName == nil else {
          isWellFormed = false
          break
        }
        actualParameters.append("\(parameter.firstName.text): \(type.trimmedDescription)")
      }
    case .simpleInput(let names):
      isWellFormed = names.isEmpty
    case nil:
      break
    }
    let normalize = { (list: [String]) in list.map { $0.filter { !$0.isWhitespace } } }
    guard isWellFormed, normalize(actualParameters) == normalize(expectedParameters) else {
      let message =
        "path: .custom's closure receives the function's arguments: its parameters must be "
        + (expectedParameters.isEmpty ? "empty" : "'\(expectedClause)'")
      if let signature = closure.signature {
        let fixed: ClosureSignatureSyntax =
          if expectedParameters.isEmpty {
            signature.with(\.parameterClause, nil).with(\.inKeyword, .keyword(.in))
          } else {
            signature.with(
              \.parameterClause,
              .parameterClause(
                ClosureParameterClauseSyntax(
                  parameters: ClosureParameterListSyntax(
                    parameters.enumerated().map { index, parameter in
                      ClosureParameterSyntax(
                        firstName: .identifier(parameter.name),
                        colon: .colonToken(trailingTrivia: .space),
                        type: parameter.storedType,
                        trailingComma: index < parameters.count - 1
                          ? .commaToken(trailingTrivia: .space) : nil
                      )
                    }
                  )
                )
              ).with(\.trailingTrivia, .space)
            )
          }
        throw DiagnosticsError(
          node: signature,
          id: "customPath",
          message,
          fixIts: expectedParameters.isEmpty
            ? [] : [.replace("Use '\(expectedClause)'", signature, with: fixed)]
        )
      }
      throw DiagnosticsError(
        node: closure,
        id: "customPath",
        message + ", as in '{ \(expectedClause) in [...] }'"
      )
    }
    return .custom(closure)
  }

  // MARK: - Generation

  func declarations() throws -> [DeclSyntax] {
    let name = self.function.name.text
    let structName = self.context.makeUniqueName(name).text
    let genericClause = self.function.genericParameterClause?.trimmedDescription ?? ""
    let whereClause = self.function.genericWhereClause.map { " \($0.trimmedDescription)" } ?? ""
    let genericArguments =
      self.function.genericParameterClause.map { clause in
        "<" + clause.parameters.map(\.name.text).joined(separator: ", ") + ">"
      } ?? ""
    let structType = structName + genericArguments

    // Access levels.
    let access = self.function.modifiers.first { modifier in
      [.public, .package, .open, .internal, .fileprivate, .private].contains(
        modifier.name.tokenKind.keywordValue
      ) && modifier.detail == nil
    }?.name.text
    let declarationAccess = (access == "open" ? "public" : access).map { "\($0) " } ?? ""
    let memberAccess =
      (access == "public" || access == "open" || access == "package")
      ? "\(access == "package" ? "package" : "public") " : ""
    let availability = self.function.attributes.compactMap { element -> String? in
      guard case .attribute(let attribute) = element,
        attribute.attributeName.trimmedDescription == "available"
      else { return nil }
      return attribute.trimmedDescription + "\n"
    }.joined()

    // Stored properties and the accessor's arguments.
    let checksHashable: Bool
    if case .hashable = self.path { checksHashable = true } else { checksHashable = false }
    func checked(_ value: String, _ parameterName: String) -> String {
      switch self.path {
      case .hashable:
        return "_operationRequireHashable(_operationRequireSendable(\(value)))"
      case .identifiable where parameterName == "id":
        return "_operationRequireHashable(_operationRequireSendable(\(value)))"
      default:
        return value
      }
    }
    var storedProperties = self.parameters.map { "let \($0.name): \($0.storedType)" }
    var initArguments = self.parameters.map { "\($0.name): \(checked($0.name, $0.name))" }
    let callee: String
    if let parentName = self.parentName {
      if self.isStatic {
        storedProperties.append("let __parentType: _OperationHashableMetatype<\(parentName)>")
        initArguments.append("__parentType: _OperationHashableMetatype(type: self)")
        callee = "self.__parentType.type.\(self.function.name.text)"
      } else {
        storedProperties.append("let __parent: \(parentName)")
        initArguments.append("__parent: \(checksHashable ? checked("self", "") : "self")")
        callee = "self.__parent.\(self.function.name.text)"
      }
    } else {
      callee = self.function.name.text
    }
    _ = checksHashable

    // The call of the function.
    var callArguments = [String]()
    for index in 0..<self.function.signature.parameterClause.parameters.count {
      if let reserved = self.reserved.values.first(where: { $0.index == index }) {
        let value =
          switch reserved.name {
          case "path": "self.path"
          default: reserved.name
          }
        callArguments.append(reserved.argument(value))
      } else if let stored = self.parameters.first(where: { $0.index == index }) {
        callArguments.append(stored.argument("self.\(stored.name)"))
      }
    }
    let needsAwait =
      self.isAsync
      || (self.parentName != nil && !self.isStatic && self.parentIsActorIsolated
        && !self.function.modifiers.contains { $0.name.tokenKind == .keyword(.nonisolated) })
      || self.function.attributes.contains(where: isGlobalActor)
    let call =
      (self.isThrowing ? "try " : "") + (needsAwait ? "await " : "")
      + "\(callee)(\(callArguments.joined(separator: ", ")))"

    // The requirement.
    let value = self.valueType.trimmedDescription
    let failure = self.failureType.trimmedDescription
    let continuation = "OperationCore.OperationContinuation<\(value), \(failure)>"
    let conformance: String
    let requirement: String
    switch self.kind {
    case .operation:
      conformance = "OperationCore.OperationRequest"
      requirement = """
        \(memberAccess)func run(
          isolation: isolated (any Actor)?,
          in context: OperationCore.OperationContext,
          with continuation: \(continuation)
        ) async throws(\(failure)) -> \(value) {
          \(call)
        }
        """
    case .query:
      conformance = "OperationCore.QueryRequest"
      requirement = """
        \(memberAccess)func fetch(
          isolation: isolated (any Actor)?,
          in context: OperationCore.OperationContext,
          with continuation: \(continuation)
        ) async throws(\(failure)) -> \(value) {
          \(call)
        }
        """
    case .mutation:
      conformance = "OperationCore.MutationRequest"
      let arguments = self.reserved["arguments"]?.storedType.trimmedDescription ?? "Void"
      requirement = """
        \(memberAccess)func mutate(
          isolation: isolated (any Actor)?,
          with arguments: \(arguments),
          in context: OperationCore.OperationContext,
          with continuation: \(continuation)
        ) async throws(\(failure)) -> \(value) {
          \(call)
        }
        """
    }
    var conformances = [conformance]
    var pathMembers = ""
    switch self.path {
    case .hashable: conformances += ["Hashable", "Sendable"]
    case .identifiable: conformances += ["Identifiable"]
    case .custom(let closure):
      let parameters = self.parameters.map { "\($0.name): \($0.storedType.trimmedDescription)" }
      let arguments = self.parameters.map { "\($0.name): self.\($0.name)" }
      let body = closure.statements.trimmedDescription
      pathMembers = """
        \(memberAccess)var path: OperationCore.OperationPath {
          self.makePath(\(arguments.joined(separator: ", ")))
        }
        private func makePath(\(parameters.joined(separator: ", "))) -> OperationCore.OperationPath {
          \(body)
        }

        """
    case nil: break
    }
    let debugName = ([self.parentName].compactMap { $0 } + [name]).joined(separator: ".")
    let requestDecl: DeclSyntax = """
      \(raw: availability)\(raw: declarationAccess)nonisolated struct \(raw: structName)\(raw: genericClause): \(raw: conformances.joined(separator: ", "))\(raw: whereClause) {
      \(raw: storedProperties.map { "\($0)\n" }.joined())\(raw: memberAccess)var _debugTypeName: String {
        "\(raw: debugName)"
      }
      \(raw: pathMembers)\(raw: requirement)
      }
      """

    // The accessor.
    let staticKeyword = self.isStatic ? "static " : ""
    let construction = "\(structType)(\(initArguments.joined(separator: ", ")))"
    let accessorDecl: DeclSyntax
    if self.parameters.isEmpty && self.function.genericParameterClause == nil {
      accessorDecl = """
        \(raw: availability)\(raw: declarationAccess)nonisolated \(raw: staticKeyword)var $\(raw: name): \(raw: structType) {
          \(raw: construction)
        }
        """
    } else {
      let accessorParameters = self.parameters.map(\.accessorParameter).joined(separator: ", ")
      accessorDecl = """
        \(raw: availability)\(raw: declarationAccess)nonisolated \(raw: staticKeyword)func $\(raw: name)\(raw: genericClause)(\(raw: accessorParameters)) -> \(raw: structType)\(raw: whereClause) {
          \(raw: construction)
        }
        """
    }
    return [accessorDecl, requestDecl]
  }
}

extension TokenKind {
  fileprivate var keywordValue: Keyword? {
    if case .keyword(let keyword) = self { keyword } else { nil }
  }
}

/// Whether an attribute is a global actor, such as `@MainActor`.
private func isGlobalActor(_ element: AttributeListSyntax.Element) -> Bool {
  guard case .attribute(let attribute) = element else { return false }
  return attribute.attributeName.trimmedDescription.hasSuffix("Actor")
}

/// The reserved name a parameter takes the run's value for: its name, or else its label.
private func reservedName(of parameter: FunctionParameterSyntax, _ kind: RequestKind) -> String? {
  let internalName = (parameter.secondName ?? parameter.firstName).text
  if kind.reservedNames.contains(internalName) { return internalName }
  if kind.reservedNames.contains(parameter.firstName.text) { return parameter.firstName.text }
  return nil
}
