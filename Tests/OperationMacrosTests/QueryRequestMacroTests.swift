import MacroTesting
import OperationMacros
import Testing

@Suite(.macros(["QueryRequest": QueryRequestMacro.self]))
struct QueryRequestMacroTests {
  @Test func hashablePathByDefault() {
    assertMacro {
      """
      @QueryRequest
      func post(id: Int, title: String) async throws -> Post { Post() }
      """
    } expansion: {
      """
      func post(id: Int, title: String) async throws -> Post { Post() }

      nonisolated func $post(id: Int, title: String) -> __macro_local_4postfMu_ {
        __macro_local_4postfMu_(id: _operationRequireHashable(_operationRequireSendable(id)), title: _operationRequireHashable(_operationRequireSendable(title)))
      }

      nonisolated struct __macro_local_4postfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          let id: Int
          let title: String
          var _debugTypeName: String {
            "post"
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Post, any Error>
          ) async throws(any Error) -> Post {
            try await post(id: self.id, title: self.title)
          }
      }
      """
    }
  }

  @Test func explicitHashablePath() {
    assertMacro {
      """
      @QueryRequest(path: .inferredFromHashable)
      func number() -> Int { 1 }
      """
    } expansion: {
      """
      func number() -> Int { 1 }

      nonisolated var $number: __macro_local_6numberfMu_ {
        __macro_local_6numberfMu_()
      }

      nonisolated struct __macro_local_6numberfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          var _debugTypeName: String {
            "number"
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Int, Never>
          ) async throws(Never) -> Int {
            number()
          }
      }
      """
    }
  }

  @Test func instanceMethodIsCheckedForHashable() {
    assertMacro {
      """
      struct API {
        @QueryRequest
        func post(id: Int) async throws -> Post { Post() }
      }
      """
    } expansion: {
      """
      struct API {
        func post(id: Int) async throws -> Post { Post() }

        nonisolated func $post(id: Int) -> __macro_local_4postfMu_ {
          __macro_local_4postfMu_(id: _operationRequireHashable(_operationRequireSendable(id)), __parent: _operationRequireHashable(_operationRequireSendable(self)))
        }

        nonisolated struct __macro_local_4postfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          let id: Int
          let __parent: API
          var _debugTypeName: String {
            "API.post"
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Post, any Error>
          ) async throws(any Error) -> Post {
            try await self.__parent.post(id: self.id)
          }
        }
      }
      """
    }
  }

  @Test func staticMethod() {
    assertMacro {
      """
      enum API {
        @QueryRequest
        static func post(id: Int) async throws -> Post { Post() }
      }
      """
    } expansion: {
      """
      enum API {
        static func post(id: Int) async throws -> Post { Post() }

        nonisolated static func $post(id: Int) -> __macro_local_4postfMu_ {
          __macro_local_4postfMu_(id: _operationRequireHashable(_operationRequireSendable(id)), __parentType: _OperationHashableMetatype(type: self))
        }

        nonisolated struct __macro_local_4postfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          let id: Int
          let __parentType: _OperationHashableMetatype<API>
          var _debugTypeName: String {
            "API.post"
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Post, any Error>
          ) async throws(any Error) -> Post {
            try await self.__parentType.type.post(id: self.id)
          }
        }
      }
      """
    }
  }

  @Test func identifiablePath() {
    assertMacro {
      """
      @QueryRequest(path: .inferredFromIdentifiable)
      func post(id: Int, title: String) async throws -> Post { Post() }
      """
    } expansion: {
      """
      func post(id: Int, title: String) async throws -> Post { Post() }

      nonisolated func $post(id: Int, title: String) -> __macro_local_4postfMu_ {
        __macro_local_4postfMu_(id: _operationRequireHashable(_operationRequireSendable(id)), title: title)
      }

      nonisolated struct __macro_local_4postfMu_: OperationCore.QueryRequest, Identifiable {
          let id: Int
          let title: String
          var _debugTypeName: String {
            "post"
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Post, any Error>
          ) async throws(any Error) -> Post {
            try await post(id: self.id, title: self.title)
          }
      }
      """
    }
  }

