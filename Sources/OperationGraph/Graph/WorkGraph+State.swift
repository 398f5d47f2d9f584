import OperationCore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension WorkGraph {
  package typealias NodeBody = @Sendable (NodeContext) async throws -> any Sendable

  /// The tasks a graph starts: one per worker, one per evaluation of conditions.
  enum TaskKey: Hashable, Sendable {
    case worker(Int)
    case evaluation(Int)
  }

  /// Everything a graph keeps, behind its one lock.
  ///
  /// - `machine` decides; the rest is what its decisions need and what it does not know: the
  ///   nodes' work, results and times, and the tasks that run them.
  /// - A task's key is in `liveTasks` from the decision that starts it (recorded with the
  ///   decision, under the same lock) until its body has returned; its handle is in `tasks` once
  ///   stored, and a cancellation that comes before the handle is stored (even before the task
  ///   is created) waits in `pendingCancellations`.
  struct State: Sendable {
    var machine: GraphStateMachine
    /// The clock of the graph's context, which the nodes' reports read.
    let clock: any OperationClock & Sendable
    var payloads = [NodePayload]()
    var tasks = [TaskKey: Task<Void, Never>]()
    var liveTasks = Set<TaskKey>()
    var pendingCancellations = Set<TaskKey>()
    var runWaiters = [CheckedContinuation<Void, Never>]()
    var cancellationErrors = [any Error]()

    /// Marks a node's cancellation as told, when its observers are to be told now: it has
    /// observers, they have been attached, and they were not told before.
    ///
    /// - Returns: The node, as its observers see it, when they are to be told.
    mutating func takeCancelNotification(
      _ index: Int,
      info: (Int, State) -> NodeInfo
    ) -> NodeInfo? {
      guard !self.payloads[index].observers.isEmpty, !self.payloads[index].isAttaching,
        !self.payloads[index].isCancelNotified
      else { return nil }
      self.payloads[index].isCancelNotified = true
      return info(index, self)
    }

    /// Starts a node's work, unless the node was cancelled or ended at its deadline first.
    ///
    /// - Parameters:
    ///   - startedAt: The node's start time, unless its observers had it set already.
    ///   - progress: The graph's progress, of which the work gets a child for its unit.
    /// - Returns: Whether the work runs, with its child reporter.
    mutating func beginWork(
      _ node: Int,
      at startedAt: Date?,
      progress: ProgressReporter
    ) -> DirectStart {
      guard !self.machine.nodes[node].isAbandoned else { return .abandoned }
      guard !self.machine.nodes[node].isCancellationRequested else { return .cancelled }
      if let startedAt {
        self.payloads[node].startedAt = startedAt
      }
      // NB: Made under the lock, with the decision, so that a deadline that ends the node finds
      // the reporter to complete, or finds none and counts the unit itself. Making a child takes
      // only the progress's own lock and calls no handler.
      let reporter = progress.makeChild(pendingUnitCount: 1)
      self.payloads[node].reporter = reporter
      return .run(reporter)
    }

    /// Adds a node's payload; a node added to a cancelled graph takes the graph's errors.
    mutating func append(_ payload: NodePayload) {
      var payload = payload
      if self.machine.isCancelled {
        payload.cancellationErrors = self.cancellationErrors
      }
      self.payloads.append(payload)
    }

    /// Records, under the same lock as the decision, the end of every node that the state
    /// machine ended without running, so that no one reads such a node as unfinished, and the
    /// tasks it decided to start, so that a cancellation that comes before a task exists waits
    /// for it instead of being lost.
    mutating func record(_ actions: [GraphStateMachine.Action], now: Date) {
      for action in actions {
        switch action {
        case .endWithoutRunning(let node, let end):
          self.payloads[node].end = end
          // NB: A node with observers has its finish time set between their `willFinish` and
          // `didFinish`, as their contract says (see `endWithoutRunning(_:end:)`).
          if self.payloads[node].observers.isEmpty {
            self.payloads[node].finishedAt = now
          }
          // NB: A node that ended without running never will: its work can go.
          self.payloads[node].body = nil
        case .evaluate(let node):
          self.liveTasks.insert(.evaluation(node))
        case .startWorker(_, let worker):
          self.liveTasks.insert(.worker(worker))
        case .cancelEvaluation, .cancelWorker, .completeRun:
          break
        }
      }
    }

    func report(_ index: Int, graph: Int) -> NodeReport {
      let payload = self.payloads[index]
      let status: NodeStatus =
        switch self.machine.nodes[index].phase {
        case .waiting: .pending
        case .evaluating: .evaluatingConditions
        case .ready: .ready
        case .running, .finishing: .running
        case .finished: payload.end == nil ? .running : .finished(payload.outcome)
        }
      return NodeReport(
        id: GraphNodeID(graph: graph, index: index),
        name: payload.name,
        status: status,
        startedAt: payload.startedAt,
        finishedAt: payload.finishedAt,
        clock: self.clock
      )
    }
  }

  /// What a graph keeps of a node besides its scheduling state.
  struct NodePayload: Sendable {
    let name: String?
    var body: NodeBody?
    var conditions = [any GraphCondition]()
    var categories = [String]()
    var observers = [any GraphObserver]()
    /// Whether the node's observers are being told that they were attached: a cancellation
    /// waits to be told until they have been.
    var isAttaching = false
    /// Whether the node's observers have been told of its cancellation.
    var isCancelNotified = false
    var onEndWithoutRunning: (@Sendable ([any Error]) -> Void)?
    var value: (any Sendable)?
    var errors = [any Error]()
    var conditionErrors = [any Error]()
    var cancellationErrors = [any Error]()
    var end: GraphStateMachine.End?
    var startedAt: Date?
    var finishedAt: Date?
    /// The exclusivity categories the node holds while its work may run: released when its work
    /// returns, even after the node ended at its deadline, or when it ends without running it.
    var heldCategories = [String]()
    /// The child of the graph's progress that the node's running work reports to.
    var reporter: ProgressReporter?

    init(name: String?, body: @escaping NodeBody) {
      self.name = name
      self.body = body
    }

    mutating func record(_ result: Result<any Sendable, any Error>) {
      switch result {
      case .success(let value):
        self.value = value
      case .failure(let error as GraphAggregateError):
        self.errors = error.errors
      case .failure(let error as NodeSkipped):
        self.cancellationErrors += error.errors
      case .failure(is CancellationError):
        break
      case .failure(let error):
        self.errors = [error]
      }
    }

    var outcome: NodeOutcome {
      switch self.end {
      case .succeeded: .succeeded
      case .failed: .failed(self.errors)
      case .cancelled: .cancelled(self.cancellationErrors)
      case .notExecuted: .notExecuted(self.conditionErrors)
      case nil: preconditionFailure("A node's outcome was read before it ended.")
      }
    }

    func result(of node: GraphNodeID) -> Result<any Sendable, any Error>? {
      switch self.end {
      case nil:
        return nil
      case .succeeded:
        guard let value = self.value else {
          preconditionFailure("A node succeeded without a value.")
        }
        return .success(value)
      case .failed:
        return .failure(
          self.errors.count == 1 ? self.errors[0] : GraphAggregateError(errors: self.errors)
        )
      case .cancelled:
        return .failure(GraphNoResultError(node: node, reason: "it was cancelled"))
      case .notExecuted:
        return .failure(
          GraphNoResultError(node: node, reason: "its conditions kept it from running")
        )
      }
    }
  }
}
