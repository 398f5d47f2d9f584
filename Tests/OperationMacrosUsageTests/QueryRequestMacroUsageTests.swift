import Operation
import Testing

@QueryRequest
private func macroDouble(_ value: Int) -> Int {
  value * 2
}

@QueryRequest(path: .inferredFromIdentifiable)
private func macroTitle(id: Int, suffix: String) async throws -> String {
  "\(id)\(suffix)"
}

@QueryRequest(path: .custom { (id: Int) in ["macro-post", id] })
private func macroPost(id: Int, path: OperationPath) -> String {
  "\(id) at \(path)"
}

@QueryRequest
private func macroStaged(
  value: Int,
  continuation: OperationContinuation<Int, Never>
) -> Int {
  continuation.yield(value)
  return value + 1
}

@QueryRequest(path: .custom { ["macro-all"] })
private func macroAll() -> [Int] {
  [1, 2]
}

@QueryRequest
private func macroWrap<T: Hashable & Sendable>(_ value: T) -> [T] {
  [value]
}

private enum MacroPosts {
  @QueryRequest
  static func count(offset: Int) -> Int {
    10 + offset
  }
}

@Suite struct QueryRequestMacroUsageTests {
  @Test func `The Hashable Path Is The Request`() async {
    let client = OperationClient()
    let store = client.store(for: $macroDouble(2))
    #expect(await store.fetch() == 4)
    #expect(store.currentValue == 4)
    #expect(client.store(for: $macroDouble(2)) === store)
    #expect(client.store(for: $macroDouble(3)) !== store)
    #expect($macroDouble(2).path == OperationPath($macroDouble(2)))
  }

  @Test func `The Identifiable Path Is The ID`() async throws {
    let client = OperationClient()
    let store = client.store(for: $macroTitle(id: 1, suffix: "a"))
    #expect(try await store.fetch() == "1a")
    #expect($macroTitle(id: 1, suffix: "a").path == [1])
    // NB: The same id is the same store, whatever the other arguments.
    #expect(client.store(for: $macroTitle(id: 1, suffix: "b")) === store)
  }

  @Test func `A Custom Path Reaches The Path Parameter`() async {
    let store = OperationClient().store(for: $macroPost(id: 7))
    #expect($macroPost(id: 7).path == ["macro-post", 7])
    let value = await store.fetch()
    #expect(value == "7 at \(OperationPath(["macro-post", 7]))")
  }

  @Test func `Yields Reach The Store`() async {
    let store = OperationStore.detached(query: $macroStaged(value: 1), initialValue: nil)
    #expect(await store.fetch() == 2)
  }

  @Test func `A Static Method Query Fetches Through Its Type`() async {
    let store = OperationClient().store(for: MacroPosts.$count(offset: 1))
    #expect(await store.fetch() == 11)
    #expect(MacroPosts.$count(offset: 1) == MacroPosts.$count(offset: 1))
    #expect(MacroPosts.$count(offset: 1)._debugTypeName == "MacroPosts.count")
  }

  @Test func `A Custom Path Without Arguments Is Used`() async {
    #expect($macroAll.path == ["macro-all"])
    #expect(await OperationClient().store(for: $macroAll).fetch() == [1, 2])
  }

  @Test func `A Generic Query Fetches For Each Type`() async {
    let client = OperationClient()
    #expect(await client.store(for: $macroWrap("a")).fetch() == ["a"])
    #expect(await client.store(for: $macroWrap(1)).fetch() == [1])
  }
}