  @Test func identifiablePathWithoutIDIsAnError() {
    assertMacro {
      """
      @QueryRequest(path: .inferredFromIdentifiable)
      func post(title: String) async throws -> Post { Post() }
      """
    } diagnostics: {
      """
      @QueryRequest(path: .inferredFromIdentifiable)
                          ┬────────────────────────
                          ╰─ 🛑 path: .inferredFromIdentifiable makes the request's path its 'id': add an 'id' parameter to the function, or use another path
                             ✏️ Use '.inferredFromHashable'
      func post(title: String) async throws -> Post { Post() }
      """
    } fixes: {
      """
      @QueryRequest(path: .inferredFromHashable)
      func post(title: String) async throws -> Post { Post() }
      """
    } expansion: {
      """
      func post(title: String) async throws -> Post { Post() }

      nonisolated func $post(title: String) -> __macro_local_4postfMu_ {
        __macro_local_4postfMu_(title: _operationRequireHashable(_operationRequireSendable(title)))
      }

      nonisolated struct __macro_local_4postfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          let title: String
          var _debugTypeName: String {
            "post"
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Post, any Error>
          ) async throws(any Error) -> Post {
            try await post(title: self.title)
          }
      }
      """
    }
  }

  @Test func customPath() {
    assertMacro {
      """
      @QueryRequest(path: .custom { (id: Int, title: String) in ["post", id, title] })
      func post(id: Int, title: String, context: OperationContext) async throws -> Post { Post() }
      """
    } expansion: {
      """
      func post(id: Int, title: String, context: OperationContext) async throws -> Post { Post() }

      nonisolated func $post(id: Int, title: String) -> __macro_local_4postfMu_ {
        __macro_local_4postfMu_(id: id, title: title)
      }

      nonisolated struct __macro_local_4postfMu_: OperationCore.QueryRequest {
          let id: Int
          let title: String
          var _debugTypeName: String {
            "post"
          }
          var path: OperationCore.OperationPath {
            self.makePath(id: self.id, title: self.title)
          }
          private func makePath(id: Int, title: String) -> OperationCore.OperationPath {
            ["post", id, title]
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Post, any Error>
          ) async throws(any Error) -> Post {
            try await post(id: self.id, title: self.title, context: context)
          }
      }
      """
    }
  }

  @Test func customPathWithoutArguments() {
    assertMacro {
      """
      @QueryRequest(path: .custom { ["posts"] })
      func posts() async throws -> [Post] { [] }
      """
    } expansion: {
      """
      func posts() async throws -> [Post] { [] }

      nonisolated var $posts: __macro_local_5postsfMu_ {
        __macro_local_5postsfMu_()
      }

      nonisolated struct __macro_local_5postsfMu_: OperationCore.QueryRequest {
          var _debugTypeName: String {
            "posts"
          }
          var path: OperationCore.OperationPath {
            self.makePath()
          }
          private func makePath() -> OperationCore.OperationPath {
            ["posts"]
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<[Post], any Error>
          ) async throws(any Error) -> [Post] {
            try await posts()
          }
      }
      """
    }
  }

