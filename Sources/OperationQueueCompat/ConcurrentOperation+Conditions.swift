import Foundation
@_spi(Warnings) import OperationCore
import OperationGraph
import OperationSynchronization

extension ConcurrentOperation {
  /// Adds a condition, evaluated when the queue starts the operation.
  ///
  /// Add conditions before the operation starts; one added later is reported and ignored.
  ///
  /// - Parameter condition: The condition.
  public func addCondition(_ condition: some OperationCondition) {
    let isAdded = self.lifecycle.withLock { state in
      guard state.phase == .ready else { return false }
      state.conditions.append(condition)
      return true
    }
    if !isAdded {
      reportWarning(.concurrentOperationConditionAfterStart(condition.name, self.description))
    }
  }

  /// The operation's conditions, in the order they were added.
  public var conditions: [any OperationCondition] {
    self.lifecycle.withLock { $0.conditions }
  }

  /// Takes the locks, runs the conditions' dependencies and evaluates the conditions, then
  /// executes or finishes.
  func prepare(_ conditions: [any OperationCondition]) {
    self.willChangeValue(forKey: "isExecuting")
    let preparation = self.lifecycle.withLock { state -> Task<Void, Never>? in
      state.phase = .preparing
      guard !state.isCancelRequested else { return nil }
      let task = Task { [self] in
        let verdict = await self.evaluate(conditions)
        // NB: A dispatch thread, because what runs next is the operation's own work:
        // `execute()`, the will-start and did-start blocks and observers, which Foundation's
        // queue runs on a thread of its own and which may block it (synchronous work is what
        // operations are for). Run from this task, it would block a thread of Swift's
        // cooperative pool, which has one per core. The queue cannot run it: the operation
        // already holds its slot there.
        DispatchQueue.global().async {
          switch verdict {
          case .execute:
            self.beginExecuting(isMarkedExecuting: true)
          case .finish(let errors):
            self.finish(errors)
          case .cancel:
            self.cancel()
            self.finish([])
          }
        }
      }
      state.preparation = task
      return task
    }
    self.didChangeValue(forKey: "isExecuting")
    if preparation == nil {
      self.finish([])
    }
  }

  private func evaluate(_ conditions: [any OperationCondition]) async -> Verdict {
    let categories = Set(conditions.compactMap(\.mutualExclusionCategory)).sorted()
    for category in categories {
      do {
        try await ExclusivityLocks.shared.acquire(category)
      } catch {
        return .finish([])
      }
      // NB: Stored at once, so that `finish` releases exactly what was taken.
      self.lifecycle.withLock { $0.heldCategories.append(category) }
    }
    guard !self.isCancelRequested else { return .finish([]) }

    let dependencies = conditions.compactMap { $0.dependency(for: self) }
    if !dependencies.isEmpty {
      let queue = OperationQueue()
      queue.name = "\(type(of: self)).conditionDependencies"
      // NB: With the operations they depend on, and each once: a dependency shared by two
      // conditions, or one that already runs, is not added again.
      dependencies.enqueue(on: queue)
      await withTaskGroup(of: Void.self) { group in
        for dependency in dependencies {
          group.addTask { try? await dependency.untilFinished() }
        }
      }
      guard !self.isCancelRequested else { return .finish([]) }
    }

    let results = await withTaskGroup(of: (Int, ConditionResult).self) { group in
      for (index, condition) in conditions.enumerated() {
        group.addTask { (index, await condition.evaluate(for: self)) }
      }
      var results = [ConditionResult?](repeating: nil, count: conditions.count)
      for await (index, result) in group {
        results[index] = result
      }
      return results.compactMap { $0 }
    }
    guard !self.isCancelRequested else { return .finish([]) }
    var failures = [any Error]()
    var isCancelled = false
    for result in results {
      switch result {
      case .satisfied: break
      case .failed(let error): failures.append(error)
      case .cancelled: isCancelled = true
      }
    }
    if !failures.isEmpty {
      return .finish(failures)
    }
    return isCancelled ? .cancel : .execute
  }
}
