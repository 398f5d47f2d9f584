/// The runs in flight of one deduplicated operation in one store.
final class DeduplicationStorage<Value: Sendable, Failure: Error>: Sendable {
  typealias Group = DeduplicationGroup<Value, Failure>

  private let groups = Lock([(context: OperationContext, group: Group)]())

  /// Joins an in-flight run that `isDuplicate` accepts, or starts a new one with `work`.
  func join(
    context: OperationContext,
    isDuplicate: (OperationContext, OperationContext) -> Bool,
    work: @escaping @Sendable () async -> Result<Value, Failure>
  ) -> (Group, waiter: Int) {
    let (group, waiter, isNew) = self.groups.withLock { groups in
      if let entry = groups.first(where: { isDuplicate($0.context, context) }) {
        return (entry.group, entry.group.addWaiter(), false)
      }
      let group = Group()
      groups.append((context, group))
      return (group, group.addWaiter(), true)
    }
    if isNew {
      group.start {
        let result = await work()
        self.groups.withLock { groups in groups.removeAll { $0.group === group } }
        return result
      }
    }
    return (group, waiter)
  }
}

/// One shared run and the callers waiting for it.
final class DeduplicationGroup<Value: Sendable, Failure: Error>: Sendable {
  private typealias Waiter = CheckedContinuation<Result<Value, Failure>, Never>

  private struct State {
    var task: Task<Void, Never>?
    var result: Result<Value, Failure>?
    var waiters = [Int: Waiter]()
    var cancelledWaiters = Set<Int>()
    var waiterCount = 0
    var nextWaiter = 0
  }

  private let state = Lock(State())

  func addWaiter() -> Int {
    self.state.withLock { state in
      state.waiterCount += 1
      defer { state.nextWaiter += 1 }
      return state.nextWaiter
    }
  }

  func start(_ work: @escaping @Sendable () async -> Result<Value, Failure>) {
    let task = Task {
      let result = await work()
      let waiters = self.state.withLock { state in
        state.result = result
        defer { state.waiters.removeAll() }
        return Array(state.waiters.values)
      }
      for waiter in waiters {
        waiter.resume(returning: result)
      }
    }
    let cancelNow = self.state.withLock { state in
      state.task = task
      return state.waiterCount == 0 && state.result == nil
    }
    if cancelNow {
      task.cancel()
    }
  }

  /// Waits for the shared result; a cancelled caller stops waiting when `Failure` can say so.
  func wait(_ waiter: Int) async -> Result<Value, Failure> {
    guard let cancellation = CancellationError() as? Failure else {
      // NB: With a typed `Failure` that cannot hold `CancellationError`, a cancelled caller has
      // no error to throw, so it keeps waiting for the shared result.
      return await withCheckedContinuation { continuation in
        self.register(waiter, continuation, cancellation: nil)
      }
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        self.register(waiter, continuation, cancellation: .failure(cancellation))
      }
    } onCancel: {
      self.cancel(waiter, cancellation: .failure(cancellation))
    }
  }

  private func register(
    _ waiter: Int,
    _ continuation: Waiter,
    cancellation: Result<Value, Failure>?
  ) {
    let immediate = self.state.withLock { state -> Result<Value, Failure>? in
      if let result = state.result { return result }
      if state.cancelledWaiters.remove(waiter) != nil, let cancellation { return cancellation }
      state.waiters[waiter] = continuation
      return nil
    }
    if let immediate {
      continuation.resume(returning: immediate)
    }
  }

  private func cancel(_ waiter: Int, cancellation: Result<Value, Failure>) {
    let (continuation, task) = self.state.withLock { state in
      guard state.result == nil else { return (nil as Waiter?, nil as Task<Void, Never>?) }
      state.waiterCount -= 1
      let continuation = state.waiters.removeValue(forKey: waiter)
      if continuation == nil {
        state.cancelledWaiters.insert(waiter)
      }
      return (continuation, state.waiterCount == 0 ? state.task : nil)
    }
    continuation?.resume(returning: cancellation)
    task?.cancel()
  }
}