  @Test func customPathWithWrongParametersIsAnError() {
    assertMacro {
      """
      @QueryRequest(path: .custom { (id: String) in ["post", id] })
      func post(id: Int, title: String) async throws -> Post { Post() }
      """
    } diagnostics: {
      """
      @QueryRequest(path: .custom { (id: String) in ["post", id] })
                                    ┬──────────────
                                    ╰─ 🛑 path: .custom's closure receives the function's arguments: its parameters must be '(id: Int, title: String)'
                                       ✏️ Use '(id: Int, title: String)'
      func post(id: Int, title: String) async throws -> Post { Post() }
      """
    } fixes: {
      """
      @QueryRequest(path: .custom { (id: Int, title: String) in ["post", id] })
      func post(id: Int, title: String) async throws -> Post { Post() }
      """
    } expansion: {
      """
      func post(id: Int, title: String) async throws -> Post { Post() }

      nonisolated func $post(id: Int, title: String) -> __macro_local_4postfMu_ {
        __macro_local_4postfMu_(id: id, title: title)
      }

      nonisolated struct __macro_local_4postfMu_: OperationCore.QueryRequest {
          let id: Int
          let title: String
          var _debugTypeName: String {
            "post"
          }
          var path: OperationCore.OperationPath {
            self.makePath(id: self.id, title: self.title)
          }
          private func makePath(id: Int, title: String) -> OperationCore.OperationPath {
            ["post", id]
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Post, any Error>
          ) async throws(any Error) -> Post {
            try await post(id: self.id, title: self.title)
          }
      }
      """
    }
  }

  @Test func customPathWithUntypedParametersIsAnError() {
    assertMacro {
      """
      @QueryRequest(path: .custom { id in ["post", id] })
      func post(id: Int) async throws -> Post { Post() }
      """
    } diagnostics: {
      """
      @QueryRequest(path: .custom { id in ["post", id] })
                                    ┬────
                                    ╰─ 🛑 path: .custom's closure receives the function's arguments: its parameters must be '(id: Int)'
                                       ✏️ Use '(id: Int)'
      func post(id: Int) async throws -> Post { Post() }
      """
    } fixes: {
      """
      @QueryRequest(path: .custom { (id: Int) in ["post", id] })
      func post(id: Int) async throws -> Post { Post() }
      """
    } expansion: {
      """
      func post(id: Int) async throws -> Post { Post() }

      nonisolated func $post(id: Int) -> __macro_local_4postfMu_ {
        __macro_local_4postfMu_(id: id)
      }

      nonisolated struct __macro_local_4postfMu_: OperationCore.QueryRequest {
          let id: Int
          var _debugTypeName: String {
            "post"
          }
          var path: OperationCore.OperationPath {
            self.makePath(id: self.id)
          }
          private func makePath(id: Int) -> OperationCore.OperationPath {
            ["post", id]
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Post, any Error>
          ) async throws(any Error) -> Post {
            try await post(id: self.id)
          }
      }
      """
    }
  }

  @Test func unknownPathIsAnError() {
    assertMacro {
      """
      @QueryRequest(path: makePath())
      func post(id: Int) async throws -> Post { Post() }
      """
    } diagnostics: {
      """
      @QueryRequest(path: makePath())
                          ┬─────────
                          ╰─ 🛑 path: expects '.inferredFromHashable', '.inferredFromIdentifiable' or '.custom { (argument: Type) in [...] }'
      func post(id: Int) async throws -> Post { Post() }
      """
    }
  }

  @Test func pathArgument() {
    assertMacro {
      """
      @QueryRequest
      func post(id: Int, path: OperationPath) async throws -> Post { Post() }
      """
    } expansion: {
      """
      func post(id: Int, path: OperationPath) async throws -> Post { Post() }

      nonisolated func $post(id: Int) -> __macro_local_4postfMu_ {
        __macro_local_4postfMu_(id: _operationRequireHashable(_operationRequireSendable(id)))
      }

      nonisolated struct __macro_local_4postfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          let id: Int
          var _debugTypeName: String {
            "post"
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Post, any Error>
          ) async throws(any Error) -> Post {
            try await post(id: self.id, path: self.path)
          }
      }
      """
    }
  }

