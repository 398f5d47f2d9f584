import MacroTesting
import OperationMacros
import Testing

@Suite(.macros(["QueryRequest": QueryRequestMacro.self]))
struct QueryRequestMacroTests {
  @Test func `The Path Is The Hashable Request By Default`() {
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

  @Test func `An Explicit Hashable Path Is The Default`() {
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

  @Test func `A Method's Value Is Checked For Hashable`() {
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

  @Test func `A Static Method Stores Its Type`() {
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

  @Test func `An Identifiable Path Is The ID Argument`() {
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

  @Test func `An Identifiable Path Without An ID Is An Error With A Fix-It`() {
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

  @Test func `A Custom Path Is Built From The Stored Arguments`() {
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

  @Test func `A Custom Path Without Arguments Takes No Parameters`() {
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

  @Test func `A Custom Path With Other Parameters Is An Error With A Fix-It`() {
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

  @Test func `A Custom Path With Untyped Parameters Is An Error With A Fix-It`() {
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

  @Test func `A Path Other Than The Three Synthesizers Is An Error`() {
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

  @Test func `A Path Parameter Receives The Query's Path`() {
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

  @Test func `A Path Parameter Of Another Type Is An Error With A Fix-It`() {
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

  @Test func `The Request Takes The Function's Access Level`() {
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

  @Test func `A Variadic Parameter Is An Error With A Fix-It`() {
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

  @Test func `A Function Named Fetch Is An Error`() {
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

  @Test func `A Function Without Arguments Gets A Property Accessor`() {
    assertMacro {
      """
      @QueryRequest
      func number() async throws -> Int { 1 }
      """
    } expansion: {
      """
      func number() async throws -> Int { 1 }

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
            with continuation: OperationCore.OperationContinuation<Int, any Error>
          ) async throws(any Error) -> Int {
            try await number()
          }
      }
      """
    }
  }

  @Test func `An Unnamed Argument Is Stored Under A Generated Name`() {
    assertMacro {
      """
      @QueryRequest
      func post(_: Int) async throws -> Post { Post() }
      """
    } expansion: {
      """
      func post(_: Int) async throws -> Post { Post() }

      nonisolated func $post(_ __argument0: Int) -> __macro_local_4postfMu_ {
        __macro_local_4postfMu_(__argument0: _operationRequireHashable(_operationRequireSendable(__argument0)))
      }

      nonisolated struct __macro_local_4postfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          let __argument0: Int
          var _debugTypeName: String {
            "post"
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Post, any Error>
          ) async throws(any Error) -> Post {
            try await post(self.__argument0)
          }
      }
      """
    }
  }

  @Test func `Default Values Stay On The Accessor`() {
    assertMacro {
      """
      @QueryRequest
      func posts(page: Int = 1, limit: Int = 20) async throws -> [Post] { [] }
      """
    } expansion: {
      """
      func posts(page: Int = 1, limit: Int = 20) async throws -> [Post] { [] }

      nonisolated func $posts(page: Int = 1, limit: Int = 20) -> __macro_local_5postsfMu_ {
        __macro_local_5postsfMu_(page: _operationRequireHashable(_operationRequireSendable(page)), limit: _operationRequireHashable(_operationRequireSendable(limit)))
      }

      nonisolated struct __macro_local_5postsfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          let page: Int
          let limit: Int
          var _debugTypeName: String {
            "posts"
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<[Post], any Error>
          ) async throws(any Error) -> [Post] {
            try await posts(page: self.page, limit: self.limit)
          }
      }
      """
    }
  }

  @Test func `Reserved Parameters Receive The Run's Values And Are Not Stored`() {
    assertMacro {
      """
      @QueryRequest
      func post(
        isolation: isolated (any Actor)? = #isolation,
        in context: OperationContext,
        with continuation: OperationContinuation<Post, any Error>,
        path: OperationPath,
        id: Int
      ) async throws -> Post { Post() }
      """
    } expansion: {
      """
      func post(
        isolation: isolated (any Actor)? = #isolation,
        in context: OperationContext,
        with continuation: OperationContinuation<Post, any Error>,
        path: OperationPath,
        id: Int
      ) async throws -> Post { Post() }

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
          try await post(isolation: isolation, in: context, with: continuation, path: self.path, id: self.id)
        }
      }
      """
    }
  }

  @Test func `A Method In An Extension Stores The Extended Type`() {
    assertMacro {
      """
      extension Outer.API {
        @QueryRequest
        func post(id: Int) async throws -> Post { Post() }
      }
      """
    } expansion: {
      """
      extension Outer.API {
        func post(id: Int) async throws -> Post { Post() }

        nonisolated func $post(id: Int) -> __macro_local_4postfMu_ {
          __macro_local_4postfMu_(id: _operationRequireHashable(_operationRequireSendable(id)), __parent: _operationRequireHashable(_operationRequireSendable(self)))
        }

        nonisolated struct __macro_local_4postfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          let id: Int
          let __parent: Outer.API
          var _debugTypeName: String {
            "Outer.API.post"
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

  @Test func `An Actor's Method Is Awaited`() {
    assertMacro {
      """
      actor PostStore {
        @QueryRequest
        func post(id: Int) async throws -> Post { Post() }
      }
      """
    } expansion: {
      """
      actor PostStore {
        func post(id: Int) async throws -> Post { Post() }

        nonisolated func $post(id: Int) -> __macro_local_4postfMu_ {
          __macro_local_4postfMu_(id: _operationRequireHashable(_operationRequireSendable(id)), __parent: _operationRequireHashable(_operationRequireSendable(self)))
        }

        nonisolated struct __macro_local_4postfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          let id: Int
          let __parent: PostStore
          var _debugTypeName: String {
            "PostStore.post"
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

  @Test func `A Class Method Of A Nested Type Stores The Type`() {
    assertMacro {
      """
      struct Outer {
        final class API {
          @QueryRequest
          class func post(id: Int) async throws -> Post { Post() }
        }
      }
      """
    } expansion: {
      """
      struct Outer {
        final class API {
          class func post(id: Int) async throws -> Post { Post() }

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
      }
      """
    }
  }

  @Test func `A Main Actor Method Is Awaited`() {
    assertMacro {
      """
      @MainActor
      final class Model {
        @QueryRequest
        func post(id: Int) async throws -> Post { Post() }
      }
      """
    } expansion: {
      """
      @MainActor
      final class Model {
        func post(id: Int) async throws -> Post { Post() }

        nonisolated func $post(id: Int) -> __macro_local_4postfMu_ {
          __macro_local_4postfMu_(id: _operationRequireHashable(_operationRequireSendable(id)), __parent: _operationRequireHashable(_operationRequireSendable(self)))
        }

        nonisolated struct __macro_local_4postfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          let id: Int
          let __parent: Model
          var _debugTypeName: String {
            "Model.post"
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

  @Test func `Fileprivate And Package Functions Keep Their Access Level`() {
    assertMacro {
      """
      @QueryRequest
      fileprivate func draft(id: Int) async throws -> Post { Post() }
      @QueryRequest
      package func post(id: Int) async throws -> Post { Post() }
      """
    } expansion: {
      """
      fileprivate func draft(id: Int) async throws -> Post { Post() }

      fileprivate nonisolated func $draft(id: Int) -> __macro_local_5draftfMu_ {
        __macro_local_5draftfMu_(id: _operationRequireHashable(_operationRequireSendable(id)))
      }

      fileprivate nonisolated struct __macro_local_5draftfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          let id: Int
          var _debugTypeName: String {
            "draft"
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Post, any Error>
          ) async throws(any Error) -> Post {
            try await draft(id: self.id)
          }
      }
      package func post(id: Int) async throws -> Post { Post() }

      package nonisolated func $post(id: Int) -> __macro_local_4postfMu_ {
        __macro_local_4postfMu_(id: _operationRequireHashable(_operationRequireSendable(id)))
      }

      package nonisolated struct __macro_local_4postfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          let id: Int
          package var _debugTypeName: String {
            "post"
          }
          package func fetch(
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

  @Test func `Availability Attributes Are Copied To The Request`() {
    assertMacro {
      """
      @QueryRequest
      @available(macOS 15, *)
      public func post(id: Int) async throws -> Post { Post() }
      """
    } expansion: {
      """
      @available(macOS 15, *)
      public func post(id: Int) async throws -> Post { Post() }

      @available(macOS 15, *)
      public nonisolated func $post(id: Int) -> __macro_local_4postfMu_ {
        __macro_local_4postfMu_(id: _operationRequireHashable(_operationRequireSendable(id)))
      }

      @available(macOS 15, *)
      public nonisolated struct __macro_local_4postfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          let id: Int
          public var _debugTypeName: String {
            "post"
          }
          public func fetch(
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

  @Test func `A Typed Throw And A Sending Result Become The Request's Failure And Value`() {
    assertMacro {
      """
      @QueryRequest
      func post(id: Int) async throws(LoadError) -> sending Post { Post() }
      """
    } expansion: {
      """
      func post(id: Int) async throws(LoadError) -> sending Post { Post() }

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
            with continuation: OperationCore.OperationContinuation<Post, LoadError>
          ) async throws(LoadError) -> Post {
            try await post(id: self.id)
          }
      }
      """
    }
  }

  @Test func `An Async Function That Does Not Throw Fails With Never`() {
    assertMacro {
      """
      @QueryRequest
      func post(id: Int) async -> Post { Post() }
      """
    } expansion: {
      """
      func post(id: Int) async -> Post { Post() }

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
            with continuation: OperationCore.OperationContinuation<Post, Never>
          ) async throws(Never) -> Post {
            await post(id: self.id)
          }
      }
      """
    }
  }

  @Test func `A Synchronous Throwing Function Fails With Any Error`() {
    assertMacro {
      """
      @QueryRequest
      func post(id: Int) throws -> Post { Post() }
      """
    } expansion: {
      """
      func post(id: Int) throws -> Post { Post() }

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
            try post(id: self.id)
          }
      }
      """
    }
  }

  @Test func `A Generic Function Gets A Generic Request`() {
    assertMacro {
      """
      @QueryRequest
      func echo<T: Sendable>(_ value: T) async -> T where T: Hashable { value }
      """
    } expansion: {
      """
      func echo<T: Sendable>(_ value: T) async -> T where T: Hashable { value }

      nonisolated func $echo<T: Sendable>(_ value: T) -> __macro_local_4echofMu_<T> where T: Hashable {
        __macro_local_4echofMu_<T>(value: _operationRequireHashable(_operationRequireSendable(value)))
      }

      nonisolated struct __macro_local_4echofMu_<T: Sendable>: OperationCore.QueryRequest, Hashable, Sendable where T: Hashable {
          let value: T
          var _debugTypeName: String {
            "echo"
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<T, Never>
          ) async throws(Never) -> T {
            await echo(self.value)
          }
      }
      """
    }
  }

  @Test func `Repeated Labels Are Stored Under Their Parameter Names`() {
    assertMacro {
      """
      @QueryRequest
      func posts(between a: Int, between b: Int) async throws -> [Post] { [] }
      """
    } expansion: {
      """
      func posts(between a: Int, between b: Int) async throws -> [Post] { [] }

      nonisolated func $posts(between a: Int, between b: Int) -> __macro_local_5postsfMu_ {
        __macro_local_5postsfMu_(a: _operationRequireHashable(_operationRequireSendable(a)), b: _operationRequireHashable(_operationRequireSendable(b)))
      }

      nonisolated struct __macro_local_5postsfMu_: OperationCore.QueryRequest, Hashable, Sendable {
          let a: Int
          let b: Int
          var _debugTypeName: String {
            "posts"
          }
          func fetch(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<[Post], any Error>
          ) async throws(any Error) -> [Post] {
            try await posts(between: self.a, between: self.b)
          }
      }
      """
    }
  }

  @Test func `An Inout Parameter Is An Error With A Fix-It`() {
    assertMacro {
      """
      @QueryRequest
      func post(id: inout Int) async throws -> Post { Post() }
      """
    } diagnostics: {
      """
      @QueryRequest
      func post(id: inout Int) async throws -> Post { Post() }
                    ┬────
                    ╰─ 🛑 @QueryRequest stores each argument, and cannot write an 'inout' one back: take the value and return the result instead
                       ✏️ Remove 'inout'
      """
    } fixes: {
      """
      @QueryRequest
      func post(id: Int) async throws -> Post { Post() }
      """
    } expansion: {
      """
      func post(id: Int) async throws -> Post { Post() }

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
            try await post(id: self.id)
          }
      }
      """
    }
  }

  @Test func `An Isolation Parameter Of Another Type Is An Error With A Fix-It`() {
    assertMacro {
      """
      @QueryRequest
      func post(isolation: any Actor, id: Int) async throws -> Post { Post() }
      """
    } diagnostics: {
      """
      @QueryRequest
      func post(isolation: any Actor, id: Int) async throws -> Post { Post() }
                           ┬────────
                           ╰─ 🛑 @QueryRequest passes the run's isolation to the 'isolation' parameter, which must be of type 'isolated (any Actor)?': change its type, or rename the parameter
                              ✏️ Change the type to 'isolated (any Actor)?'
      """
    } fixes: {
      """
      @QueryRequest
      func post(isolation: isolated (any Actor)?, id: Int) async throws -> Post { Post() }
      """
    } expansion: {
      """
      func post(isolation: isolated (any Actor)?, id: Int) async throws -> Post { Post() }

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
            try await post(isolation: isolation, id: self.id)
          }
      }
      """
    }
  }

  @Test func `A Context Parameter Of Another Type Is An Error With A Fix-It`() {
    assertMacro {
      """
      @QueryRequest
      func post(context: Int, id: Int) async throws -> Post { Post() }
      """
    } diagnostics: {
      """
      @QueryRequest
      func post(context: Int, id: Int) async throws -> Post { Post() }
                         ┬──
                         ╰─ 🛑 @QueryRequest passes the run's context to the 'context' parameter, which must be of type 'OperationContext': change its type, or rename the parameter
                            ✏️ Change the type to 'OperationContext'
      """
    } fixes: {
      """
      @QueryRequest
      func post(context: OperationContext, id: Int) async throws -> Post { Post() }
      """
    } expansion: {
      """
      func post(context: OperationContext, id: Int) async throws -> Post { Post() }

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
            try await post(context: context, id: self.id)
          }
      }
      """
    }
  }

  @Test func `A Continuation Parameter Of Another Type Is An Error With A Fix-It`() {
    assertMacro {
      """
      @QueryRequest
      func post(continuation: Int, id: Int) async throws -> Post { Post() }
      """
    } diagnostics: {
      """
      @QueryRequest
      func post(continuation: Int, id: Int) async throws -> Post { Post() }
                              ┬──
                              ╰─ 🛑 @QueryRequest passes the run's continuation to the 'continuation' parameter, which must be of type 'OperationContinuation<Post, any Error>': change its type, or rename the parameter
                                 ✏️ Change the type to 'OperationContinuation<Post, any Error>'
      """
    } fixes: {
      """
      @QueryRequest
      func post(continuation: OperationContinuation<Post, any Error>, id: Int) async throws -> Post { Post() }
      """
    } expansion: {
      """
      func post(continuation: OperationContinuation<Post, any Error>, id: Int) async throws -> Post { Post() }

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
            try await post(continuation: continuation, id: self.id)
          }
      }
      """
    }
  }

  @Test func `A Macro On Something Other Than A Function Is An Error`() {
    assertMacro {
      """
      @QueryRequest
      var post: Post { Post() }
      """
    } diagnostics: {
      """
      @QueryRequest
      ┬────────────
      ╰─ 🛑 @QueryRequest applies only to functions: attach it to a 'func' that does the work
      var post: Post { Post() }
      """
    }
  }

  @Test func `A Local Function Expands As A Top-Level Function Does`() {
    assertMacro {
      """
      func outer() {
        @QueryRequest
        func post(id: Int) async throws -> Post { Post() }
      }
      """
    } expansion: {
      """
      func outer() {
        func post(id: Int) async throws -> Post { Post() }

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
            try await post(id: self.id)
          }
        }
      }
      """
    }
  }

  @Test func `A Local Function In A Closure Expands As A Top-Level Function Does`() {
    assertMacro {
      """
      let work = {
        @QueryRequest
        func post(id: Int) async throws -> Post { Post() }
      }
      """
    } expansion: {
      """
      let work = {
        func post(id: Int) async throws -> Post { Post() }

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
            try await post(id: self.id)
          }
        }
      }
      """
    }
  }

  @Test func `A Local Function Of A Method Is An Error`() {
    assertMacro {
      """
      struct API {
        func outer() {
          @QueryRequest
          func post(id: Int) async throws -> Post { Post() }
        }
      }
      """
    } diagnostics: {
      """
      struct API {
        func outer() {
          @QueryRequest
          ┬────────────
          ╰─ 🛑 @QueryRequest cannot generate a request from a local function inside a type: the request could not call it; make it a method of the type
          func post(id: Int) async throws -> Post { Post() }
        }
      }
      """
    }
  }

  @Test func `A Function Requirement In A Protocol Is An Error`() {
    assertMacro {
      """
      protocol API {
        @QueryRequest
        func post(id: Int) async throws -> Post
      }
      """
    } diagnostics: {
      """
      protocol API {
        @QueryRequest
        ┬────────────
        ╰─ 🛑 @QueryRequest cannot generate a request inside a protocol: move the function into a type or an extension
        func post(id: Int) async throws -> Post
      }
      """
    }
  }

  @Test func `An Opaque Parameter Is An Error`() {
    assertMacro {
      """
      @QueryRequest
      func post(id: some Hashable & Sendable) async throws -> Post { Post() }
      """
    } diagnostics: {
      """
      @QueryRequest
      func post(id: some Hashable & Sendable) async throws -> Post { Post() }
                    ┬───────────────────────
                    ╰─ 🛑 @QueryRequest stores each argument, and cannot store an opaque 'some' one: declare a generic parameter instead
      """
    }
  }

  @Test func `An Opaque Result Is An Error`() {
    assertMacro {
      """
      @QueryRequest
      func post(id: Int) async throws -> some Sendable { 1 }
      """
    } diagnostics: {
      """
      @QueryRequest
      func post(id: Int) async throws -> some Sendable { 1 }
                                         ┬────────────
                                         ╰─ 🛑 @QueryRequest needs the function's result type by name: replace the opaque 'some' type with a concrete type
      """
    }
  }

  @Test func `A Rethrowing Function Is An Error With A Fix-It`() {
    assertMacro {
      """
      @QueryRequest
      func post(id: Int) rethrows -> Post { Post() }
      """
    } diagnostics: {
      """
      @QueryRequest
      func post(id: Int) rethrows -> Post { Post() }
                         ┬───────
                         ╰─ 🛑 @QueryRequest cannot generate a request from a 'rethrows' function: use 'throws'
                            ✏️ Replace 'rethrows' with 'throws'
      """
    } fixes: {
      """
      @QueryRequest
      func post(id: Int) throws -> Post { Post() }
      """
    } expansion: {
      """
      func post(id: Int) throws -> Post { Post() }

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
            try post(id: self.id)
          }
      }
      """
    }
  }

  @Test func `A Parameter Named Like A Member Of The Request Is An Error`() {
    assertMacro {
      """
      @QueryRequest
      func post(fetch: Int) async throws -> Post { Post() }
      """
    } diagnostics: {
      """
      @QueryRequest
      func post(fetch: Int) async throws -> Post { Post() }
                ┬─────────
                ╰─ 🛑 @QueryRequest stores the argument 'fetch' in a property that would hide a member of the request: rename the parameter
      """
    }
  }
}
