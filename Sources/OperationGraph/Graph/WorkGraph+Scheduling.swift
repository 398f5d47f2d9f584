import OperationCore
import OperationSynchronization

extension WorkGraph {
  /// Performs what the state machine decided, with no lock held.
  func perform(_ actions: [GraphStateMachine.Action]) {
    for action in actions {
      switch action {
      case .evaluate(let node):
        self.startTask(.evaluation(node)) { await self.evaluate(node) }
      case .cancelEvaluation(let node):
        self.cancelTask(.evaluation(node))
      case .startWorker(let node, let worker):
        self.startTask(.worker(worker)) { await self.runWorker(worker, startingWith: node) }
      case .cancelWorker(let worker):
        self.cancelTask(.worker(worker))
      case .endWithoutRunning(let node, let end):
        self.endWithoutRunning(node, end: end)
      case .completeRun:
        let waiters = self.state.withLock { state in
          defer { state.runWaiters.removeAll() }
          return state.runWaiters
        }
        for waiter in waiters {
          waiter.resume()
        }
      }
    }
  }

  /// Starts the task that an action asked for; its key is live since that decision.
  private func startTask(_ key: TaskKey, _ body: @escaping @Sendable () async -> Void) {
    let task = Task {
      await body()
      self.state.withLock { state in
        state.liveTasks.remove(key)
        state.tasks[key] = nil
        state.pendingCancellations.remove(key)
      }
    }
    let cancels = self.state.withLock { state -> Bool in
      guard state.liveTasks.contains(key) else { return false }
      state.tasks[key] = task
      return state.pendingCancellations.remove(key) != nil
    }
    if cancels {
      task.cancel()
    }
  }

  private func cancelTask(_ key: TaskKey) {
    let task = self.state.withLock { state -> Task<Void, Never>? in
      if let task = state.tasks[key] { return task }
      if state.liveTasks.contains(key) {
        state.pendingCancellations.insert(key)
      }
      return nil
    }
    task?.cancel()
  }

  private func endWithoutRunning(_ node: Int, end: GraphStateMachine.End) {
    let (observers, info, finalizer, errors) = self.state.withLock {
      state -> ([any GraphObserver], NodeInfo?, (@Sendable ([any Error]) -> Void)?, [any Error]) in
      let observers = state.payloads[node].observers
      let info = observers.isEmpty ? nil : self.info(node, in: state)
      let errors = end == .cancelled ? state.payloads[node].cancellationErrors : []
      return (observers, info, state.payloads[node].onEndWithoutRunning, errors)
    }
    finalizer?(errors)
    self.progress.advance(by: 1)
    if let info {
      let outcome = self.state.withLock { $0.payloads[node].outcome }
      for observer in observers {
        observer.willFinish(info, outcome: outcome)
      }
      // NB: Read after the will-finish observers, as the contract of `GraphObserver` says.
      let now = self.context.operationClock.now()
      self.state.withLock { $0.payloads[node].finishedAt = now }
      for observer in observers {
        observer.didFinish(info, outcome: outcome)
      }
    }
    self.perform(self.state.withLock { $0.machine.settled(node) })
  }

  /// Evaluates a node's conditions, then acquires its exclusivity locks.
  private func evaluate(_ node: Int) async {
    let (conditions, conditionContext) = self.state.withLock { state in
      let dependencies = state.machine.nodes[node].dependencies.map {
        state.report($0, graph: self.identity)
      }
      return (
        state.payloads[node].conditions,
        ConditionContext(node: self.info(node, in: state), dependencies: dependencies)
      )
    }
    var failures = [any Error]()
    var isCancelled = false
    if conditions.count == 1 {
      switch await conditions[0].evaluate(in: conditionContext) {
      case .satisfied: break
      case .failed(let error): failures.append(error)
      case .cancelled: isCancelled = true
      }
    } else {
      let results = await withTaskGroup(of: (Int, ConditionResult).self) { group in
        for (position, condition) in conditions.enumerated() {
          group.addTask { (position, await condition.evaluate(in: conditionContext)) }
        }
        var results = [ConditionResult?](repeating: nil, count: conditions.count)
        for await (position, result) in group {
          results[position] = result
        }
        return results
      }
      for result in results {
        switch result {
        case .satisfied, nil: break
        case .failed(let error): failures.append(error)
        case .cancelled: isCancelled = true
        }
      }
    }
    let result: GraphStateMachine.ConditionsResult =
      if isCancelled || Task.isCancelled { .cancelled } else if !failures.isEmpty { .failed } else {
        .satisfied
      }
    let now = self.context.operationClock.now()
    let actions = self.state.withLock { state in
      state.payloads[node].conditionErrors = failures
      let actions = state.machine.conditionsEvaluated(node, result: result)
      state.record(actions, now: now)
      return actions
    }
    self.perform(actions)
  }
}
