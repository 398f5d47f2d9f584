import OperationCore
import OperationSynchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension WorkGraph {
  /// Runs nodes on one worker task until the state machine gives it no further node.
  func runWorker(_ worker: Int, startingWith first: Int) async {
    var next: Int? = first
    while let node = next {
      next = await self.runNode(node)
    }
  }

  /// Runs one node on the current worker.
  ///
  /// A node whose cancellation came before its work starts (while its worker task was being
  /// made, while it waited for its mutual exclusion locks, or from one of its observers'
  /// `willStart` or `didStart`) ends cancelled without running its work. A node that ended at
  /// its deadline (``end(_:atDeadlineWith:)``) while its work ran is left to the deadline: what
  /// the work returns is discarded, and the node's exclusivity locks, which it kept while its
  /// work ran, are released then.
  ///
  /// - Returns: The node the same worker runs next.
  private func runNode(_ node: Int) async -> Int? {
    let clock = self.context.operationClock
    // NB: The clock is read before the lock is taken: it may be the user's.
    let now = clock.now()
    let (body, observers, info, name, categories, direct) = self.state.withLock {
      state -> (NodeBody, [any GraphObserver], NodeInfo?, String?, [String], DirectStart?) in
      let observers = state.payloads[node].observers
      let categories = state.payloads[node].categories
      // NB: The work runs once (or never), so the graph lets go of it (and of what it captured)
      // now.
      let body = state.payloads[node].body
      state.payloads[node].body = nil
      guard let body else {
        preconditionFailure("A node's work started twice.")
      }
      // NB: A node with neither observers nor exclusivity categories starts here, in the same
      // lock as it is taken: one lock to start it.
      var direct: DirectStart?
      if observers.isEmpty && categories.isEmpty {
        direct = state.beginWork(node, at: now, progress: self.progress)
      }
      return (
        body,
        observers,
        observers.isEmpty ? nil : self.info(node, in: state),
        state.payloads[node].name,
        categories,
        direct
      )
    }
    let reporter: ProgressReporter
    switch direct {
    case .run(let directReporter):
      reporter = directReporter
    case .cancelled:
      return self.endBeforeWork(node, observers: [], info: nil, held: [])
    case .abandoned:
      return nil
    case nil:
      // NB: The exclusivity locks are taken here, by a node that holds a slot and so will run:
      // a node that waits for a slot holds none, so a suspended graph or a full one keeps no
      // category from the rest of the process, and a node that waits for a category waits only
      // for nodes that are running.
      let held = await Self.acquire(categories)
      guard held.count == categories.count else {
        return self.endBeforeWork(node, observers: observers, info: info, held: [])
      }
      // NB: Stored with the node, so that whichever path ends it releases them once.
      let isAbandoned = self.state.withLock { state in
        guard !state.machine.nodes[node].isAbandoned else { return true }
        state.payloads[node].heldCategories = held
        return false
      }
      if isAbandoned {
        ExclusivityLocks.shared.release(held)
        return nil
      }
      if let info {
        for observer in observers {
          observer.willStart(info)
        }
        let now = clock.now()
        self.state.withLock { $0.payloads[node].startedAt = now }
        for observer in observers {
          observer.didStart(info)
        }
      }
      // NB: Checked after the observers, which may have cancelled the node: a node cancelled
      // before its work starts does not run it.
      let now = info == nil ? clock.now() : nil
      let start = self.state.withLock { state in
        state.beginWork(node, at: now, progress: self.progress)
      }
      switch start {
      case .run(let startedReporter):
        reporter = startedReporter
      case .cancelled:
        return self.endBeforeWork(
          node,
          observers: observers,
          info: info,
          held: self.takeHeldCategories(of: node)
        )
      case .abandoned:
        // NB: Ended at its deadline before its work started: nothing of it runs, so its locks go.
        ExclusivityLocks.shared.release(self.takeHeldCategories(of: node))
        return nil
      }
    }
    var operationContext = self.context
    operationContext.progressReporter = reporter
    let context = NodeContext(
      node: GraphNodeID(graph: self.identity, index: node),
      name: name,
      graph: self,
      operationContext: operationContext
    )
    let result: Result<any Sendable, any Error>
    do {
      result = .success(try await body(context))
    } catch {
      result = .failure(error)
    }
    // NB: The node's unit is whole before its dependents can start. A node abandoned at its
    // deadline had its unit completed then; completing it again does nothing.
    reporter.complete()
    let end: GraphStateMachine.End
    switch result {
    case .success: end = .succeeded
    case .failure(let error as NodeSkipped): end = error.end
    case .failure(is CancellationError): end = .cancelled
    case .failure: end = .failed
    }
    let continuation: GraphStateMachine.Continuation
    if let info {
      let returned = self.state.withLock { state -> (outcome: NodeOutcome?, held: [String]) in
        let held = state.payloads[node].heldCategories
        state.payloads[node].heldCategories = []
        // NB: A node that ended at its deadline keeps that end; its late result is discarded,
        // and the locks it kept while its work ran go now.
        guard !state.machine.nodes[node].isAbandoned else { return (nil, held) }
        state.payloads[node].record(result)
        state.payloads[node].end = state.machine.workReturned(node, end: end)
        state.payloads[node].reporter = nil
        return (state.payloads[node].outcome, held)
      }
      let held = returned.held
      guard let outcome = returned.outcome else {
        ExclusivityLocks.shared.release(held)
        return nil
      }
      for observer in observers {
        observer.willFinish(info, outcome: outcome)
      }
      let now = clock.now()
      continuation = self.state.withLock { state in
        state.payloads[node].finishedAt = now
        let continuation = state.machine.finished(node, end: end, settles: false)
        state.record(continuation.actions, now: now)
        return continuation
      }
      ExclusivityLocks.shared.release(held)
      // NB: The actions start what the node's end frees (its dependents, or a new worker for
      // its slot) only after its did-finish observers, as a node that the same worker runs next
      // does: with one slot, no node starts while another's observers still run.
      for observer in observers {
        observer.didFinish(info, outcome: outcome)
      }
      self.perform(continuation.actions)
      self.perform(self.state.withLock { $0.machine.settled(node) })
    } else {
      let now = clock.now()
      let returned = self.state.withLock {
        state -> (continuation: GraphStateMachine.Continuation?, held: [String]) in
        let held = state.payloads[node].heldCategories
        state.payloads[node].heldCategories = []
        guard !state.machine.nodes[node].isAbandoned else { return (nil, held) }
        state.payloads[node].record(result)
        state.payloads[node].finishedAt = now
        let continuation = state.machine.finished(node, end: end, settles: true)
        state.payloads[node].end = continuation.end
        state.payloads[node].reporter = nil
        state.record(continuation.actions, now: now)
        return (continuation, held)
      }
      ExclusivityLocks.shared.release(returned.held)
      guard let finished = returned.continuation else { return nil }
      continuation = finished
      self.perform(continuation.actions)
    }
    return continuation.next
  }

  /// Takes the exclusivity categories a node holds, to release them.
  private func takeHeldCategories(of node: Int) -> [String] {
    self.state.withLock { state in
      defer { state.payloads[node].heldCategories = [] }
      return state.payloads[node].heldCategories
    }
  }

  /// How a node's work starts, decided under the graph's lock.
  enum DirectStart {
    /// The work runs, reporting its progress to this child of the graph's progress.
    case run(ProgressReporter)
    /// The node was cancelled before its work started: it ends cancelled without running it.
    case cancelled
    /// The node ended at its deadline before its work started.
    case abandoned
  }
}

