@_spi(Warnings) import OperationCore
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `MutationRequest tests` {
  @Test func `A Modified Mutation Is Still A Mutation`() async throws {
    func arguments<Mutation: MutationRequest>(of _: Mutation) -> Mutation.Arguments.Type {
      Mutation.Arguments.self
    }
    let echo = EchoMutation(failingArguments: ["bad"])
    let delayer = RecordingDelayer()
    let mutation = echo.retry(limit: 2).delayer(delayer).maxHistory(length: 4)
    #expect(arguments(of: mutation) == String.self)
    let direct = try await mutation.mutate(
      isolation: nil,
      with: "direct",
      in: OperationContext(),
      with: OperationContinuation { _, _ in }
    )
    #expect(direct == "direct")
    #expect(echo.attempts.value == 1)

    let store = OperationStore.detached(mutation: mutation)
    _ = try? await store.mutate(with: "bad")
    #expect(echo.attempts.value == 4)
    #expect(delayer.delays.count == 2)
    #expect(store.history.count == 1)
  }

  @Test func `The Void Convenience Mutates Without Arguments`() async {
    let mutation = CountingVoidMutation()
    let value = await mutation.mutate(
      isolation: nil,
      in: OperationContext(),
      with: OperationContinuation { _, _ in }
    )
    #expect(value == 1)
  }

  @Test func `Run Wraps Yielded And Returned Values`() async throws {
    let runner = OperationRunner(operation: YieldingMutation(yields: [.success("a")]))
    var context = OperationContext()
    context.setMutationArguments("foo")
    let yields = Lock([String]())
    let value = try await runner.run(
      in: context,
      with: OperationContinuation { result, _ in
        if case .success(let value) = result {
          yields.withLock { $0.append(value.returnValue) }
        }
      }
    )
    #expect(value.returnValue == "foo!")
    #expect(yields.withLock { $0 } == ["a"])
  }

  @Test func `Running Outside A Store Without Arguments Reports And Throws`() async {
    let mutation = EchoMutation()
    let runner = OperationRunner(operation: mutation)
    await withKnownIssue {
      await #expect(throws: MutationArgumentsMissingError()) { try await runner.run() }
    } matching: { issue in
      issue.comments.contains(
        Comment(rawValue: OperationWarning.mutationWithNoArgumentsOrHistory.message)
      )
    }
    #expect(mutation.attempts.value == 0)
  }

  @Test func `The Missing Arguments Error Explains Itself`() {
    let description = String(describing: MutationArgumentsMissingError())
    #expect(description.contains("no arguments"))
    #expect(description.contains("mutate(with:)"))
    #expect(MutationArgumentsMissingError() == MutationArgumentsMissingError())
  }

  @Test func `A Typed Failure Mutation Runs With Arguments`() async throws {
    let store = OperationStore.detached(mutation: EnumFailureMutation())
    #expect(try await store.mutate(with: "a") == "a")
    #expect(try await store.retryLatest() == "a")
  }

  @Test func `A Failure Type That Cannot Hold The Error Stops The Program Without Arguments`() async
  {
    await #expect(processExitsWith: .failure) {
      let store = OperationStore.detached(mutation: EnumFailureMutation())
      await withKnownIssue {
        _ = try? await store.retryLatest()
      } matching: { issue in
        issue.comments.contains(
          Comment(rawValue: OperationWarning.mutationWithNoArgumentsOrHistory.message)
        )
      }
    }
  }
}
