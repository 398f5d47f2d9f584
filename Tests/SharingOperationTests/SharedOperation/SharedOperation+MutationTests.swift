@_spi(Warnings) import SharingOperation
import Testing

// Pins upstream's MutationKeyTests (reference §17) and the rest of the mutation projected API.

@Suite struct `SharedOperation+Mutation tests` {
  @Dependency(\.defaultOperationClient) private var client

  @Test func `Mutate Shows The Value`() async throws {
    @SharedOperation(EchoMutation()) var value
    #expect(value == nil)

    let returned = try await $value.mutate(with: "blob")
    #expect(returned == "blob")
    #expect(value == "blob")
    #expect($value.history.map(\.arguments) == ["blob"])
  }

  @Test func `Mutate Shows The Error`() async throws {
    @SharedOperation(EchoMutation(failingArguments: ["blob"])) var value
    #expect($value.error == nil)

    await #expect(throws: TestError.self) {
      try await $value.mutate(with: "blob")
    }
    #expect($value.error as? TestError == TestError(message: "Failed for blob."))
  }

  @Test func `A Shared Mutation Does Not Run By Itself`() {
    let mutation = EchoMutation()
    @SharedOperation(mutation) var value

    #expect(!$value.isLoading)
    #expect($value.history.isEmpty)
    #expect(mutation.attempts.value == 0)
  }

  @Test func `A Shared Mutation Starts From Its Initial Value`() {
    @SharedOperation(wrappedValue: "start", EchoMutation()) var value
    #expect(value == "start")
  }

  @Test func `Mutate Task Joins The History At Once`() async throws {
    @SharedOperation(EchoMutation()) var value

    let task = $value.mutateTask(with: "blob")
    #expect($value.isLoading)
    #expect($value.history.count == 1)
    #expect(try await task.runIfNeeded() == "blob")
    #expect(value == "blob")
  }

  @Test func `Retry Latest Runs The Latest Arguments Again`() async throws {
    let mutation = EchoMutation()
    @SharedOperation(mutation) var value
    try await $value.mutate(with: "blob")

    #expect(try await $value.retryLatest() == "blob")
    #expect(try await $value.retryLatestTask().runIfNeeded() == "blob")
    #expect($value.history.map(\.arguments) == ["blob", "blob", "blob"])
    #expect(mutation.attempts.value == 3)
  }

  @Test func `Retry Latest Without An Attempt Reports An Issue And Throws`() async {
    @SharedOperation(EchoMutation()) var value

    await withKnownIssue {
      await #expect(throws: MutationArgumentsMissingError.self) {
        try await $value.retryLatest()
      }
    } matching: { issue in
      issue.comments.contains(
        Comment(rawValue: OperationWarning.mutationWithNoArgumentsOrHistory.message)
      )
    }
  }

  @Test func `Mutations Without Arguments Mutate With Nothing`() async throws {
    @SharedOperation(CountingVoidMutation()) var value

    #expect(try await $value.mutate() == 1)
    #expect(try await $value.mutateTask().runIfNeeded() == 2)
    #expect(value == 2)
  }

  @Test func `A Shared Mutation With A Default Value Shows It`() async throws {
    @SharedOperation(EchoMutation().defaultValue("default")) var value
    #expect(value == "default")

    try await $value.mutate(with: "blob")
    #expect(value == "blob")
  }

  @Test func `Two Shared Mutations Share One Store`() async throws {
    let mutation = EchoMutation()
    @SharedOperation(mutation) var first
    @SharedOperation(mutation) var second

    try await $first.mutate(with: "blob")
    #expect(second == "blob")
    #expect(self.client.store(for: mutation).subscriberCount == 2)
  }

  @Test func `An Unbacked Mutation Holds Its Value And Fails To Mutate`() async {
    @SharedOperation<EchoMutation.State> var value = "blob"
    #expect(value == "blob")
    #expect(!$value.isBacked)

    await withKnownIssue {
      await #expect(throws: UnbackedSharedOperationError.self) {
        try await $value.mutate(with: "other")
      }
    } matching: { issue in
      issue.comments.contains(
        Comment(
          rawValue: OperationWarning.unbackedSharedOperationRun(stateType: EchoMutation.State.self)
            .message
        )
      )
    }
    #expect($value.error is UnbackedSharedOperationError)
  }
}
