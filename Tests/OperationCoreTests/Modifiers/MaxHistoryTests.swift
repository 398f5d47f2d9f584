import Foundation
@_spi(Warnings) import OperationCore
import OperationTestSupport
import Testing

@Suite struct `MaxHistory tests` {
  @Test func `The Default Length Is One Hundred`() {
    #expect(OperationContext.defaultMaxHistoryLength == 100)
    #expect(OperationContext().maxHistoryLength == OperationContext.defaultMaxHistoryLength)
  }

  @Test func `By Default The History Keeps Only The Newest Default Length Attempts`()
    async throws
  {
    let length = OperationContext.defaultMaxHistoryLength
    let store = OperationStore.detached(mutation: EchoMutation())
    for index in 0..<(length + 20) {
      try await store.mutate(with: "\(index)")
    }
    #expect(store.history.count == length)
    #expect(store.history.map(\.arguments) == (20..<(length + 20)).map { "\($0)" })
    #expect(store.currentValue == "\(length + 19)")
  }

  @Test func `Max History Above The Default Keeps More Attempts`() async throws {
    let length = OperationContext.defaultMaxHistoryLength + 50
    let store = OperationStore.detached(mutation: EchoMutation().maxHistory(length: length))
    for index in 0..<(length + 10) {
      try await store.mutate(with: "\(index)")
    }
    #expect(store.history.count == length)
    #expect(store.history.first?.arguments == "10")
  }

  @Test func `Max History Of Int Max Keeps Every Attempt`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation().maxHistory(length: .max))
    let count = OperationContext.defaultMaxHistoryLength + 20
    for index in 0..<count {
      try await store.mutate(with: "\(index)")
    }
    #expect(store.history.count == count)
  }

  @Test func `Length One Keeps Only The Latest Attempt`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation().maxHistory(length: 1))
    #expect(store.context.maxHistoryLength == 1)
    try await store.mutate(with: "blob")
    #expect(store.history.count == 1)
    #expect(try store.history[0].currentResult?.get() == "blob")

    try await store.mutate(with: "blob jr")
    #expect(store.history.count == 1)
    #expect(try store.history[0].currentResult?.get() == "blob jr")
  }

  @Test func `Length Two Cycles Out The Oldest Attempts`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation().maxHistory(length: 2))
    try await store.mutate(with: "blob")
    try await store.mutate(with: "blob jr")
    try await store.mutate(with: "blob sr")
    #expect(store.history.count == 2)
    #expect(store.history.map { try? $0.currentResult?.get() } == ["blob jr", "blob sr"])
  }

  @Test func `Results Of Evicted Attempts Do Not Touch The State`() async throws {
    let mutation = EchoMutation(failingArguments: ["blob"])
    let store = OperationStore.detached(mutation: mutation.maxHistory(length: 2))
    let evicted = store.mutateTask(with: "blob")
    try await store.mutate(with: "blob jr")
    try await store.mutate(with: "blob sr")

    await #expect(throws: TestError(message: "Failed for blob.")) {
      try await evicted.runIfNeeded()
    }
    #expect(store.error == nil)
    #expect(store.errorUpdateCount == 0)
    #expect(store.valueUpdateCount == 2)
    #expect(store.currentValue == "blob sr")
    #expect(store.history.map(\.arguments) == ["blob jr", "blob sr"])
    #expect(store.history.map { try? $0.currentResult?.get() } == ["blob jr", "blob sr"])
  }

  @Test func `An Evicted Attempt In Flight Still Finishes Without Touching The State`() async throws
  {
    let mutation = GatedMutation()
    let store = OperationStore.detached(mutation: mutation.maxHistory(length: 1))
    let running = Task { try await store.mutate(with: "old") }
    await mutation.gates.waitUntilStarted("old")

    mutation.gates.release("new")
    try await store.mutate(with: "new")
    #expect(store.history.map(\.arguments) == ["new"])

    mutation.gates.release("old")
    #expect(try await running.value == "old")
    #expect(store.currentValue == "new")
    #expect(store.valueUpdateCount == 1)
    #expect(store.history.map(\.arguments) == ["new"])
  }

  @Test(arguments: [0, -3])
  func `A Length Below One Is Reported And Keeps The Latest Attempt`(length: Int) async throws {
    var mutation: ModifiedOperation<EchoMutation, _MaxHistoryLengthModifier<EchoMutation>>?
    withKnownIssue {
      mutation = EchoMutation().maxHistory(length: length)
    } matching: { issue in
      issue.comments.contains(
        Comment(rawValue: OperationWarning.mutationMaxHistoryLengthNotPositive(length).message)
      )
    }
    let store = OperationStore.detached(mutation: try #require(mutation))
    #expect(store.context.maxHistoryLength == 1)
    try await store.mutate(with: "blob")
    try await store.mutate(with: "blob jr")
    #expect(store.history.map(\.arguments) == ["blob jr"])
  }

  @Test func `The Innermost Max History Wins`() {
    let store = OperationStore.detached(
      mutation: EchoMutation().maxHistory(length: 3).maxHistory(length: 8)
    )
    #expect(store.context.maxHistoryLength == 3)
  }

  @Test func `Lowering The Context's Length Trims On The Next Attempt`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation())
    for index in 0..<5 {
      try await store.mutate(with: "\(index)")
    }
    store.context.maxHistoryLength = 2
    #expect(store.history.count == 5)
    try await store.mutate(with: "5")
    #expect(store.history.map(\.arguments) == ["4", "5"])
  }

  @Test func `A Context Length Below One Counts As One`() async throws {
    let store = OperationStore.detached(mutation: EchoMutation())
    store.context.maxHistoryLength = 0
    try await store.mutate(with: "blob")
    try await store.mutate(with: "blob jr")
    #expect(store.history.map(\.arguments) == ["blob jr"])
    #expect(store.currentValue == "blob jr")
  }

  @Test func `A Store Run Thousands Of Times Keeps Only The Max History`() async throws {
    let mutation = EchoMutation()
    let store = OperationStore.detached(mutation: mutation.maxHistory(length: 3))
    for index in 0..<2_000 {
      try await store.mutate(with: "\(index)")
      #expect(store.history.count <= 3)
    }
    #expect(mutation.attempts.value == 2_000)
    #expect(store.history.map(\.arguments) == ["1997", "1998", "1999"])
    #expect(store.valueUpdateCount == 2_000)
    #expect(store.currentValue == "1999")
  }
}
