public import Foundation
import OperationSynchronization

extension Foundation.Operation {
  /// Makes `operation` run after this one, and returns it, for fluent chains: PeakOperation's
  /// `then(do:)`.
  ///
  /// ```swift
  /// first
  ///   .then(do: second)
  ///   .then(do: third)
  ///   .enqueue()
  /// ```
  ///
  /// It only adds a dependency: `operation` runs even when this one fails or is cancelled, as
  /// with Foundation's dependencies (add a `NoFailedDependenciesCondition` to gate it).
  ///
  /// - Parameter operation: The operation that runs next.
  /// - Returns: `operation`.
  @discardableResult
  public func then<Next: Foundation.Operation>(do operation: Next) -> Next {
    operation.addDependency(self)
    return operation
  }

  /// The operation and every operation it depends on, directly or through others.
  public var operationChain: Set<Foundation.Operation> {
    var chain = Set<Foundation.Operation>()
    var pending: [Foundation.Operation] = [self]
    while let operation = pending.popLast() {
      guard chain.insert(operation).inserted else { continue }
      pending.append(contentsOf: operation.dependencies)
    }
    return chain
  }

  /// Adds the operation and every operation it depends on (its ``operationChain``) to a queue,
  /// and returns the operation.
  ///
  /// Operations of the chain that have already started or finished are left alone, so a chain
  /// can be enqueued while part of it runs elsewhere. As in PeakOperation, the default queue is
  /// a new one for each call.
  ///
  /// - Parameter queue: The queue; a new one by default.
  /// - Returns: The operation.
  @discardableResult
  public func enqueue(on queue: OperationQueue = OperationQueue()) -> Self {
    [self].enqueue(on: queue)
    return self
  }
}

extension Collection where Element: Foundation.Operation {
  /// Adds every operation of the collection, with the operations they depend on, to a queue.
  ///
  /// An operation goes to a queue once: operations that an earlier `enqueue` added (on any
  /// queue), and operations that have started or finished, are left alone, so chains that
  /// share operations can each be enqueued, from any thread.
  ///
  /// - Parameter queue: The queue; a new one by default.
  public func enqueue(on queue: OperationQueue = OperationQueue()) {
    var chain = Set<Foundation.Operation>()
    for operation in self {
      chain.formUnion(operation.operationChain)
    }
    let operations = EnqueuedOperations.shared.claim(
      chain.filter { !$0.isExecuting && !$0.isFinished }
    )
    queue.addOperations(operations, waitUntilFinished: false)
  }
}

/// The operations that ``Swift/Collection/enqueue(on:)`` has added to a queue, held weakly, so
/// that it adds each one once: Foundation traps when an operation is added twice.
private final class EnqueuedOperations: Sendable {
  static let shared = EnqueuedOperations()

  private struct Entry {
    weak var operation: Foundation.Operation?
  }

  private struct State {
    var entries = [ObjectIdentifier: Entry]()
    var pruneAt = 1_024
  }

  private let state = Lock(State())

  /// Marks the operations as enqueued and returns those that were not already.
  func claim(_ operations: Set<Foundation.Operation>) -> [Foundation.Operation] {
    self.state.withLock { state in
      if state.entries.count >= state.pruneAt {
        state.entries = state.entries.filter { $0.value.operation != nil }
        state.pruneAt = max(1_024, state.entries.count * 2)
      }
      var claimed = [Foundation.Operation]()
      for operation in operations {
        let id = ObjectIdentifier(operation)
        // NB: An identifier can be reused once its operation is freed; the weak reference
        // tells a freed operation's entry from a live one.
        guard state.entries[id]?.operation !== operation else { continue }
        state.entries[id] = Entry(operation: operation)
        claimed.append(operation)
      }
      return claimed
    }
  }
}
