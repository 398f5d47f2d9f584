public import Foundation
import OperationCore
import OperationSynchronization

extension ProducesResult where Self: ConcurrentOperation {
  /// Passes this operation's result to `consumer`, which runs after it: PeakOperation's
  /// `passesResult(to:)`.
  ///
  /// ```swift
  /// IntOperation()
  ///   .passesResult(to: AddOneOperation())
  ///   .passesResult(to: PrintOperation())
  ///   .enqueue()
  /// ```
  ///
  /// It adds the dependency, and copies ``ProducesResult/output`` into the consumer's
  /// ``ConsumesResult/input`` as this operation is about to finish (in a will-finish block). A
  /// failure is passed as a value: the consumer still runs and sees it. A cancelled producer
  /// passes nothing, so the consumer keeps its input (by convention
  /// `.failure(ResultError.noResult)`) and still runs.
  ///
  /// The block holds neither operation strongly, so a chain is freed once nothing else holds it.
  ///
  /// - Parameter consumer: The operation that consumes the result.
  /// - Returns: `consumer`, for fluent chains.
  @discardableResult
  public func passesResult<Consumer: ConsumesResult & Foundation.Operation>(
    to consumer: Consumer
  ) -> Consumer where Consumer.Input == Output {
    consumer.addDependency(self)
    self.addWillFinishBlock { [weak self, weak consumer] in
      guard let self, let consumer, !self.isCancelled, !self.isCancelRequested else { return }
      consumer.input = self.output
    }
    return consumer
  }

  /// Appends this operation's result to the inputs of `consumer`, which runs after it.
  ///
  /// As `passesResult(to:)` for one consumer, but the result is appended to
  /// ``ConsumesMultipleResults/input``, so the inputs are in the order the producers finished.
  /// Appends are serialised: library consumers such as ``CombineOperation`` append under their
  /// own lock; another consumer's `input` is read and written by one producer at a time, which
  /// also appends the results of the producers that finish meanwhile (PeakOperation used a
  /// barrier queue), and all of them before the consumer can start.
  ///
  /// - Parameter consumer: The operation that consumes the results.
  /// - Returns: `consumer`.
  @discardableResult
  public func passesResult<Consumer: ConsumesMultipleResults & Foundation.Operation>(
    to consumer: Consumer
  ) -> Consumer where Consumer.Input == Output {
    consumer.addDependency(self)
    self.addWillFinishBlock { [weak self, weak consumer] in
      guard let self, let consumer, !self.isCancelled, !self.isCancelRequested else { return }
      if let appending = consumer as? any AppendsInput<Output> {
        appending.appendInput(self.output)
      } else {
        // NB: The closure reads the result when it runs: at once, or, when another producer
        // appends to the consumer now, from that producer's will-finish block, once this one may
        // have finished (its output is set by then). Either way, before the consumer can start.
        // It holds both operations until it has run.
        ResultAppends.shared.run(for: consumer) {
          consumer.input.append(self.output)
        }
      }
    }
    return consumer
  }

  /// Passes this operation's result to several consumers: fan-out.
  ///
  /// - Parameter consumers: The operations that consume the result.
  /// - Returns: `consumers`.
  @discardableResult
  public func passesResult<Consumer: ConsumesResult & Foundation.Operation>(
    to consumers: [Consumer]
  ) -> [Consumer] where Consumer.Input == Output {
    for consumer in consumers {
      self.passesResult(to: consumer)
    }
    return consumers
  }

  /// Passes this operation's failure, and only a failure, to `consumer`, whatever its input
  /// type; `consumer` runs after it.
  ///
  /// A success, or a cancelled producer, leaves the consumer's input alone.
  ///
  /// - Parameter consumer: The operation that consumes the failure.
  /// - Returns: `consumer`.
  @discardableResult
  public func passesError<Consumer: ConsumesResult & Foundation.Operation>(
    to consumer: Consumer
  ) -> Consumer {
    consumer.addDependency(self)
    self.addWillFinishBlock { [weak self, weak consumer] in
      guard let self, let consumer, !self.isCancelled, !self.isCancelRequested else { return }
      if case .failure(let error) = self.output {
        consumer.input = .failure(error)
      }
    }
    return consumer
  }
}

