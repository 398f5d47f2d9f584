import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

extension RequestGenerator {
  /// The declarations the macro adds next to the function: the `$` accessor, then the request
  /// type.
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
