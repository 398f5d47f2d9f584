import MacroTesting
import OperationMacros
import Testing

@Suite(.macros(["MutationRequest": MutationRequestMacro.self]))
struct MutationRequestMacroTests {
  @Test func `A Mutation Without Arguments Takes Void`() {
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

  @Test func `The Arguments Parameter Is The Mutation's Arguments`() {
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

  @Test func `Other Parameters Are Stored Beside The Arguments`() {
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

  @Test func `An Arguments Type Named Arguments Is Not Confused With The Associated Type`() {
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

  @Test func `Two Arguments Parameters Are An Error`() {
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

  @Test func `An Identifiable Path Is The ID Argument`() {
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

  @Test func `A Custom Path Is Built From The Stored Arguments`() {
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

  @Test func `A Static Method Stores Its Type`() {
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

  @Test func `A Path Parameter Of Another Type Is An Error With A Fix-It`() {
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

  @Test func `Inout Arguments Are An Error With A Fix-It`() {
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

  @Test func `A Function Named Mutate Is An Error`() {
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

  @Test func `Labelled And Unlabelled Parameters Are Stored`() {
    assertMacro {
      """
      @MutationRequest
      func like(_ postID: Int, by userID: Int, arguments: Bool) async throws -> Bool { arguments }
      """
    } expansion: {
      """
      func like(_ postID: Int, by userID: Int, arguments: Bool) async throws -> Bool { arguments }

      nonisolated func $like(_ postID: Int, by userID: Int) -> __macro_local_4likefMu_ {
        __macro_local_4likefMu_(postID: _operationRequireHashable(_operationRequireSendable(postID)), userID: _operationRequireHashable(_operationRequireSendable(userID)))
      }

      nonisolated struct __macro_local_4likefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          let postID: Int
          let userID: Int
          var _debugTypeName: String {
            "like"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Bool,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Bool, any Error>
          ) async throws(any Error) -> Bool {
            try await like(self.postID, by: self.userID, arguments: arguments)
          }
      }
      """
    }
  }

  @Test func `An Unnamed Argument Is Stored Under A Generated Name`() {
    assertMacro {
      """
      @MutationRequest
      func like(_: Int, arguments: Bool) async throws -> Bool { arguments }
      """
    } expansion: {
      """
      func like(_: Int, arguments: Bool) async throws -> Bool { arguments }

      nonisolated func $like(_ __argument0: Int) -> __macro_local_4likefMu_ {
        __macro_local_4likefMu_(__argument0: _operationRequireHashable(_operationRequireSendable(__argument0)))
      }

      nonisolated struct __macro_local_4likefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          let __argument0: Int
          var _debugTypeName: String {
            "like"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Bool,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Bool, any Error>
          ) async throws(any Error) -> Bool {
            try await like(self.__argument0, arguments: arguments)
          }
      }
      """
    }
  }

  @Test func `Default Values Stay On The Accessor`() {
    assertMacro {
      """
      @MutationRequest
      func like(postID: Int = 1, arguments: Bool = true) async throws -> Bool { arguments }
      """
    } expansion: {
      """
      func like(postID: Int = 1, arguments: Bool = true) async throws -> Bool { arguments }

      nonisolated func $like(postID: Int = 1) -> __macro_local_4likefMu_ {
        __macro_local_4likefMu_(postID: _operationRequireHashable(_operationRequireSendable(postID)))
      }

      nonisolated struct __macro_local_4likefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          let postID: Int
          var _debugTypeName: String {
            "like"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Bool,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Bool, any Error>
          ) async throws(any Error) -> Bool {
            try await like(postID: self.postID, arguments: arguments)
          }
      }
      """
    }
  }

  @Test func `Reserved Parameters Receive The Run's Values And Are Not Stored`() {
    assertMacro {
      """
      @MutationRequest
      func like(
        isolation: isolated (any Actor)? = #isolation,
        in context: OperationContext,
        with continuation: OperationContinuation<Bool, any Error>,
        path: OperationPath,
        arguments: Int,
        postID: Int
      ) async throws -> Bool { true }
      """
    } expansion: {
      """
      func like(
        isolation: isolated (any Actor)? = #isolation,
        in context: OperationContext,
        with continuation: OperationContinuation<Bool, any Error>,
        path: OperationPath,
        arguments: Int,
        postID: Int
      ) async throws -> Bool { true }

      nonisolated func $like(postID: Int) -> __macro_local_4likefMu_ {
        __macro_local_4likefMu_(postID: _operationRequireHashable(_operationRequireSendable(postID)))
      }

      nonisolated struct __macro_local_4likefMu_: OperationCore.MutationRequest, Hashable, Sendable {
        let postID: Int
        var _debugTypeName: String {
          "like"
        }
        func mutate(
          isolation: isolated (any Actor)?,
          with arguments: Int,
          in context: OperationCore.OperationContext,
          with continuation: OperationCore.OperationContinuation<Bool, any Error>
        ) async throws(any Error) -> Bool {
          try await like(isolation: isolation, in: context, with: continuation, path: self.path, arguments: arguments, postID: self.postID)
        }
      }
      """
    }
  }

  @Test func `A Method Stores The Value It Is Called On`() {
    assertMacro {
      """
      struct API {
        @MutationRequest
        func like(postID: Int, arguments: Bool) async throws -> Bool { arguments }
      }
      """
    } expansion: {
      """
      struct API {
        func like(postID: Int, arguments: Bool) async throws -> Bool { arguments }

        nonisolated func $like(postID: Int) -> __macro_local_4likefMu_ {
          __macro_local_4likefMu_(postID: _operationRequireHashable(_operationRequireSendable(postID)), __parent: _operationRequireHashable(_operationRequireSendable(self)))
        }

        nonisolated struct __macro_local_4likefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          let postID: Int
          let __parent: API
          var _debugTypeName: String {
            "API.like"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Bool,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Bool, any Error>
          ) async throws(any Error) -> Bool {
            try await self.__parent.like(postID: self.postID, arguments: arguments)
          }
        }
      }
      """
    }
  }

  @Test func `A Method In An Extension Stores The Extended Type`() {
    assertMacro {
      """
      extension Outer.API {
        @MutationRequest
        func like(arguments: Int) async throws -> Bool { true }
      }
      """
    } expansion: {
      """
      extension Outer.API {
        func like(arguments: Int) async throws -> Bool { true }

        nonisolated var $like: __macro_local_4likefMu_ {
          __macro_local_4likefMu_(__parent: _operationRequireHashable(_operationRequireSendable(self)))
        }

        nonisolated struct __macro_local_4likefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          let __parent: Outer.API
          var _debugTypeName: String {
            "Outer.API.like"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Int,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Bool, any Error>
          ) async throws(any Error) -> Bool {
            try await self.__parent.like(arguments: arguments)
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
        @MutationRequest
        func like(arguments: Int) async throws -> Bool { true }
      }
      """
    } expansion: {
      """
      actor PostStore {
        func like(arguments: Int) async throws -> Bool { true }

        nonisolated var $like: __macro_local_4likefMu_ {
          __macro_local_4likefMu_(__parent: _operationRequireHashable(_operationRequireSendable(self)))
        }

        nonisolated struct __macro_local_4likefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          let __parent: PostStore
          var _debugTypeName: String {
            "PostStore.like"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Int,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Bool, any Error>
          ) async throws(any Error) -> Bool {
            try await self.__parent.like(arguments: arguments)
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
          @MutationRequest
          class func like(arguments: Int) async throws -> Bool { true }
        }
      }
      """
    } expansion: {
      """
      struct Outer {
        final class API {
          class func like(arguments: Int) async throws -> Bool { true }

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
              with continuation: OperationCore.OperationContinuation<Bool, any Error>
            ) async throws(any Error) -> Bool {
              try await self.__parentType.type.like(arguments: arguments)
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
        @MutationRequest
        func like(arguments: Int) async throws -> Bool { true }
      }
      """
    } expansion: {
      """
      @MainActor
      final class Model {
        func like(arguments: Int) async throws -> Bool { true }

        nonisolated var $like: __macro_local_4likefMu_ {
          __macro_local_4likefMu_(__parent: _operationRequireHashable(_operationRequireSendable(self)))
        }

        nonisolated struct __macro_local_4likefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          let __parent: Model
          var _debugTypeName: String {
            "Model.like"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Int,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Bool, any Error>
          ) async throws(any Error) -> Bool {
            try await self.__parent.like(arguments: arguments)
          }
        }
      }
      """
    }
  }

  @Test func `The Request Takes The Function's Access Level`() {
    assertMacro {
      """
      public struct API: Hashable {
        @MutationRequest
        public func like(arguments: Int) async throws -> Bool { true }
        @MutationRequest
        private func unlike(arguments: Int) async throws -> Bool { true }
      }
      """
    } expansion: {
      """
      public struct API: Hashable {
        public func like(arguments: Int) async throws -> Bool { true }

        public nonisolated var $like: __macro_local_4likefMu_ {
          __macro_local_4likefMu_(__parent: _operationRequireHashable(_operationRequireSendable(self)))
        }

        public nonisolated struct __macro_local_4likefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          let __parent: API
          public var _debugTypeName: String {
            "API.like"
          }
          public func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Int,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Bool, any Error>
          ) async throws(any Error) -> Bool {
            try await self.__parent.like(arguments: arguments)
          }
        }
        private func unlike(arguments: Int) async throws -> Bool { true }

        private nonisolated var $unlike: __macro_local_6unlikefMu_ {
          __macro_local_6unlikefMu_(__parent: _operationRequireHashable(_operationRequireSendable(self)))
        }

        private nonisolated struct __macro_local_6unlikefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          let __parent: API
          var _debugTypeName: String {
            "API.unlike"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Int,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Bool, any Error>
          ) async throws(any Error) -> Bool {
            try await self.__parent.unlike(arguments: arguments)
          }
        }
      }
      """
    }
  }

  @Test func `Fileprivate And Package Functions Keep Their Access Level`() {
    assertMacro {
      """
      @MutationRequest
      fileprivate func unlike(arguments: Int) async throws -> Bool { true }
      @MutationRequest
      package func like(arguments: Int) async throws -> Bool { true }
      """
    } expansion: {
      """
      fileprivate func unlike(arguments: Int) async throws -> Bool { true }

      fileprivate nonisolated var $unlike: __macro_local_6unlikefMu_ {
        __macro_local_6unlikefMu_()
      }

      fileprivate nonisolated struct __macro_local_6unlikefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          var _debugTypeName: String {
            "unlike"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Int,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Bool, any Error>
          ) async throws(any Error) -> Bool {
            try await unlike(arguments: arguments)
          }
      }
      package func like(arguments: Int) async throws -> Bool { true }

      package nonisolated var $like: __macro_local_4likefMu_ {
        __macro_local_4likefMu_()
      }

      package nonisolated struct __macro_local_4likefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          package var _debugTypeName: String {
            "like"
          }
          package func mutate(
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

  @Test func `Availability Attributes Are Copied To The Request`() {
    assertMacro {
      """
      @MutationRequest
      @available(macOS 15, *)
      public func like(arguments: Int) async throws -> Bool { true }
      """
    } expansion: {
      """
      @available(macOS 15, *)
      public func like(arguments: Int) async throws -> Bool { true }

      @available(macOS 15, *)
      public nonisolated var $like: __macro_local_4likefMu_ {
        __macro_local_4likefMu_()
      }

      @available(macOS 15, *)
      public nonisolated struct __macro_local_4likefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          public var _debugTypeName: String {
            "like"
          }
          public func mutate(
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

  @Test func `A Typed Throw And A Sending Result Become The Request's Failure And Value`() {
    assertMacro {
      """
      @MutationRequest
      func like(arguments: Int) async throws(LikeError) -> sending Bool { true }
      """
    } expansion: {
      """
      func like(arguments: Int) async throws(LikeError) -> sending Bool { true }

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
            with continuation: OperationCore.OperationContinuation<Bool, LikeError>
          ) async throws(LikeError) -> Bool {
            try await like(arguments: arguments)
          }
      }
      """
    }
  }

  @Test func `A Synchronous Function That Does Not Throw Fails With Never`() {
    assertMacro {
      """
      @MutationRequest
      func like(arguments: Int) -> Bool { true }
      """
    } expansion: {
      """
      func like(arguments: Int) -> Bool { true }

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
            with continuation: OperationCore.OperationContinuation<Bool, Never>
          ) async throws(Never) -> Bool {
            like(arguments: arguments)
          }
      }
      """
    }
  }

  @Test func `A Generic Function Gets A Generic Request`() {
    assertMacro {
      """
      @MutationRequest
      func save<T: Sendable>(arguments: T) async throws -> T { arguments }
      """
    } expansion: {
      """
      func save<T: Sendable>(arguments: T) async throws -> T { arguments }

      nonisolated func $save<T: Sendable>() -> __macro_local_4savefMu_<T> {
        __macro_local_4savefMu_<T>()
      }

      nonisolated struct __macro_local_4savefMu_<T: Sendable>: OperationCore.MutationRequest, Hashable, Sendable {
          var _debugTypeName: String {
            "save"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: T,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<T, any Error>
          ) async throws(any Error) -> T {
            try await save(arguments: arguments)
          }
      }
      """
    }
  }

  @Test func `A Generic Stored Argument Keeps Its Constraints`() {
    assertMacro {
      """
      @MutationRequest
      func save<ID: Hashable & Sendable>(id: ID, arguments: String) async throws -> String where ID: Codable { arguments }
      """
    } expansion: {
      """
      func save<ID: Hashable & Sendable>(id: ID, arguments: String) async throws -> String where ID: Codable { arguments }

      nonisolated func $save<ID: Hashable & Sendable>(id: ID) -> __macro_local_4savefMu_<ID> where ID: Codable {
        __macro_local_4savefMu_<ID>(id: _operationRequireHashable(_operationRequireSendable(id)))
      }

      nonisolated struct __macro_local_4savefMu_<ID: Hashable & Sendable>: OperationCore.MutationRequest, Hashable, Sendable where ID: Codable {
          let id: ID
          var _debugTypeName: String {
            "save"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: String,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<String, any Error>
          ) async throws(any Error) -> String {
            try await save(id: self.id, arguments: arguments)
          }
      }
      """
    }
  }

  @Test func `Repeated Labels Are Stored Under Their Parameter Names`() {
    assertMacro {
      """
      @MutationRequest
      func move(value a: Int, value b: Int, arguments: Bool) async throws -> Bool { arguments }
      """
    } expansion: {
      """
      func move(value a: Int, value b: Int, arguments: Bool) async throws -> Bool { arguments }

      nonisolated func $move(value a: Int, value b: Int) -> __macro_local_4movefMu_ {
        __macro_local_4movefMu_(a: _operationRequireHashable(_operationRequireSendable(a)), b: _operationRequireHashable(_operationRequireSendable(b)))
      }

      nonisolated struct __macro_local_4movefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          let a: Int
          let b: Int
          var _debugTypeName: String {
            "move"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Bool,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Bool, any Error>
          ) async throws(any Error) -> Bool {
            try await move(value: self.a, value: self.b, arguments: arguments)
          }
      }
      """
    }
  }

  @Test func `A Variadic Parameter Is An Error With A Fix-It`() {
    assertMacro {
      """
      @MutationRequest
      func like(postIDs: Int..., arguments: Bool) async throws -> Bool { arguments }
      """
    } diagnostics: {
      """
      @MutationRequest
      func like(postIDs: Int..., arguments: Bool) async throws -> Bool { arguments }
                            ┬──
                            ╰─ 🛑 @MutationRequest stores each argument, and cannot store a variadic one: take an array instead
                               ✏️ Take an array
      """
    } fixes: {
      """
      @MutationRequest
      func like(postIDs: [Int], arguments: Bool) async throws -> Bool { arguments }
      """
    } expansion: {
      """
      func like(postIDs: [Int], arguments: Bool) async throws -> Bool { arguments }

      nonisolated func $like(postIDs: [Int]) -> __macro_local_4likefMu_ {
        __macro_local_4likefMu_(postIDs: _operationRequireHashable(_operationRequireSendable(postIDs)))
      }

      nonisolated struct __macro_local_4likefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          let postIDs: [Int]
          var _debugTypeName: String {
            "like"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Bool,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Bool, any Error>
          ) async throws(any Error) -> Bool {
            try await like(postIDs: self.postIDs, arguments: arguments)
          }
      }
      """
    }
  }

  @Test func `An Inout Parameter Is An Error With A Fix-It`() {
    assertMacro {
      """
      @MutationRequest
      func like(postID: inout Int, arguments: Bool) async throws -> Bool { arguments }
      """
    } diagnostics: {
      """
      @MutationRequest
      func like(postID: inout Int, arguments: Bool) async throws -> Bool { arguments }
                        ┬────
                        ╰─ 🛑 @MutationRequest stores each argument, and cannot write an 'inout' one back: take the value and return the result instead
                           ✏️ Remove 'inout'
      """
    } fixes: {
      """
      @MutationRequest
      func like(postID: Int, arguments: Bool) async throws -> Bool { arguments }
      """
    } expansion: {
      """
      func like(postID: Int, arguments: Bool) async throws -> Bool { arguments }

      nonisolated func $like(postID: Int) -> __macro_local_4likefMu_ {
        __macro_local_4likefMu_(postID: _operationRequireHashable(_operationRequireSendable(postID)))
      }

      nonisolated struct __macro_local_4likefMu_: OperationCore.MutationRequest, Hashable, Sendable {
          let postID: Int
          var _debugTypeName: String {
            "like"
          }
          func mutate(
            isolation: isolated (any Actor)?,
            with arguments: Bool,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Bool, any Error>
          ) async throws(any Error) -> Bool {
            try await like(postID: self.postID, arguments: arguments)
          }
      }
      """
    }
  }

  @Test func `An Isolation Parameter Of Another Type Is An Error With A Fix-It`() {
    assertMacro {
      """
      @MutationRequest
      func like(isolation: any Actor, arguments: Int) async throws -> Bool { true }
      """
    } diagnostics: {
      """
      @MutationRequest
      func like(isolation: any Actor, arguments: Int) async throws -> Bool { true }
                           ┬────────
                           ╰─ 🛑 @MutationRequest passes the run's isolation to the 'isolation' parameter, which must be of type 'isolated (any Actor)?': change its type, or rename the parameter
                              ✏️ Change the type to 'isolated (any Actor)?'
      """
    } fixes: {
      """
      @MutationRequest
      func like(isolation: isolated (any Actor)?, arguments: Int) async throws -> Bool { true }
      """
    } expansion: {
      """
      func like(isolation: isolated (any Actor)?, arguments: Int) async throws -> Bool { true }

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
            try await like(isolation: isolation, arguments: arguments)
          }
      }
      """
    }
  }

  @Test func `A Context Parameter Of Another Type Is An Error With A Fix-It`() {
    assertMacro {
      """
      @MutationRequest
      func like(context: Int, arguments: Int) async throws -> Bool { true }
      """
    } diagnostics: {
      """
      @MutationRequest
      func like(context: Int, arguments: Int) async throws -> Bool { true }
                         ┬──
                         ╰─ 🛑 @MutationRequest passes the run's context to the 'context' parameter, which must be of type 'OperationContext': change its type, or rename the parameter
                            ✏️ Change the type to 'OperationContext'
      """
    } fixes: {
      """
      @MutationRequest
      func like(context: OperationContext, arguments: Int) async throws -> Bool { true }
      """
    } expansion: {
      """
      func like(context: OperationContext, arguments: Int) async throws -> Bool { true }

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
            try await like(context: context, arguments: arguments)
          }
      }
      """
    }
  }

  @Test func `A Continuation Parameter Of Another Type Is An Error With A Fix-It`() {
    assertMacro {
      """
      @MutationRequest
      func like(continuation: Int, arguments: Int) async throws -> Bool { true }
      """
    } diagnostics: {
      """
      @MutationRequest
      func like(continuation: Int, arguments: Int) async throws -> Bool { true }
                              ┬──
                              ╰─ 🛑 @MutationRequest passes the run's continuation to the 'continuation' parameter, which must be of type 'OperationContinuation<Bool, any Error>': change its type, or rename the parameter
                                 ✏️ Change the type to 'OperationContinuation<Bool, any Error>'
      """
    } fixes: {
      """
      @MutationRequest
      func like(continuation: OperationContinuation<Bool, any Error>, arguments: Int) async throws -> Bool { true }
      """
    } expansion: {
      """
      func like(continuation: OperationContinuation<Bool, any Error>, arguments: Int) async throws -> Bool { true }

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
            try await like(continuation: continuation, arguments: arguments)
          }
      }
      """
    }
  }

  @Test func `A Macro On Something Other Than A Function Is An Error`() {
    assertMacro {
      """
      @MutationRequest
      var like: Bool { true }
      """
    } diagnostics: {
      """
      @MutationRequest
      ┬───────────────
      ╰─ 🛑 @MutationRequest applies only to functions: attach it to a 'func' that does the work
      var like: Bool { true }
      """
    }
  }

  @Test func `A Local Function Expands As A Top-Level Function Does`() {
    assertMacro {
      """
      func outer() {
        @MutationRequest
        func like(arguments: Int) async throws -> Bool { true }
      }
      """
    } expansion: {
      """
      func outer() {
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
      }
      """
    }
  }

  @Test func `A Local Function In A Closure Expands As A Top-Level Function Does`() {
    assertMacro {
      """
      let work = {
        @MutationRequest
        func like(arguments: Int) async throws -> Bool { true }
      }
      """
    } expansion: {
      """
      let work = {
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
      }
      """
    }
  }

  @Test func `A Local Function Of A Method Is An Error`() {
    assertMacro {
      """
      struct API {
        func outer() {
          @MutationRequest
          func like(arguments: Int) async throws -> Bool { true }
        }
      }
      """
    } diagnostics: {
      """
      struct API {
        func outer() {
          @MutationRequest
          ┬───────────────
          ╰─ 🛑 @MutationRequest cannot generate a request from a local function inside a type: the request could not call it; make it a method of the type
          func like(arguments: Int) async throws -> Bool { true }
        }
      }
      """
    }
  }

  @Test func `A Function Requirement In A Protocol Is An Error`() {
    assertMacro {
      """
      protocol API {
        @MutationRequest
        func like(arguments: Int) async throws -> Bool
      }
      """
    } diagnostics: {
      """
      protocol API {
        @MutationRequest
        ┬───────────────
        ╰─ 🛑 @MutationRequest cannot generate a request inside a protocol: move the function into a type or an extension
        func like(arguments: Int) async throws -> Bool
      }
      """
    }
  }

  @Test func `An Opaque Parameter Is An Error`() {
    assertMacro {
      """
      @MutationRequest
      func like(postID: some Hashable & Sendable, arguments: Int) async throws -> Bool { true }
      """
    } diagnostics: {
      """
      @MutationRequest
      func like(postID: some Hashable & Sendable, arguments: Int) async throws -> Bool { true }
                        ┬───────────────────────
                        ╰─ 🛑 @MutationRequest stores each argument, and cannot store an opaque 'some' one: declare a generic parameter instead
      """
    }
  }

  @Test func `An Opaque Result Is An Error`() {
    assertMacro {
      """
      @MutationRequest
      func like(arguments: Int) async throws -> some Sendable { true }
      """
    } diagnostics: {
      """
      @MutationRequest
      func like(arguments: Int) async throws -> some Sendable { true }
                                                ┬────────────
                                                ╰─ 🛑 @MutationRequest needs the function's result type by name: replace the opaque 'some' type with a concrete type
      """
    }
  }

  @Test func `A Rethrowing Function Is An Error With A Fix-It`() {
    assertMacro {
      """
      @MutationRequest
      func like(arguments: Int) rethrows -> Bool { true }
      """
    } diagnostics: {
      """
      @MutationRequest
      func like(arguments: Int) rethrows -> Bool { true }
                                ┬───────
                                ╰─ 🛑 @MutationRequest cannot generate a request from a 'rethrows' function: use 'throws'
                                   ✏️ Replace 'rethrows' with 'throws'
      """
    } fixes: {
      """
      @MutationRequest
      func like(arguments: Int) throws -> Bool { true }
      """
    } expansion: {
      """
      func like(arguments: Int) throws -> Bool { true }

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
            try like(arguments: arguments)
          }
      }
      """
    }
  }

  @Test func `A Parameter Named Like A Member Of The Request Is An Error`() {
    assertMacro {
      """
      @MutationRequest
      func like(mutate: Int, arguments: Int) async throws -> Bool { true }
      """
    } diagnostics: {
      """
      @MutationRequest
      func like(mutate: Int, arguments: Int) async throws -> Bool { true }
                ┬───────────
                ╰─ 🛑 @MutationRequest stores the argument 'mutate' in a property that would hide a member of the request: rename the parameter
      """
    }
  }

  @Test func `Opaque Arguments Are An Error`() {
    assertMacro {
      """
      @MutationRequest
      func like(arguments: some Sendable) async throws -> Bool {
        true
      }
      """
    } diagnostics: {
      """
      @MutationRequest
      func like(arguments: some Sendable) async throws -> Bool {
                           ┬────────────
                           ╰─ 🛑 @MutationRequest needs the type of 'arguments' by name, and an opaque 'some' type has none: declare a generic parameter instead
        true
      }
      """
    }
  }
}
