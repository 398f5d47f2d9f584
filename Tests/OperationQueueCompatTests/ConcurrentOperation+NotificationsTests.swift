import Foundation
import OperationCore
import OperationGraph
import OperationQueueCompat
import OperationSynchronization
import OperationTestSupport
import Testing

/// What an observer saw: the notification's name, object, user info and the dates then.
private struct Sighting: Sendable {
  var name: Notification.Name
  var isOperation: Bool
  var userInfo: [String: String]
  var startDate: Date?
  var finishDate: Date?
  var executionTime: TimeInterval
}

/// Observes the four notifications of one operation, until stopped.
private final class NotificationSpy: Sendable {
  static let names = [
    ConcurrentOperation.operationWillStart, ConcurrentOperation.operationDidStart,
    ConcurrentOperation.operationWillFinish, ConcurrentOperation.operationDidFinish,
  ]
  private let sightings = Lock([Sighting]())
  private let tokens = Lock([ObserverToken]())

  init(_ operation: ConcurrentOperation, clock: ManualOperationClock? = nil) {
    for name in Self.names {
      let token = NotificationCenter.default.addObserver(
        forName: name,
        object: operation,
        queue: nil
      ) { [sightings] notification in
        let sighting = Sighting(
          name: notification.name,
          isOperation: notification.object as AnyObject? === operation,
          userInfo: notification.userInfo as? [String: String] ?? [:],
          startDate: operation.startDate,
          finishDate: operation.finishDate,
          executionTime: operation.executionTime
        )
        sightings.withLock { $0.append(sighting) }
        // NB: The clock moves after each notification, so the dates differ.
        clock?.advance(by: 1)
      }
      self.tokens.withLock { $0.append(ObserverToken(base: token)) }
    }
  }

  var all: [Sighting] {
    self.sightings.withLock { $0 }
  }

  func stop() {
    self.tokens.withLock { tokens in
      for token in tokens {
        NotificationCenter.default.removeObserver(token.base)
      }
      tokens = []
    }
  }
}

@Suite(.timeLimit(.minutes(1))) struct `ConcurrentOperation notifications tests` {
  private func run(
    _ operation: BlockResultOperation<String>,
    clock: ManualOperationClock? = nil,
    queueName: String? = nil
  ) async throws -> [Sighting] {
    let spy = NotificationSpy(operation, clock: clock)
    defer { spy.stop() }
    let queue = OperationQueue()
    queue.name = queueName
    operation.enqueue(on: queue)
    try await operation.untilFinished()
    return spy.all
  }

  @Test func `The four notifications are sent in order`() async throws {
    let sightings = try await self.run(BlockResultOperation { "work" })
    #expect(sightings.map(\.name) == NotificationSpy.names)
  }

  @Test func `Notifications carry the queue's name`() async throws {
    let sightings = try await self.run(BlockResultOperation { "work" }, queueName: "test.queue")
    #expect(sightings.count == 4)
    #expect(sightings.map { $0.userInfo["queue"] } == Array(repeating: "test.queue", count: 4))
  }

  @Test func `Notifications carry the operation's name`() async throws {
    let operation = BlockResultOperation { "work" }
    operation.name = "Doing some work..."
    let sightings = try await self.run(operation)
    #expect(sightings.count == 4)
    #expect(
      sightings.map { $0.userInfo["name"] } == Array(repeating: "Doing some work...", count: 4)
    )
  }

  @Test func `The notification's object is the operation`() async throws {
    let sightings = try await self.run(BlockResultOperation { "work" })
    #expect(sightings.count == 4)
    #expect(sightings.map(\.isOperation) == [true, true, true, true])
  }

  @Test func `Dates seen from the notifications`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 100))
    let operation = BlockResultOperation { "work" }
    operation.context.operationClock = clock
    let sightings = try await self.run(operation, clock: clock)
    try #require(sightings.count == 4)
    let (willStart, didStart, willFinish, didFinish) =
      (sightings[0], sightings[1], sightings[2], sightings[3])
    #expect(willStart.startDate == nil && willStart.finishDate == nil)
    #expect(willStart.executionTime == 0)
    #expect(didStart.startDate == Date(timeIntervalSince1970: 101))
    #expect(didStart.finishDate == nil)
    #expect(didStart.executionTime == 0)
    #expect(willFinish.startDate == didStart.startDate && willFinish.finishDate == nil)
    #expect(willFinish.executionTime == 1)
    #expect(didFinish.finishDate == Date(timeIntervalSince1970: 103))
    #expect(didFinish.executionTime == 2)
    #expect(operation.executionTime == 2)
  }

  @Test func `Dates seen from the blocks`() async throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 0))
    let operation = BlockResultOperation { "work" }
    operation.context.operationClock = clock
    let seen = Lock([(Date?, Date?, TimeInterval)]())
    let record: @Sendable () -> Void = {
      seen.withLock {
        $0.append((operation.startDate, operation.finishDate, operation.executionTime))
      }
      clock.advance(by: 1)
    }
    operation.addWillStartBlock(block: record)
    operation.addDidStartBlock(block: record)
    operation.addWillFinishBlock(block: record)
    operation.addDidFinishBlock(block: record)
    operation.enqueue()
    try await operation.untilFinished()
    let dates = seen.withLock { $0 }
    try #require(dates.count == 4)
    #expect(dates[0].0 == nil && dates[0].1 == nil && dates[0].2 == 0)
    #expect(dates[1].0 == Date(timeIntervalSince1970: 1) && dates[1].1 == nil)
    #expect(dates[2].0 == Date(timeIntervalSince1970: 1) && dates[2].1 == nil && dates[2].2 == 1)
    #expect(dates[3].1 == Date(timeIntervalSince1970: 3) && dates[3].2 == 2)
  }

  @Test func `The description names the type, the name and the state`() {
    let operation = BlockResultOperation { "work" }
    operation.name = "Doing some work..."
    #expect(
      operation.description == "BlockResultOperation<String>(name: 'Doing some work...', state: 0)"
    )
  }
}

/// A notification center's observer token, kept to remove the observer.
// NB: `@unchecked Sendable` is safe because the token is only handed back to
// `NotificationCenter.removeObserver(_:)`, which takes it from any thread, and never read else.
private struct ObserverToken: @unchecked Sendable {
  let base: any NSObjectProtocol
}
