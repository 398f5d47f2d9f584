import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

extension RequestGenerator {
  /// How the request gets its path: from the `path:` argument of the attribute, checked against
  /// the function's stored parameters.
  static func pathSynthesis(
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
}
