import OperationSynchronization

/// The process-wide locks behind mutual exclusion: one FIFO lock per category.
///
/// A node with a mutually exclusive condition acquires its categories' locks on its worker, once
/// it has a slot to run in, and holds them until its work returns, so two nodes of one category
/// never run at the same time, in any graph of the process. Only running nodes hold or wait for
/// these locks, so a lock's holder is always on its way to releasing it. Waiters get the lock in the order they
/// asked for it. A node with several categories acquires them in sorted order, so two nodes
/// never wait for each other's locks.
package final class ExclusivityLocks: Sendable {
  /// The locks of the process.
  package static let shared = ExclusivityLocks()

  private struct Waiter {
    let id: Int
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct Category {
    var waiters = [Waiter]()
  }

  /// - `held`: the categories whose lock someone holds, each with the queue of those waiting.
  /// - `registering`: waiters that have an id but whose continuation is not in a queue yet;
  ///   `cancelledEarly`: those of them whose task was cancelled meanwhile.
  private struct State {
    var held = [String: Category]()
    var nextID = 0
    var registering = Set<Int>()
    var cancelledEarly = Set<Int>()
    var queueWatchers = [
      (category: String, count: Int, continuation: CheckedContinuation<Void, Never>)
    ]()

    /// Takes the watchers whose category now has enough waiters.
    mutating func takeSatisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
      var satisfied = [CheckedContinuation<Void, Never>]()
      self.queueWatchers.removeAll { watcher in
        guard (self.held[watcher.category]?.waiters.count ?? 0) >= watcher.count else {
          return false
        }
        satisfied.append(watcher.continuation)
        return true
      }
      return satisfied
    }
  }

  private enum Registration {
    case cancelled
    case acquired
    case queued
  }

  private let state = Lock(State())

  package init() {}

  /// Whether someone holds the category's lock.
  package func isHeld(_ category: String) -> Bool {
    self.state.withLock { $0.held[category] != nil }
  }

  /// Waits for the category's lock and takes it.
  ///
  /// - Throws: `CancellationError` when the task is cancelled while it waits; it then holds
  ///   nothing.
  package func acquire(_ category: String) async throws {
    let id = self.state.withLock { state -> Int? in
      guard state.held[category] != nil else {
        state.held[category] = Category()
        return nil
      }
      defer { state.nextID += 1 }
      state.registering.insert(state.nextID)
      return state.nextID
    }
    guard let id else { return }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        let (outcome, watchers) = self.state.withLock {
          state -> (Registration, [CheckedContinuation<Void, Never>]) in
          state.registering.remove(id)
          if state.cancelledEarly.remove(id) != nil {
            return (.cancelled, [])
          }
          // NB: The holder may have released the lock between the first look and now.
          guard state.held[category] != nil else {
            state.held[category] = Category()
            return (.acquired, [])
          }
          state.held[category]!.waiters.append(Waiter(id: id, continuation: continuation))
          return (.queued, state.takeSatisfiedWatchers())
        }
        for watcher in watchers {
          watcher.resume()
        }
        switch outcome {
        case .cancelled: continuation.resume(throwing: CancellationError())
        case .acquired: continuation.resume()
        case .queued: break
        }
      }
    } onCancel: {
      let waiter = self.state.withLock { state -> Waiter? in
        if state.registering.contains(id) {
          state.cancelledEarly.insert(id)
          return nil
        }
        guard let position = state.held[category]?.waiters.firstIndex(where: { $0.id == id })
        else { return nil }
        return state.held[category]!.waiters.remove(at: position)
      }
      waiter?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Releases the categories' locks, handing each to its first waiter.
  package func release(_ categories: [String]) {
    guard !categories.isEmpty else { return }
    let next = self.state.withLock { state -> [Waiter] in
      var next = [Waiter]()
      for category in categories {
        guard var entry = state.held[category] else { continue }
        if entry.waiters.isEmpty {
          state.held[category] = nil
        } else {
          next.append(entry.waiters.removeFirst())
          state.held[category] = entry
        }
      }
      return next
    }
    for waiter in next {
      waiter.continuation.resume()
    }
  }

  /// Waits until at least `count` tasks wait for the category's lock: a handshake for tests.
  package func waitForWaiters(_ category: String, count: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let isReady = self.state.withLock { state -> Bool in
        guard (state.held[category]?.waiters.count ?? 0) < count else { return true }
        state.queueWatchers.append((category, count, continuation))
        return false
      }
      if isReady {
        continuation.resume()
      }
    }
  }
}