extension Collection where Element: ProducesResult & ConcurrentOperation {
  /// Passes the result of every operation of the collection to one consumer: fan-in.
  ///
  /// ```swift
  /// [hello, world]
  ///   .passesResults(to: CombineOperation<String>())
  ///   .enqueue()
  /// ```
  ///
  /// - Parameter consumer: The operation that consumes the results, in the order the producers
  ///   finished.
  /// - Returns: `consumer`.
  @discardableResult
  public func passesResults<Consumer: ConsumesMultipleResults & Foundation.Operation>(
    to consumer: Consumer
  ) -> Consumer where Consumer.Input == Element.Output {
    for producer in self {
      producer.passesResult(to: consumer)
    }
    return consumer
  }
}

extension ProducesResult where Self: Foundation.Operation {
  /// Adds a block that gets the operation's result once it has finished: PeakOperation's
  /// `addResultBlock(block:)`.
  ///
  /// ```swift
  /// operation.addResultBlock { result in
  ///   print(result)
  /// }
  /// ```
  ///
  /// The block is chained onto `completionBlock`: an existing completion block (an earlier
  /// result block, say) runs first. It runs after the operation finished, on a thread of the
  /// queue's choosing. Unlike PeakOperation's, it must be `@Sendable`, as `completionBlock` is in
  /// Swift 6.
  ///
  /// - Parameter block: Gets ``ProducesResult/output``.
  public func addResultBlock(
    block: @escaping @Sendable (Result<Output, any Error>) -> Void
  ) {
    // NB: A weak capture, so that the operation does not hold itself through its completion
    // block; whoever runs the completion block (the queue) holds the operation meanwhile.
    self.addCompletionBlock { [weak self] in
      guard let self else { return }
      block(self.output)
    }
  }

  /// Adds a result block, then adds the operation and its chain to a queue.
  ///
  /// ```swift
  /// BlockResultOperation { true }.enqueue { result in
  ///   print(result)  // success(true)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - queue: The queue; a new one by default.
  ///   - completion: Gets ``ProducesResult/output`` once the operation has finished.
  /// - Returns: The operation.
  @discardableResult
  public func enqueue(
    on queue: OperationQueue = OperationQueue(),
    completion: @escaping @Sendable (Result<Output, any Error>) -> Void
  ) -> Self {
    self.addResultBlock(block: completion)
    return self.enqueue(on: queue)
  }
}

// MARK: - Appending

/// A multiple-result consumer that appends an input atomically: the library's consumers store
/// their inputs behind a lock.
package protocol AppendsInput<Input>: AnyObject {
  associatedtype Input

  /// Appends `result` to the inputs, atomically.
  func appendInput(_ result: Result<Input, any Error>)
}

/// Serialises the appends to each consumer whose `input` is not atomic, without running its
/// accessors under a lock: PeakOperation's barrier queue, on no queue.
///
/// The first producer that appends to a consumer appends, then appends for every producer that
/// came meanwhile, until none is left; the others leave their append to it and return. The one
/// that appends is inside its will-finish block throughout, so the consumer, which waits for every
/// producer to finish, starts after every append.
private final class ResultAppends: Sendable {
  static let shared = ResultAppends()

  /// The appends waiting for each consumer that someone appends to now; a consumer that no one
  /// appends to has no entry. An entry's closures hold its consumer, so its identifier is not
  /// reused while the entry exists.
  private let pending = Lock([ObjectIdentifier: [@Sendable () -> Void]]())

  /// Runs `append` now on this thread, and after it those that other threads leave meanwhile;
  /// or, when another thread appends to `consumer` now, leaves `append` to it.
  func run(for consumer: AnyObject, _ append: @escaping @Sendable () -> Void) {
    let id = ObjectIdentifier(consumer)
    let appendsHere = self.pending.withLock { pending -> Bool in
      guard pending[id] == nil else {
        pending[id]?.append(append)
        return false
      }
      pending[id] = []
      return true
    }
    guard appendsHere else { return }
    var next = [append]
    while !next.isEmpty {
      for append in next {
        append()
      }
      next = self.pending.withLock { pending in
        let next = pending[id] ?? []
        // NB: The entry goes in the same step as the finding that nothing waits, so an append
        // that comes later starts a new round on its own thread.
        pending[id] = next.isEmpty ? nil : []
        return next
      }
    }
  }
}
