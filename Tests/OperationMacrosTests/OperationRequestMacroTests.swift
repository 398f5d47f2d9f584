import MacroTesting
import OperationMacros
import Testing

@Suite(.macros(["OperationRequest": OperationRequestMacro.self]))
struct OperationRequestMacroTests {
  @Test func `A Function Without Arguments Gets A Property Accessor`() {
    assertMacro {
      """
      @OperationRequest
      func number() -> Int { 1 }
      """
    } expansion: {
      """
      func number() -> Int { 1 }

      nonisolated var $number: __macro_local_6numberfMu_ {
        __macro_local_6numberfMu_()
      }

      nonisolated struct __macro_local_6numberfMu_: OperationCore.OperationRequest {
          var _debugTypeName: String {
            "number"
          }
          func run(
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

  @Test func `Arguments Become Stored Properties And Accessor Parameters`() {
    assertMacro {
      """
      @OperationRequest
      func add(_ a: Int, to b: Int, c: Int = 3) -> Int { a + b + c }
      """
    } expansion: {
      """
      func add(_ a: Int, to b: Int, c: Int = 3) -> Int { a + b + c }

      nonisolated func $add(_ a: Int, to b: Int, c: Int = 3) -> __macro_local_3addfMu_ {
        __macro_local_3addfMu_(a: a, b: b, c: c)
      }

      nonisolated struct __macro_local_3addfMu_: OperationCore.OperationRequest {
          let a: Int
          let b: Int
          let c: Int
          var _debugTypeName: String {
            "add"
          }
          func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Int, Never>
          ) async throws(Never) -> Int {
            add(self.a, to: self.b, c: self.c)
          }
      }
      """
    }
  }

  @Test func `An Unnamed Argument Is Stored Under A Generated Name`() {
    assertMacro {
      """
      @OperationRequest
      func ignore(_: Int) {}
      """
    } expansion: {
      """
      func ignore(_: Int) {}

      nonisolated func $ignore(_ __argument0: Int) -> __macro_local_6ignorefMu_ {
        __macro_local_6ignorefMu_(__argument0: __argument0)
      }

      nonisolated struct __macro_local_6ignorefMu_: OperationCore.OperationRequest {
          let __argument0: Int
          var _debugTypeName: String {
            "ignore"
          }
          func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Void, Never>
          ) async throws(Never) -> Void {
            ignore(self.__argument0)
          }
      }
      """
    }
  }

  @Test func `Reserved Parameters Receive The Run's Values And Are Not Stored`() {
    assertMacro {
      """
      @OperationRequest
      func number(
        isolation: isolated (any Actor)? = #isolation,
        in context: OperationContext,
        with continuation: OperationContinuation<Int, any Error>,
        value: Int
      ) async throws -> Int { value }
      """
    } expansion: {
      """
      func number(
        isolation: isolated (any Actor)? = #isolation,
        in context: OperationContext,
        with continuation: OperationContinuation<Int, any Error>,
        value: Int
      ) async throws -> Int { value }

      nonisolated func $number(value: Int) -> __macro_local_6numberfMu_ {
        __macro_local_6numberfMu_(value: value)
      }

      nonisolated struct __macro_local_6numberfMu_: OperationCore.OperationRequest {
        let value: Int
        var _debugTypeName: String {
          "number"
        }
        func run(
          isolation: isolated (any Actor)?,
          in context: OperationCore.OperationContext,
          with continuation: OperationCore.OperationContinuation<Int, any Error>
        ) async throws(any Error) -> Int {
          try await number(isolation: isolation, in: context, with: continuation, value: self.value)
        }
      }
      """
    }
  }

  @Test func `A Static Method Stores Its Type`() {
    assertMacro {
      """
      struct API {
        @OperationRequest
        static func number() async -> Int { 1 }
      }
      """
    } expansion: {
      """
      struct API {
        static func number() async -> Int { 1 }

