import MacroTesting
import OperationMacros
import Testing

@Suite(.macros(["MutationRequest": MutationRequestMacro.self]))
struct MutationRequestMacroTests {
  @Test func noArgumentsIsVoid() {
    assertMacro {
      """
      @MutationRequest
      func refresh() async throws {}
      """
    } expansion: {
      """
      func refresh() async throws {}

      nonisolated var $refresh: __macro_local_7refreshfMu_ {
        __macro_local_7refreshfMu_()
      }

      nonisolated struct __macro_local_7refreshfMu_: OperationCore.MutationRequest, Hashable, Sendable {
          var _debugTypeName: String {
            "refresh"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Void,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Void, any Error>
          ) async throws(any Error) -> Void {
            try await refresh()
          }
      }
      """
    }
  }

  @Test func argumentsParameter() {
    assertMacro {
      """
      @MutationRequest
      func like(arguments postID: Int) async throws -> Bool { true }
      """
    } expansion: {
      """
      func like(arguments postID: Int) async throws -> Bool { true }

      nonisolated var $like: __macro_local_4likefMu_ {
        __macro_local_4likefMu_()
      }

      nonisolated struct __macro_local_4likefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          var _debugTypeName: String {
            "like"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Int,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Bool, any Error>
          ) async throws(any Error) -> Bool {
            try await like(arguments: arguments)
          }
      }
      """
    }
  }

  @Test func argumentsWithStoredParameters() {
    assertMacro {
      """
      @MutationRequest
      func rename(userID: Int, with arguments: Rename, context: OperationContext) async throws -> User { User() }
      """
    } expansion: {
      """
      func rename(userID: Int, with arguments: Rename, context: OperationContext) async throws -> User { User() }

      nonisolated func $rename(userID: Int) -> __macro_local_6renamefMu_ {
        __macro_local_6renamefMu_(userID: _operationRequireHashable(_operationRequireSendable(userID)))
      }

      nonisolated struct __macro_local_6renamefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          let userID: Int
          var _debugTypeName: String {
            "rename"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Rename,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<User, any Error>
          ) async throws(any Error) -> User {
            try await rename(userID: self.userID, with: arguments, context: context)
          }
      }
      """
    }
  }

  @Test func argumentsTypeNamedArguments() {
    assertMacro {
      """
      struct Arguments: Sendable {}
      @MutationRequest
      func send(arguments: Arguments) async {}
      """
    } expansion: {
      """
      struct Arguments: Sendable {}
      func send(arguments: Arguments) async {}

      nonisolated var $send: __macro_local_4sendfMu_ {
        __macro_local_4sendfMu_()
      }

      nonisolated struct __macro_local_4sendfMu_: OperationCore.MutationRequest, Hashable, Sendable {
          var _debugTypeName: String {
            "send"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Arguments,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Void, Never>
          ) async throws(Never) -> Void {
            await send(arguments: arguments)
          }
      }
      """
    }
  }

  @Test func duplicateArgumentsIsAnError() {
    assertMacro {
      """
      @MutationRequest
      func send(arguments: Int, _ arguments: String) async {}
      """
    } diagnostics: {
      """
      @MutationRequest
      func send(arguments: Int, _ arguments: String) async {}
                                ┬──────────────────
                                ╰─ 🛑 @MutationRequest passes the run's 'arguments' to one parameter only: remove this one or rename it
      """
    }
  }

  @Test func identifiablePath() {
    assertMacro {
      """
      @MutationRequest(path: .inferredFromIdentifiable)
      func update(id: Int, arguments: String) async throws -> String { arguments }
      """
    } expansion: {
      """
      func update(id: Int, arguments: String) async throws -> String { arguments }

      nonisolated func $update(id: Int) -> __macro_local_6updatefMu_ {
        __macro_local_6updatefMu_(id: _operationRequireHashable(_operationRequireSendable(id)))
      }

      nonisolated struct __macro_local_6updatefMu_: OperationCore.MutationRequest, Identifiable {
          let id: Int
          var _debugTypeName: String {
            "update"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: String,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<String, any Error>
          ) async throws(any Error) -> String {
            try await update(id: self.id, arguments: arguments)
          }
      }
      """
    }
  }

