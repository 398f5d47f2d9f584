import OperationCore
import OperationSynchronization
import OperationTestSupport
import Testing

// The example of the Mutations article (Sources/OperationCore/Documentation.docc/Articles/
// Mutations.md), as written there; the tests check what its comments claim.

struct Message: Hashable, Sendable {
  let id: Int
  let text: String
}

struct EmptyMessageError: Error {}

struct SendMessage: MutationRequest, Hashable {
  let chatID: Int

  func mutate(
    isolation: isolated (any Actor)?,
    with text: String,
    in context: OperationContext,
    with continuation: OperationContinuation<Message, any Error>
  ) async throws -> Message {
    guard !text.isEmpty else { throw EmptyMessageError() }
    // A real mutation would send the text to a server here.
    return Message(id: text.count, text: text)
  }
}

@Suite struct `Mutations article example tests` {
  @Test func `Sending Twice Follows The Latest Attempt`() async throws {
    let store = OperationStore.detached(mutation: SendMessage(chatID: 1).maxHistory(length: 10))

    let message = try await store.mutate(with: "Hello")
    #expect(message.text == "Hello")

    _ = try? await store.mutate(with: "")
    #expect(store.currentValue == nil)
    #expect(store.error is EmptyMessageError)
    #expect(store.history.map(\.arguments) == ["Hello", ""])
  }

  @Test func `The Event Handler Sees The Arguments Of Each Attempt`() async throws {
    let store = OperationStore.detached(mutation: SendMessage(chatID: 1))
    let lines = Lock([String]())
    let subscription = store.subscribe(
      with: MutationEventHandler(
        onMutatingStarted: { text, _ in lines.withLock { $0.append("Sending \(text)") } },
        onMutationResultReceived: { text, result, _ in
          lines.withLock { $0.append("\(text): \((try? result.get())?.id ?? -1)") }
        }
      )
    )
    try await store.mutate(with: "Hi")
    try await store.retryLatest()
    #expect(lines.withLock { $0 } == ["Sending Hi", "Hi: 2", "Sending Hi", "Hi: 2"])
    subscription.cancel()
  }
}