        nonisolated static var $number: __macro_local_6numberfMu_ {
          __macro_local_6numberfMu_(__parentType: _OperationHashableMetatype(type: self))
        }

        nonisolated struct __macro_local_6numberfMu_: OperationCore.OperationRequest {
          let __parentType: _OperationHashableMetatype<API>
          var _debugTypeName: String {
            "API.number"
          }
          func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Int, Never>
          ) async throws(Never) -> Int {
            await self.__parentType.type.number()
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
        @OperationRequest
        func number(id: Int) async throws -> Int { id }
      }
      """
    } expansion: {
      """
      extension Outer.API {
        func number(id: Int) async throws -> Int { id }

        nonisolated func $number(id: Int) -> __macro_local_6numberfMu_ {
          __macro_local_6numberfMu_(id: id, __parent: self)
        }

        nonisolated struct __macro_local_6numberfMu_: OperationCore.OperationRequest {
          let id: Int
          let __parent: Outer.API
          var _debugTypeName: String {
            "Outer.API.number"
          }
          func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Int, any Error>
          ) async throws(any Error) -> Int {
            try await self.__parent.number(id: self.id)
          }
        }
      }
      """
    }
  }

  @Test func `An Actor's Method Is Awaited`() {
    assertMacro {
      """
      actor Counter {
        @OperationRequest
        func count() -> Int { 1 }
      }
      """
    } expansion: {
      """
      actor Counter {
        func count() -> Int { 1 }

        nonisolated var $count: __macro_local_5countfMu_ {
          __macro_local_5countfMu_(__parent: self)
        }

        nonisolated struct __macro_local_5countfMu_: OperationCore.OperationRequest {
          let __parent: Counter
          var _debugTypeName: String {
            "Counter.count"
          }
          func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Int, Never>
          ) async throws(Never) -> Int {
            await self.__parent.count()
          }
        }
      }
      """
    }
  }

  @Test func `Access Levels And Availability Are Copied To The Request`() {
    assertMacro {
      """
      @available(macOS 15, *)
      public func number() -> Int { 1 }
      @OperationRequest
      @available(macOS 15, *)
      public func publicNumber() -> Int { 1 }
      @OperationRequest
      private func privateNumber() -> Int { 1 }
      """
    } expansion: {
      """
      @available(macOS 15, *)
      public func number() -> Int { 1 }
      @available(macOS 15, *)
      public func publicNumber() -> Int { 1 }

      @available(macOS 15, *)
      public nonisolated var $publicNumber: __macro_local_12publicNumberfMu_ {
        __macro_local_12publicNumberfMu_()
      }

      @available(macOS 15, *)
      public nonisolated struct __macro_local_12publicNumberfMu_: OperationCore.OperationRequest {
          public var _debugTypeName: String {
            "publicNumber"
          }
          public func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Int, Never>
          ) async throws(Never) -> Int {
            publicNumber()
          }
      }
      private func privateNumber() -> Int { 1 }

      private nonisolated var $privateNumber: __macro_local_13privateNumberfMu_ {
        __macro_local_13privateNumberfMu_()
      }

      private nonisolated struct __macro_local_13privateNumberfMu_: OperationCore.OperationRequest {
          var _debugTypeName: String {
            "privateNumber"
          }
          func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Int, Never>
          ) async throws(Never) -> Int {
            privateNumber()
          }
      }
      """
    }
  }

  @Test func `A Typed Throw And A Sending Result Become The Request's Failure And Value`() {
    assertMacro {
      """
      @OperationRequest
      func load() async throws(LoadError) -> sending Value { Value() }
      """
    } expansion: {
      """
      func load() async throws(LoadError) -> sending Value { Value() }

      nonisolated var $load: __macro_local_4loadfMu_ {
        __macro_local_4loadfMu_()
      }

      nonisolated struct __macro_local_4loadfMu_: OperationCore.OperationRequest {
          var _debugTypeName: String {
            "load"
          }
          func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Value, LoadError>
          ) async throws(LoadError) -> Value {
            try await load()
          }
      }
      """
    }
  }

  @Test func `A Generic Function Gets A Generic Request`() {
    assertMacro {
      """
      @OperationRequest
      func echo<T: Sendable>(_ value: T) async -> T where T: Hashable { value }
      """
    } expansion: {
      """
      func echo<T: Sendable>(_ value: T) async -> T where T: Hashable { value }

      nonisolated func $echo<T: Sendable>(_ value: T) -> __macro_local_4echofMu_<T> where T: Hashable {
        __macro_local_4echofMu_<T>(value: value)
      }

      nonisolated struct __macro_local_4echofMu_<T: Sendable>: OperationCore.OperationRequest where T: Hashable {
          let value: T
          var _debugTypeName: String {
            "echo"
          }
          func run(
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

  @Test func `A Variadic Parameter Is An Error With A Fix-It`() {
    assertMacro {
      """
      @OperationRequest
      func sum(_ values: Int...) -> Int { 0 }
      """
    } diagnostics: {
      """
      @OperationRequest
      func sum(_ values: Int...) -> Int { 0 }
                            ┬──
                            ╰─ 🛑 @OperationRequest stores each argument, and cannot store a variadic one: take an array instead
                               ✏️ Take an array
      """
    } fixes: {
      """
      @OperationRequest
      func sum(_ values: [Int]) -> Int { 0 }
      """
    } expansion: {
      """
      func sum(_ values: [Int]) -> Int { 0 }

      nonisolated func $sum(_ values: [Int]) -> __macro_local_3sumfMu_ {
        __macro_local_3sumfMu_(values: values)
      }

      nonisolated struct __macro_local_3sumfMu_: OperationCore.OperationRequest {
          let values: [Int]
          var _debugTypeName: String {
            "sum"
          }
          func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Int, Never>
          ) async throws(Never) -> Int {
            sum(self.values)
          }
      }
      """
    }
  }

  @Test func `An Inout Parameter Is An Error With A Fix-It`() {
    assertMacro {
      """
      @OperationRequest
      func bump(_ value: inout Int) {}
      """
    } diagnostics: {
      """
      @OperationRequest
      func bump(_ value: inout Int) {}
                         ┬────
                         ╰─ 🛑 @OperationRequest stores each argument, and cannot write an 'inout' one back: take the value and return the result instead
                            ✏️ Remove 'inout'
      """
    } fixes: {
      """
      @OperationRequest
      func bump(_ value: Int) {}
      """
    } expansion: {
      """
      func bump(_ value: Int) {}

      nonisolated func $bump(_ value: Int) -> __macro_local_4bumpfMu_ {
        __macro_local_4bumpfMu_(value: value)
      }

      nonisolated struct __macro_local_4bumpfMu_: OperationCore.OperationRequest {
          let value: Int
          var _debugTypeName: String {
            "bump"
          }
          func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Void, Never>
          ) async throws(Never) -> Void {
            bump(self.value)
          }
      }
      """
    }
  }

  @Test func `A Macro On Something Other Than A Function Is An Error`() {
    assertMacro {
      """
      @OperationRequest
      var number: Int { 1 }
      """
    } diagnostics: {
      """
      @OperationRequest
      ┬────────────────
      ╰─ 🛑 @OperationRequest applies only to functions: attach it to a 'func' that does the work
      var number: Int { 1 }
      """
    }
  }

  @Test func `An Isolation Parameter Of Another Type Is An Error With A Fix-It`() {
    assertMacro {
      """
      @OperationRequest
      func number(isolation: any Actor) -> Int { 1 }
      """
    } diagnostics: {
      """
      @OperationRequest
      func number(isolation: any Actor) -> Int { 1 }
                             ┬────────
                             ╰─ 🛑 @OperationRequest passes the run's isolation to the 'isolation' parameter, which must be of type 'isolated (any Actor)?': change its type, or rename the parameter
                                ✏️ Change the type to 'isolated (any Actor)?'
      """
    } fixes: {
      """
      @OperationRequest
      func number(isolation: isolated (any Actor)?) -> Int { 1 }
      """
    } expansion: {
      """
      func number(isolation: isolated (any Actor)?) -> Int { 1 }

      nonisolated var $number: __macro_local_6numberfMu_ {
        __macro_local_6numberfMu_()
      }

      nonisolated struct __macro_local_6numberfMu_: OperationCore.OperationRequest {
          var _debugTypeName: String {
            "number"
          }
          func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Int, Never>
          ) async throws(Never) -> Int {
            number(isolation: isolation)
          }
      }
      """
    }
  }

  @Test func `A Context Parameter Of Another Type Is An Error With A Fix-It`() {
    assertMacro {
      """
      @OperationRequest
      func number(context: Int) -> Int { 1 }
      """
    } diagnostics: {
      """
      @OperationRequest
      func number(context: Int) -> Int { 1 }
                           ┬──
                           ╰─ 🛑 @OperationRequest passes the run's context to the 'context' parameter, which must be of type 'OperationContext': change its type, or rename the parameter
                              ✏️ Change the type to 'OperationContext'
      """
    } fixes: {
      """
      @OperationRequest
      func number(context: OperationContext) -> Int { 1 }
      """
    } expansion: {
      """
      func number(context: OperationContext) -> Int { 1 }

      nonisolated var $number: __macro_local_6numberfMu_ {
        __macro_local_6numberfMu_()
      }

      nonisolated struct __macro_local_6numberfMu_: OperationCore.OperationRequest {
          var _debugTypeName: String {
            "number"
          }
          func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Int, Never>
          ) async throws(Never) -> Int {
            number(context: context)
          }
      }
      """
    }
  }

  @Test func `A Continuation Parameter Of Another Type Is An Error With A Fix-It`() {
    assertMacro {
      """
      @OperationRequest
      func number(continuation: Int) throws -> Int { 1 }
      """
    } diagnostics: {
      """
      @OperationRequest
      func number(continuation: Int) throws -> Int { 1 }
                                ┬──
                                ╰─ 🛑 @OperationRequest passes the run's continuation to the 'continuation' parameter, which must be of type 'OperationContinuation<Int, any Error>': change its type, or rename the parameter
                                   ✏️ Change the type to 'OperationContinuation<Int, any Error>'
      """
    } fixes: {
      """
      @OperationRequest
      func number(continuation: OperationContinuation<Int, any Error>) throws -> Int { 1 }
      """
    } expansion: {
      """
      func number(continuation: OperationContinuation<Int, any Error>) throws -> Int { 1 }

      nonisolated var $number: __macro_local_6numberfMu_ {
        __macro_local_6numberfMu_()
      }

      nonisolated struct __macro_local_6numberfMu_: OperationCore.OperationRequest {
          var _debugTypeName: String {
            "number"
          }
          func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Int, any Error>
          ) async throws(any Error) -> Int {
            try number(continuation: continuation)
          }
      }
      """
    }
  }

  @Test func `A Mutating Method Is An Error With A Fix-It`() {
    // NB: The diagnostic and its fix-it are what this test pins. swift-macro-testing expands the
    // fixed source without its enclosing type (it gives the macro no lexical context there), so
    // the expansion below lacks the `__parent` that a real build of the fixed method generates;
    // the member tests (`instanceMethodInExtension`, `nestedType`) pin that expansion.
    assertMacro {
      """
      struct Counter {
        @OperationRequest
        mutating func bump() -> Int { 1 }
      }
      """
    } diagnostics: {
      """
      struct Counter {
        @OperationRequest
        mutating func bump() -> Int { 1 }
        ┬───────
        ╰─ 🛑 @OperationRequest calls the method on a copy of 'Counter' that it cannot change: remove 'mutating'
           ✏️ Remove 'mutating'
      }
      """
    } fixes: {
      """
      struct Counter {
        @OperationRequest
        func bump() -> Int { 1 }
      }
      """
    } expansion: {
      """
      struct Counter {
        func bump() -> Int { 1 }

        nonisolated var $bump: __macro_local_4bumpfMu_ {
          __macro_local_4bumpfMu_()
        }

        nonisolated struct __macro_local_4bumpfMu_: OperationCore.OperationRequest {
          var _debugTypeName: String {
            "bump"
          }
          func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Int, Never>
          ) async throws(Never) -> Int {
            bump()
          }
        }
      }
      """
    }
  }

  @Test func `A Function Named Like A Member Of The Request Is An Error`() {
    assertMacro {
      """
      @OperationRequest
      func run() -> Int { 1 }
      """
    } diagnostics: {
      """
      @OperationRequest
      func run() -> Int { 1 }
           ┬──
           ╰─ 🛑 @OperationRequest generates a request with a member named 'run', which would hide this function: rename the function
      """
    }
  }
  @Test func `Repeated Labels Are Stored Under Their Parameter Names`() {
    assertMacro {
      """
      @OperationRequest
      func between(value a: Int, value b: Int) -> Bool { a < b }
      """
    } expansion: {
      """
      func between(value a: Int, value b: Int) -> Bool { a < b }

      nonisolated func $between(value a: Int, value b: Int) -> __macro_local_7betweenfMu_ {
        __macro_local_7betweenfMu_(a: a, b: b)
      }

      nonisolated struct __macro_local_7betweenfMu_: OperationCore.OperationRequest {
          let a: Int
          let b: Int
          var _debugTypeName: String {
            "between"
          }
          func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Bool, Never>
          ) async throws(Never) -> Bool {
            between(value: self.a, value: self.b)
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
          @OperationRequest
          class func number() -> Int { 1 }
        }
      }
      """
    } expansion: {
      """
      struct Outer {
        final class API {
          class func number() -> Int { 1 }

          nonisolated static var $number: __macro_local_6numberfMu_ {
            __macro_local_6numberfMu_(__parentType: _OperationHashableMetatype(type: self))
          }

          nonisolated struct __macro_local_6numberfMu_: OperationCore.OperationRequest {
            let __parentType: _OperationHashableMetatype<API>
            var _debugTypeName: String {
              "API.number"
            }
            func run(
              isolation: isolated (any Actor)?,
              in context: OperationCore.OperationContext,
              with continuation: OperationCore.OperationContinuation<Int, Never>
            ) async throws(Never) -> Int {
              self.__parentType.type.number()
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
        @OperationRequest
        func load() -> Int { 1 }
      }
      """
    } expansion: {
      """
      @MainActor
      final class Model {
        func load() -> Int { 1 }

        nonisolated var $load: __macro_local_4loadfMu_ {
          __macro_local_4loadfMu_(__parent: self)
        }

        nonisolated struct __macro_local_4loadfMu_: OperationCore.OperationRequest {
          let __parent: Model
          var _debugTypeName: String {
            "Model.load"
          }
          func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Int, Never>
          ) async throws(Never) -> Int {
            await self.__parent.load()
          }
        }
      }
      """
    }
  }

  @Test func `A Local Function Expands As A Top-Level Function Does`() {
    assertMacro {
      """
      func outer() {
        @OperationRequest
        func inner() -> Int { 1 }
      }
      """
    } expansion: {
      """
      func outer() {
        func inner() -> Int { 1 }

        nonisolated var $inner: __macro_local_5innerfMu_ {
          __macro_local_5innerfMu_()
        }

        nonisolated struct __macro_local_5innerfMu_: OperationCore.OperationRequest {
          var _debugTypeName: String {
            "inner"
          }
          func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Int, Never>
          ) async throws(Never) -> Int {
            inner()
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
        @OperationRequest
        func inner() -> Int { 1 }
      }
      """
    } expansion: {
      """
      let work = {
        func inner() -> Int { 1 }

        nonisolated var $inner: __macro_local_5innerfMu_ {
          __macro_local_5innerfMu_()
        }

        nonisolated struct __macro_local_5innerfMu_: OperationCore.OperationRequest {
          var _debugTypeName: String {
            "inner"
          }
          func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Int, Never>
          ) async throws(Never) -> Int {
            inner()
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
          @OperationRequest
          func inner() -> Int { 1 }
        }
      }
      """
    } diagnostics: {
      """
      struct API {
        func outer() {
          @OperationRequest
          ┬────────────────
          ╰─ 🛑 @OperationRequest cannot generate a request from a local function inside a type: the request could not call it; make it a method of the type
          func inner() -> Int { 1 }
        }
      }
      """
    }
  }

  @Test func `A Function Requirement In A Protocol Is An Error`() {
    assertMacro {
      """
      protocol API {
        @OperationRequest
        func number() -> Int
      }
      """
    } diagnostics: {
      """
      protocol API {
        @OperationRequest
        ┬────────────────
        ╰─ 🛑 @OperationRequest cannot generate a request inside a protocol: move the function into a type or an extension
        func number() -> Int
      }
      """
    }
  }

  @Test func `An Opaque Parameter Is An Error`() {
    assertMacro {
      """
      @OperationRequest
      func describe(_ value: some Sendable) -> String { "" }
      """
    } diagnostics: {
      """
      @OperationRequest
      func describe(_ value: some Sendable) -> String { "" }
                             ┬────────────
                             ╰─ 🛑 @OperationRequest stores each argument, and cannot store an opaque 'some' one: declare a generic parameter instead
      """
    }
  }

  @Test func `An Opaque Result Is An Error`() {
    assertMacro {
      """
      @OperationRequest
      func make() -> some Sendable { 1 }
      """
    } diagnostics: {
      """
      @OperationRequest
      func make() -> some Sendable { 1 }
                     ┬────────────
                     ╰─ 🛑 @OperationRequest needs the function's result type by name: replace the opaque 'some' type with a concrete type
      """
    }
  }

  @Test func `A Rethrowing Function Is An Error With A Fix-It`() {
    assertMacro {
      """
      @OperationRequest
      func number() rethrows -> Int { 1 }
      """
    } diagnostics: {
      """
      @OperationRequest
      func number() rethrows -> Int { 1 }
                    ┬───────
                    ╰─ 🛑 @OperationRequest cannot generate a request from a 'rethrows' function: use 'throws'
                       ✏️ Replace 'rethrows' with 'throws'
      """
    } fixes: {
      """
      @OperationRequest
      func number() throws -> Int { 1 }
      """
    } expansion: {
      """
      func number() throws -> Int { 1 }

      nonisolated var $number: __macro_local_6numberfMu_ {
        __macro_local_6numberfMu_()
      }

      nonisolated struct __macro_local_6numberfMu_: OperationCore.OperationRequest {
          var _debugTypeName: String {
            "number"
          }
          func run(
            isolation: isolated (any Actor)?,
            in context: OperationCore.OperationContext,
            with continuation: OperationCore.OperationContinuation<Int, any Error>
          ) async throws(any Error) -> Int {
            try number()
          }
      }
      """
    }
  }

  @Test func `A Parameter Named Like A Member Of The Request Is An Error`() {
    assertMacro {
      """
      @OperationRequest
      func number(run: Int) -> Int { run }
      """
    } diagnostics: {
      """
      @OperationRequest
      func number(run: Int) -> Int { run }
                  ┬───────
                  ╰─ 🛑 @OperationRequest stores the argument 'run' in a property that would hide a member of the request: rename the parameter
      """
    }
  }
}
