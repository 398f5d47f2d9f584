import OperationSynchronization

/// The shared machinery of network observers that poll for their status on an injected clock.
///
/// The core keeps the latest status and the subscribers, and runs one polling task at a time:
/// the task polls at once, then after every tick of `sleep`. A poll's result is applied only if
/// the task that made it is still the current one, so a poll that finishes after ``stop()`` or a
/// restart cannot overwrite a newer status. Subscribers are called only when the status changes,
/// after the lock is released, on the thread that applied the status.
///
/// The polling task holds the core weakly between polls, so releasing the observer that owns the
/// core ends the loop (its `deinit` also cancels the task).
package final class PollingNetworkObserverCore: Sendable {
  private struct State {
    var status: NetworkConnectionStatus
    var task: Task<Void, Never>?
    /// Increases on every start and stop; a polling task applies results only while the
    /// generation it was started with is current.
    var generation = 0
  }

  private let state: Lock<State>
  private let handlers = HandlerList<@Sendable (NetworkConnectionStatus) -> Void>()
  private let sleep: @Sendable () async throws -> Void
  private let poll: @Sendable () async -> NetworkConnectionStatus?

  /// Creates a stopped core.
  ///
  /// - Parameters:
  ///   - initialStatus: The status before the first poll.
  ///   - sleep: Waits for the next tick; throwing ends the polling loop.
  ///   - poll: Reads the status; `nil` means "no information" and leaves the status unchanged.
  package init(
    initialStatus: NetworkConnectionStatus,
    sleep: @escaping @Sendable () async throws -> Void,
    poll: @escaping @Sendable () async -> NetworkConnectionStatus?
  ) {
    self.state = Lock(State(status: initialStatus))
    self.sleep = sleep
    self.poll = poll
  }

  deinit {
    let task = self.state.withLock { $0.task }
    task?.cancel()
  }

  package var currentStatus: NetworkConnectionStatus {
    self.state.withLock { $0.status }
  }

  package var isRunning: Bool {
    self.state.withLock { $0.task != nil }
  }

  /// Starts polling, restarting (and so polling at once) if already running.
  package func start() {
    let previous = self.state.withLock { state in
      let previous = state.task
      state.generation += 1
      state.task = self.makeTask(generation: state.generation)
      return previous
    }
    previous?.cancel()
  }

  /// Starts polling unless already running.
  package func startIfNeeded() {
    self.state.withLock { state in
      guard state.task == nil else { return }
      state.generation += 1
      state.task = self.makeTask(generation: state.generation)
    }
  }

  /// Stops polling; a poll in flight is discarded.
  package func stop() {
    let task = self.state.withLock { state in
      let task = state.task
      state.generation += 1
      state.task = nil
      return task
    }
    task?.cancel()
  }

  /// Sets the status now and notifies subscribers if it changed.
  func update(_ status: NetworkConnectionStatus) {
    let changed = self.state.withLock { state in
      guard state.status != status else { return false }
      state.status = status
      return true
    }
    if changed {
      self.notify(status)
    }
  }

  /// Adds `handler`, calls it at once with the current status, and starts polling if needed.
  package func subscribe(
    with handler: @escaping @Sendable (NetworkConnectionStatus) -> Void
  ) -> OperationSubscription {
    let subscription = self.handlers.add(handler)
    handler(self.currentStatus)
    self.startIfNeeded()
    return subscription
  }

  private func makeTask(generation: Int) -> Task<Void, Never> {
    let sleep = self.sleep
    return Task { [weak self] in
      guard await self?.pollOnce(generation: generation) == true else { return }
      while !Task.isCancelled {
        do {
          try await sleep()
        } catch {
          return
        }
        guard !Task.isCancelled, await self?.pollOnce(generation: generation) == true else {
          return
        }
      }
    }
  }

  /// Polls once and applies the result if `generation` is still current; returns whether the
  /// loop should go on.
  private func pollOnce(generation: Int) async -> Bool {
    let status = await self.poll()
    let result = self.state.withLock { state -> (keepGoing: Bool, changed: Bool) in
      guard state.generation == generation else { return (false, false) }
      guard let status, status != state.status else { return (true, false) }
      state.status = status
      return (true, true)
    }
    if result.changed, let status {
      self.notify(status)
    }
    return result.keepGoing
  }

  private func notify(_ status: NetworkConnectionStatus) {
    for handler in self.handlers.handlers {
      handler(status)
    }
  }
}
