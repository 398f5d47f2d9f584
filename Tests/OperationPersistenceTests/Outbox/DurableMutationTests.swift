import Foundation
import Operation
import OperationPersistence
import Testing

@Suite(.timeLimit(.minutes(1))) struct `DurableMutation tests` {
  private let database = TemporaryDatabase()

  @Test func `A Kind Registered For Another Mutation Type Is Refused, Never Delivered`()
    async throws
  {
    let outbox = try await MutationOutbox(storage: try self.database.open())
    let first = Echo(prefix: "first").durable(in: outbox, kind: "echo")
    // NB: On the old outbox the second registration replaced the first, and the delivery of an
    // entry by a mutation of another value type trapped on a forced cast.
    var second: ModifiedOperation<Count, _DurableMutationModifier<Count>>?
    withKnownIssue {
      second = Count().durable(in: outbox, kind: "echo")
    } matching: { issue in
      issue.description.contains("The outbox kind 'echo' is registered for")
    }
    try await outbox.resume()
    let client = OperationClient()

    let error = await #expect(throws: MutationOutbox.KindConflictError.self) {
      try await client.store(for: #require(second)).mutate(with: "x")
    }
    #expect(error?.kind == "echo")
    #expect(error?.mutationType.hasSuffix("Count") == true)
    #expect(try await outbox.entries().isEmpty)
    #expect(try await client.store(for: first).mutate(with: "y") == "first y")
  }

  @Test func `Registering A Kind Again With The Same Type Replaces The Mutation`() async throws {
    let outbox = try await MutationOutbox(storage: try self.database.open())
    _ = Echo(prefix: "old").durable(in: outbox, kind: "echo")
    let echo = Echo(prefix: "new").durable(in: outbox, kind: "echo")
    try await outbox.resume()
    #expect(try await OperationClient().store(for: echo).mutate(with: "z") == "new z")
  }
}

private struct Echo: MutationRequest, Hashable {
  let prefix: String

  func mutate(
    isolation: isolated (any Actor)?,
    with arguments: String,
    in context: OperationContext,
    with continuation: OperationContinuation<String, any Error>
  ) async throws -> String {
    "\(self.prefix) \(arguments)"
  }
}

private struct Count: MutationRequest, Hashable {
  func mutate(
    isolation: isolated (any Actor)?,
    with arguments: String,
    in context: OperationContext,
    with continuation: OperationContinuation<Int, any Error>
  ) async throws -> Int {
    arguments.count
  }
}
