import SharingOperation
import Testing

@Suite struct `DependencyValues+DefaultOperationClient tests` {
  @Test func `A Test Reads One Client Throughout`() {
    @Dependency(\.defaultOperationClient) var first
    @Dependency(\.defaultOperationClient) var second
    #expect(first === second)
  }

  @Test func `The Test Client Uses The Testing Store Creator`() async {
    @Dependency(\.defaultOperationClient) var client
    let query = FailingQuery()
    let store = client.store(for: query)

    await #expect(throws: TestError.self) {
      try await store.fetch()
    }
    // NB: The live store creator retries three times; the testing one does not retry.
    #expect(query.fetches.value == 1)
  }

  @Test func `Wrappers Without A Client Use The Dependency`() {
    let client = OperationClient()
    let query = TestQuery().disableAutomaticRunning()
    let value = withDependencies {
      $0.defaultOperationClient = client
    } operation: {
      SharedOperation(query)
    }
    #expect(value.store === client.store(for: query))
  }

  @Test func `Operations Read Dependencies When They Run`() async throws {
    @Dependency(\.defaultOperationClient) var client
    let store = client.store(for: DependencyQuery())

    try await withDependencies {
      $0[NumberKey.self] = 10
    } operation: {
      let value = try await store.fetch()
      #expect(value == 10)
    }
    #expect(try await store.fetch() == 0)
  }
}

/// A query that returns the ``NumberKey`` dependency as it is when the query runs.
private struct DependencyQuery: QueryRequest, Hashable {
  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    @Dependency(NumberKey.self) var number
    return number
  }
}

private enum NumberKey: TestDependencyKey {
  static var testValue: Int { 0 }
}
