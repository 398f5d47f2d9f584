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

  @Test func `The Running Task And The Result Reason Are Set And Cleared Apart`() {
    var context = OperationContext()
    let task = OperationTask<Int, Never>(context: context) { _, _ in 1 }
    context.operationRunningTaskIdentifier = task.id
    context.operationResultUpdateReason = .returnedFinalResult
    #expect(context.operationRunningTaskIdentifier == task.id)
    #expect(context.operationResultUpdateReason == .returnedFinalResult)

    context.operationResultUpdateReason = .yieldedResult
    #expect(context.operationRunningTaskIdentifier == task.id)
    #expect(context.operationResultUpdateReason == .yieldedResult)

    let copy = context
    context.operationRunningTaskIdentifier = nil
    #expect(context.operationRunningTaskIdentifier == nil)
    #expect(context.operationResultUpdateReason == .yieldedResult)
    #expect(copy.operationRunningTaskIdentifier == task.id)

    context.operationResultUpdateReason = nil
    #expect(context.operationResultUpdateReason == nil)
    #expect(context.description == "[]")
  }

  @Test func `Description Lists The Running Task And The Result Reason`() {
    var context = OperationContext()
    let task = OperationTask<Int, Never>(context: context) { _, _ in 1 }
    context.operationRunningTaskIdentifier = task.id
    context.operationResultUpdateReason = .returnedFinalResult
    #expect(
      context.description
        == "[operationRunningTaskIdentifier = \(task.id.debugDescription), "
        + "operationResultUpdateReason = Returned Final Result]"
    )
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

@Suite struct `OperationContext entries` {
  private final class Token: Sendable {}

  private enum FirstKey: OperationContext.Key {
    static let defaultValue = 0
  }

  private enum MiddleKey: OperationContext.Key {
    static let defaultValue = 0
  }

  private enum LastKey: OperationContext.Key {
    static let defaultValue = 0
  }

  private enum TokenKey: OperationContext.Key {
    static let defaultValue: Token? = nil
  }

  @Test func `Replacing An Entry Lets Go Of Its Old Value`() {
    var context = OperationContext()
    weak var replaced: Token?
    do {
      let token = Token()
      replaced = token
      context[TokenKey.self] = token
    }
    context[FirstKey.self] = 1
    context[MiddleKey.self] = 2
    context[TokenKey.self] = nil
    #expect(replaced == nil)
    #expect(context[FirstKey.self] == 1)
    #expect(context[MiddleKey.self] == 2)
  }

  @Test func `Replacing An Entry Of A Copy Leaves The Original And Keeps The Copy's Others`() {
    var original = OperationContext()
    original[FirstKey.self] = 1
    original[MiddleKey.self] = 2
    original[LastKey.self] = 3
    var copy = original
    copy[FirstKey.self] = 10
    copy[LastKey.self] = 30
    #expect(
      [original[FirstKey.self], original[MiddleKey.self], original[LastKey.self]] == [1, 2, 3]
        as [Int]
    )
    #expect(
      [copy[FirstKey.self], copy[MiddleKey.self], copy[LastKey.self]] == [10, 2, 30] as [Int]
    )
    #expect(copy.description.components(separatedBy: "FirstKey").count == 2)
    #expect(copy.description.components(separatedBy: "LastKey").count == 2)
  }

  @Test func `An Existential Value Reads Back As Its Key's Type`() {
    var context = OperationContext()
    context[AnyValueKey.self] = 5
    #expect(context[AnyValueKey.self] as? Int == 5)
    context[AnyValueKey.self] = "five"
    #expect(context[AnyValueKey.self] as? String == "five")
  }

  private enum AnyValueKey: OperationContext.Key {
    static let defaultValue: any Sendable = 0
  }
}