  @Test func badPathArgumentIsAnError() {
    assertMacro {
      """
      @QueryRequest
      func post(id: Int, path: String) async throws -> Post { Post() }
      """
    } diagnostics: {
      """
      @QueryRequest
      func post(id: Int, path: String) async throws -> Post { Post() }
                               ┬─────
                               ╰─ 🛑 @QueryRequest passes the run's path to the 'path' parameter, which must be of type 'OperationPath': change its type, or rename the parameter
                                  ✏️ Change the type to 'OperationPath'
      """
    } fixes: {
      """
      @QueryRequest
      func post(id: Int, path: OperationPath) async throws -> Post { Post() }
      """
    } expansion: {
      """
      func post(id: Int, path: OperationPath) async throws -> Post { Post() }

      nonisolated func $post(id: Int) -> __macro_local_4postfMu_ {
        __macro_local_4postfMu_(id: _operationRequireHashable(_operationRequireSendable(id)))
      }

      nonisolated struct __macro_local_4postfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          let id: Int
          var _debugTypeName: String {
            "post"
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Post, any Error>
          ) async throws(any Error) -> Post {
            try await post(id: self.id, path: self.path)
          }
      }
      """
    }
  }

  @Test func accessLevels() {
    assertMacro {
      """
      public struct API: Hashable {
        @QueryRequest
        public func post(id: Int) async throws -> Post { Post() }
        @QueryRequest
        private func draft(id: Int) async throws -> Post { Post() }
      }
      """
    } expansion: {
      """
      public struct API: Hashable {
        public func post(id: Int) async throws -> Post { Post() }

        public nonisolated func $post(id: Int) -> __macro_local_4postfMu_ {
          __macro_local_4postfMu_(id: _operationRequireHashable(_operationRequireSendable(id)), __parent: _operationRequireHashable(_operationRequireSendable(self)))
        }

        public nonisolated struct __macro_local_4postfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          let id: Int
          let __parent: API
          public var _debugTypeName: String {
            "API.post"
          }
          public func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Post, any Error>
          ) async throws(any Error) -> Post {
            try await self.__parent.post(id: self.id)
          }
        }
        private func draft(id: Int) async throws -> Post { Post() }

        private nonisolated func $draft(id: Int) -> __macro_local_5draftfMu_ {
          __macro_local_5draftfMu_(id: _operationRequireHashable(_operationRequireSendable(id)), __parent: _operationRequireHashable(_operationRequireSendable(self)))
        }

        private nonisolated struct __macro_local_5draftfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          let id: Int
          let __parent: API
          var _debugTypeName: String {
            "API.draft"
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Post, any Error>
          ) async throws(any Error) -> Post {
            try await self.__parent.draft(id: self.id)
          }
        }
      }
      """
    }
  }

  @Test func variadicIsAnError() {
    assertMacro {
      """
      @QueryRequest
      func posts(ids: Int...) async throws -> [Post] { [] }
      """
    } diagnostics: {
      """
      @QueryRequest
      func posts(ids: Int...) async throws -> [Post] { [] }
                         ┬──
                         ╰─ 🛑 @QueryRequest stores each argument, and cannot store a variadic one: take an array instead
                            ✏️ Take an array
      """
    } fixes: {
      """
      @QueryRequest
      func posts(ids: [Int]) async throws -> [Post] { [] }
      """
    } expansion: {
      """
      func posts(ids: [Int]) async throws -> [Post] { [] }

      nonisolated func $posts(ids: [Int]) -> __macro_local_5postsfMu_ {
        __macro_local_5postsfMu_(ids: _operationRequireHashable(_operationRequireSendable(ids)))
      }

      nonisolated struct __macro_local_5postsfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          let ids: [Int]
          var _debugTypeName: String {
            "posts"
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<[Post], any Error>
          ) async throws(any Error) -> [Post] {
            try await posts(ids: self.ids)
          }
      }
      """
    }
  }

  @Test func fetchNameIsAnError() {
    assertMacro {
      """
      @QueryRequest
      func fetch() async throws -> Int { 1 }
      """
    } diagnostics: {
      """
      @QueryRequest
      func fetch() async throws -> Int { 1 }
           ┬────
           ╰─ 🛑 @QueryRequest generates a request with a member named 'fetch', which would hide this function: rename the function
      """
    }
  }
}
