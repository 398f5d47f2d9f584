import Foundation
import OperationCore
import Testing

@Suite struct `OperationContext tests` {
  @Test func `Unset Entry Reads The Default Value`() {
    let context = OperationContext()
    #expect(context.testNumber == 10)
  }

  @Test func `Set Entry Reads The Set Value`() {
    var context = OperationContext()
    context.testNumber = 42
    #expect(context.testNumber == 42)
    #expect(context[OperationContext.TestNumberKey.self] == 42)
  }

  @Test func `Copy Does Not See Later Writes To The Original`() {
    var original = OperationContext()
    original.testNumber = 1
    let copy = original
    original.testNumber = 2
    #expect(copy.testNumber == 1)
    #expect(original.testNumber == 2)
  }

  @Test func `Static Var Default Is Recomputed On Every Read`() {
    let context = OperationContext()
    #expect(
      context[OperationContext.ComputedIDKey.self] != context[OperationContext.ComputedIDKey.self]
    )
  }

  @Test func `Static Let Default Is Computed Once`() {
    let context = OperationContext()
    #expect(
      context[OperationContext.StoredIDKey.self] == context[OperationContext.StoredIDKey.self]
    )
    #expect(
      context[OperationContext.StoredIDKey.self]
        == OperationContext()[OperationContext.StoredIDKey.self]
    )
  }

  @Test func `Description Lists Set Entries By Key Type Name`() {
    var context = OperationContext()
    #expect(context.description == "[]")
    context.testNumber = 42
    #expect(context.description.contains("OperationContext.TestNumberKey = 42"))
  }

  @Test func `Description Names A Private Key Without Module Or Context Noise`() {
    var context = OperationContext()
    context[OperationContext.PrivateKey.self] = 1
    #expect(context.description == "[OperationContext.PrivateKey = 1]")
  }
}

extension OperationContext {
  fileprivate var testNumber: Int {
    get { self[OperationContext.TestNumberKey.self] }
    set { self[OperationContext.TestNumberKey.self] = newValue }
  }

  enum TestNumberKey: Key {
    static let defaultValue = 10
  }

  fileprivate enum ComputedIDKey: Key {
    static var defaultValue: UUID { UUID() }
  }

  fileprivate enum StoredIDKey: Key {
    static let defaultValue = UUID()
  }

  fileprivate enum PrivateKey: Key {
    static let defaultValue = 0
  }

  @Test func `Setting An Entry Again Replaces It And Keeps The Others`() {
    var context = OperationContext()
    context.testNumber = 1
    context.operationMaxRetries = 3
    context.testNumber = 2
    #expect(context.testNumber == 2)
    #expect(context.operationMaxRetries == 3)
    #expect(context.description.components(separatedBy: "TestNumberKey").count == 2)
  }
}
