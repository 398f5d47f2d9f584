import MacroTesting
import OperationMacros
import Testing

@Suite(.macros(["ContextEntry": ContextEntryMacro.self]))
struct ContextEntryMacroTests {
  @Test func `The Initial Value Is The Default Value`() {
    assertMacro {
      """
      extension OperationContext {
        @ContextEntry var count = 0
      }
      """
    } expansion: {
      """
      extension OperationContext {
        var count {
          get {
            self[__Key_count.self]
          }
          set {
            self[__Key_count.self] = newValue
          }
        }

        private struct __Key_count: OperationCore.OperationContext.Key {
          static let defaultValue = 0
        }
      }
      """
    }
  }

  @Test func `An Optional Without An Initial Value Defaults To Nil`() {
    assertMacro {
      """
      extension OperationContext {
        @ContextEntry var name: String?
      }
      """
    } expansion: {
      """
      extension OperationContext {
        var name: String? {
          get {
            self[__Key_name.self]
          }
          set {
            self[__Key_name.self] = newValue
          }
        }

        private struct __Key_name: OperationCore.OperationContext.Key {
          static let defaultValue: String? = nil
        }
      }
      """
    }
  }

  @Test func `An Implicitly Unwrapped Optional Is Stored As An Optional`() {
    assertMacro {
      """
      extension OperationContext {
        @ContextEntry var name: String! = "a"
      }
      """
    } expansion: {
      """
      extension OperationContext {
        var name: String! {
          get {
            self[__Key_name.self]
          }
          set {
            self[__Key_name.self] = newValue
          }
        }

        private struct __Key_name: OperationCore.OperationContext.Key {
          static let defaultValue: String? = "a"
        }
      }
      """
    }
  }

  @Test func `A Multiline Initial Value Is Kept Whole`() {
    assertMacro {
      """
      extension OperationContext {
        @ContextEntry
        var values: [Int] = [
          1,
          2,
        ]
      }
      """
    } expansion: {
      """
      extension OperationContext {
        var values: [Int] {
          get {
            self[__Key_values.self]
          }
          set {
            self[__Key_values.self] = newValue
          }
        }

        private struct __Key_values: OperationCore.OperationContext.Key {
          static let defaultValue: [Int] = [
            1,
            2,
          ]
        }
      }
      """
    }
  }

  @Test func `The Key Takes The Property's Access Level`() {
    assertMacro {
      """
      extension OperationContext {
        @ContextEntry public var count: Int = 0
        @ContextEntry private var other = "x"
      }
      """
    } expansion: {
      """
      extension OperationContext {
        public var count: Int {
          get {
            self[__Key_count.self]
          }
          set {
            self[__Key_count.self] = newValue
          }
        }

        private struct __Key_count: OperationCore.OperationContext.Key {
          static let defaultValue: Int = 0
        }
        private var other {
          get {
            self[__Key_other.self]
          }
          set {
            self[__Key_other.self] = newValue
          }
        }

        private struct __Key_other: OperationCore.OperationContext.Key {
          static let defaultValue = "x"
        }
      }
      """
    }
  }

  @Test func `A Module-Qualified OperationContext Extension Is Accepted`() {
    assertMacro {
      """
      extension OperationCore.OperationContext {
        @ContextEntry var count = 0
      }
      """
    } expansion: {
      """
      extension OperationCore.OperationContext {
        var count {
          get {
            self[__Key_count.self]
          }
          set {
            self[__Key_count.self] = newValue
          }
        }

        private struct __Key_count: OperationCore.OperationContext.Key {
          static let defaultValue = 0
        }
      }
      """
    }
  }

  @Test func `A Global Actor Stays On The Property`() {
    assertMacro {
      """
      extension OperationContext {
        @MainActor @ContextEntry var count = 0
      }
      """
    } expansion: {
      """
      extension OperationContext {
        @MainActor var count {
          get {
            self[__Key_count.self]
          }
          set {
            self[__Key_count.self] = newValue
          }
        }

        private struct __Key_count: OperationCore.OperationContext.Key {
          static let defaultValue = 0
        }
      }
      """
    }
  }

  @Test func `A Let Is An Error With A Fix-It`() {
    assertMacro {
      """
      extension OperationContext {
        @ContextEntry let count = 0
      }
      """
    } diagnostics: {
      """
      extension OperationContext {
        @ContextEntry let count = 0
                      ┬──
                      ╰─ 🛑 @ContextEntry needs a settable property: declare it with 'var' instead of 'let'
                         ✏️ Replace 'let' with 'var'
      }
      """
    } fixes: {
      """
      extension OperationContext {
        @ContextEntry var count = 0
      }
      """
    }
  }

  @Test func `A Computed Property Is An Error`() {
    assertMacro {
      """
      extension OperationContext {
        @ContextEntry var count: Int { 0 }
      }
      """
    } diagnostics: {
      """
      extension OperationContext {
        @ContextEntry var count: Int { 0 }
                                     ┬────
                                     ╰─ 🛑 @ContextEntry generates the accessors: remove them and give the property a default value instead
      }
      """
    }
  }

  @Test func `A Property Without A Default Is An Error With A Fix-It`() {
    assertMacro {
      """
      extension OperationContext {
        @ContextEntry var count: Int
      }
      """
    } diagnostics: {
      """
      extension OperationContext {
        @ContextEntry var count: Int
                          ┬─────────
                          ╰─ 🛑 @ContextEntry needs the entry's default value: add an initial value, or make the type optional to default to nil
                             ✏️ Add a default value
      }
      """
    } fixes: {
      """
      extension OperationContext {
        @ContextEntry var count: Int = <#default value#>
      }
      """
    }
  }

  @Test func `A Tuple Pattern Is An Error`() {
    assertMacro {
      """
      extension OperationContext {
        @ContextEntry var (a, b) = (1, 2)
      }
      """
    } diagnostics: {
      """
      extension OperationContext {
        @ContextEntry var (a, b) = (1, 2)
                          ┬──────────────
                          ╰─ 🛑 @ContextEntry declares one entry: write a single name, such as 'var name: Type = value'
      }
      """
    }
  }

  @Test func `A Property Outside An OperationContext Extension Is An Error`() {
    assertMacro {
      """
      extension Other {
        @ContextEntry var count = 0
      }
      """
    } diagnostics: {
      """
      extension Other {
        @ContextEntry var count = 0
        ┬────────────
        ╰─ 🛑 @ContextEntry declares an OperationContext entry: move this property into 'extension OperationContext { … }'
      }
      """
    }
  }

  @Test func `A Macro On Something Other Than A Variable Is An Error`() {
    assertMacro {
      """
      extension OperationContext {
        @ContextEntry func count() {}
      }
      """
    } diagnostics: {
      """
      extension OperationContext {
        @ContextEntry func count() {}
        ┬────────────
        ╰─ 🛑 @ContextEntry applies only to a 'var' in an extension of OperationContext
      }
      """
    }
  }

  @Test func `A Static Property Is An Error With A Fix-It`() {
    assertMacro {
      """
      extension OperationContext {
        @ContextEntry static var count = 0
      }
      """
    } diagnostics: {
      """
      extension OperationContext {
        @ContextEntry static var count = 0
                      ┬─────
                      ╰─ 🛑 @ContextEntry declares an entry of each context: remove 'static'
                         ✏️ Remove 'static'
      }
      """
    } fixes: {
      """
      extension OperationContext {
        @ContextEntry var count = 0
      }
      """
    }
  }
}