  @Test func customPath() {
    assertMacro {
      """
      @MutationRequest(path: .custom { (id: Int) in ["update", id] })
      func update(id: Int, arguments: String, path: OperationPath) async throws -> String { arguments }
      """
    } expansion: {
      """
      func update(id: Int, arguments: String, path: OperationPath) async throws -> String { arguments }

      nonisolated func $update(id: Int) -> __macro_local_6updatefMu_ {
        __macro_local_6updatefMu_(id: id)
      }

      nonisolated struct __macro_local_6updatefMu_: OperationCore.MutationRequest {
          let id: Int
          var _debugTypeName: String {
            "update"
          }
          var path: OperationCore.OperationPath {
            self.makePath(id: self.id)
          }
          private func makePath(id: Int) -> OperationCore.OperationPath {
            ["update", id]
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: String,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<String, any Error>
          ) async throws(any Error) -> String {
            try await update(id: self.id, arguments: arguments, path: self.path)
          }
      }
      """
    }
  }

  @Test func staticMethod() {
    assertMacro {
      """
      extension API {
        @MutationRequest
        static func like(arguments: Int) async throws(LikeError) -> Bool { true }
      }
      """
    } expansion: {
      """
      extension API {
        static func like(arguments: Int) async throws(LikeError) -> Bool { true }

        nonisolated static var $like: __macro_local_4likefMu_ {
          __macro_local_4likefMu_(__parentType: _OperationHashableMetatype(type: self))
        }

        nonisolated struct __macro_local_4likefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          let __parentType: _OperationHashableMetatype<API>
          var _debugTypeName: String {
            "API.like"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Int,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Bool, LikeError>
          ) async throws(LikeError) -> Bool {
            try await self.__parentType.type.like(arguments: arguments)
          }
        }
      }
      """
    }
  }

  @Test func badPathArgumentIsAnError() {
    assertMacro {
      """
      @MutationRequest
      func like(arguments: Int, path: [String]) async throws -> Bool { true }
      """
    } diagnostics: {
      """
      @MutationRequest
      func like(arguments: Int, path: [String]) async throws -> Bool { true }
                                      ┬───────
                                      ╰─ 🛑 @MutationRequest passes the run's path to the 'path' parameter, which must be of type 'OperationPath': change its type, or rename the parameter
                                         ✏️ Change the type to 'OperationPath'
      """
    } fixes: {
      """
      @MutationRequest
      func like(arguments: Int, path: OperationPath) async throws -> Bool { true }
      """
    } expansion: {
      """
      func like(arguments: Int, path: OperationPath) async throws -> Bool { true }

      nonisolated var $like: __macro_local_4likefMu_ {
        __macro_local_4likefMu_()
      }

      nonisolated struct __macro_local_4likefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          var _debugTypeName: String {
            "like"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Int,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Bool, any Error>
          ) async throws(any Error) -> Bool {
            try await like(arguments: arguments, path: self.path)
          }
      }
      """
    }
  }

  @Test func inoutArgumentsIsAnError() {
    assertMacro {
      """
      @MutationRequest
      func like(arguments: inout Int) async throws -> Bool { true }
      """
    } diagnostics: {
      """
      @MutationRequest
      func like(arguments: inout Int) async throws -> Bool { true }
                           ┬────
                           ╰─ 🛑 @MutationRequest stores each argument, and cannot write an 'inout' one back: take the value and return the result instead
                              ✏️ Remove 'inout'
      """
    } fixes: {
      """
      @MutationRequest
      func like(arguments: Int) async throws -> Bool { true }
      """
    } expansion: {
      """
      func like(arguments: Int) async throws -> Bool { true }

      nonisolated var $like: __macro_local_4likefMu_ {
        __macro_local_4likefMu_()
      }

      nonisolated struct __macro_local_4likefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          var _debugTypeName: String {
            "like"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Int,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Bool, any Error>
          ) async throws(any Error) -> Bool {
            try await like(arguments: arguments)
          }
      }
      """
    }
  }

  @Test func mutateNameIsAnError() {
    assertMacro {
      """
      @MutationRequest
      func mutate(arguments: Int) async throws -> Bool { true }
      """
    } diagnostics: {
      """
      @MutationRequest
      func mutate(arguments: Int) async throws -> Bool { true }
           ┬─────
           ╰─ 🛑 @MutationRequest generates a request with a member named 'mutate', which would hide this function: rename the function
      """
    }
  }
}
