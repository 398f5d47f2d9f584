import OperationCore
import OperationTestSupport
import Testing

@Suite struct `AsyncSequenceRunSpecification tests` {
  @Test(arguments: [false, true])
  func `Answers The Initial Value Before The First Element`(initialValue: Bool) {
    let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
    defer { continuation.finish() }
    let spec = AsyncSequenceRunSpecification(sequence: stream, initialValue: initialValue)
    #expect(spec.isSatisfied(in: OperationContext()) == initialValue)
  }

  @Test func `Stores Each Element And Notifies Subscribers`() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
    defer { continuation.finish() }
    let (changes, changed) = AsyncStream.makeStream(of: Bool.self)
    let spec: AsyncSequenceRunSpecification = .observing(sequence: stream, initialValue: false)
    let subscription = spec.subscribe(in: OperationContext()) {
      changed.yield(spec.isSatisfied(in: OperationContext()))
    }
    var observed = changes.makeAsyncIterator()

    continuation.yield(true)
    #expect(await observed.next() == true)
    #expect(spec.isSatisfied(in: OperationContext()))

    continuation.yield(false)
    #expect(await observed.next() == false)
    #expect(!spec.isSatisfied(in: OperationContext()))

    // NB: Elements are not deduplicated; a repeated value notifies again.
    continuation.yield(false)
    #expect(await observed.next() == false)
    subscription.cancel()
  }

  @Test func `Releasing The Specification Ends The Iteration`() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
    let ended = Gate()
    continuation.onTermination = { _ in ended.open() }
    var spec: AsyncSequenceRunSpecification? = .observing(sequence: stream, initialValue: true)
    #expect(spec?.isSatisfied(in: OperationContext()) == true)
    spec = nil
    await ended.wait()
    #expect(ended.isOpen)
  }
}
