public import Foundation

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
  /// with Foundation's dependencies (add a ``NoFailedDependenciesCondition`` to gate it).
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
  /// - Parameter queue: The queue; a new one by default.
  public func enqueue(on queue: OperationQueue = OperationQueue()) {
    var chain = Set<Foundation.Operation>()
    for operation in self {
      chain.formUnion(operation.operationChain)
    }
    let operations = chain.filter { !$0.isExecuting && !$0.isFinished }
    queue.addOperations(Array(operations), waitUntilFinished: false)
  }
}
