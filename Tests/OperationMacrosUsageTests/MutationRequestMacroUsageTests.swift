import Operation
import Testing

@MutationRequest
private func macroLike(arguments postID: Int) async throws -> String {
  "liked \(postID)"
}

@MutationRequest
private func macroRename(
  userID: Int,
  with arguments: String,
  continuation: OperationContinuation<String, Never>
) -> String {
  continuation.yield("renaming \(userID)")
  return "\(userID): \(arguments)"
}

@MutationRequest
private func macroRefresh() async {}

@Suite struct MutationRequestMacroUsageTests {
  @Test func `The Arguments Parameter Receives Each Mutation's Arguments`() async throws {
    let client = OperationClient()
    let store = client.store(for: $macroLike)
    #expect(try await store.mutate(with: 1) == "liked 1")
    #expect(try await store.mutate(with: 2) == "liked 2")
    #expect(store.history.map(\.arguments) == [1, 2])
    #expect(client.store(for: $macroLike) === store)
  }

  @Test func `Stored Parameters Identify The Store`() async {
    let client = OperationClient()
    let store = client.store(for: $macroRename(userID: 1))
    #expect(await store.mutate(with: "a") == "1: a")
    #expect(client.store(for: $macroRename(userID: 1)) === store)
    #expect(client.store(for: $macroRename(userID: 2)) !== store)
    #expect($macroRename(userID: 1)._debugTypeName == "macroRename")
  }

  @Test func `A Mutation Without Arguments Mutates With Void`() async {
    let store = OperationClient().store(for: $macroRefresh)
    await store.mutate()
    #expect(store.history.count == 1)
  }
}

private struct Arguments: Sendable, Equatable {
  let name: String
}

private struct Value: Sendable, Equatable {
  let name: String
}

@MutationRequest
private func macroNamed(arguments: Arguments) -> Value {
  Value(name: arguments.name)
}

@Suite struct MutationRequestMacroNamingTests {
  @Test func `Types Named Like The Associated Types Compile`() async {
    let store = OperationClient().store(for: $macroNamed)
    #expect(await store.mutate(with: Arguments(name: "a")) == Value(name: "a"))
  }
}