// MARK: - Exclusivity

extension WorkGraph {
  /// Takes the categories' locks in order.
  ///
  /// - Returns: The categories taken: all of them, or, when the task was cancelled while it
  ///   waited, none (those taken before are released).
  private static func acquire(_ categories: [String]) async -> [String] {
    var held = [String]()
    for category in categories {
      do {
        try await ExclusivityLocks.shared.acquire(category)
        held.append(category)
      } catch {
        ExclusivityLocks.shared.release(held)
        return []
      }
    }
    return held
  }

  /// Ends a node that a worker took but whose work never ran: it was cancelled while it waited
  /// for a mutual exclusion lock, or before its work started (from an observer's `willStart`,
  /// say). Its observers hear that it finished, after whatever start events they heard.
  ///
  /// - Parameter held: The exclusivity categories it holds, released as it ends.
  /// - Returns: The node the same worker runs next (none: its task is cancelled).
  private func endBeforeWork(
    _ node: Int,
    observers: [any GraphObserver],
    info: NodeInfo?,
    held: [String]
  ) -> Int? {
    let outcome = self.state.withLock { state -> NodeOutcome? in
      // NB: A node that ended at its deadline meanwhile has ended already.
      guard !state.machine.nodes[node].isAbandoned else { return nil }
      state.payloads[node].end = state.machine.workReturned(node, end: .cancelled)
      return state.payloads[node].outcome
    }
    guard let outcome else {
      ExclusivityLocks.shared.release(held)
      return nil
    }
    if let info {
      for observer in observers {
        observer.willFinish(info, outcome: outcome)
      }
    }
    // NB: Read after the will-finish observers, as the contract of `GraphObserver` says.
    let now = self.context.operationClock.now()
    self.progress.advance(by: 1)
    let continuation = self.state.withLock { state in
      state.payloads[node].finishedAt = now
      let continuation = state.machine.finished(node, end: .cancelled, settles: info == nil)
      state.record(continuation.actions, now: now)
      return continuation
    }
    ExclusivityLocks.shared.release(held)
    if let info {
      // NB: After the did-finish observers, as in `runNode(_:)`.
      for observer in observers {
        observer.didFinish(info, outcome: outcome)
      }
      self.perform(continuation.actions)
      self.perform(self.state.withLock { $0.machine.settled(node) })
    } else {
      self.perform(continuation.actions)
    }
    return continuation.next
  }
}
