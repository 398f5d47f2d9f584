/// A request that the embedded server holds before answering it, until the step that asked for
/// the hold releases it (``ServerState/holdNextRequest(withKey:)``).
///
/// While the request is held, its operation is in flight for as long as the step needs to look
/// at the client's stores, with no timing involved.
final class RequestHold: Sendable {
  /// The held request's key.
  let key: String
  private let arrivals: AsyncStream<Void>
  private let arrival: AsyncStream<Void>.Continuation
  private let releases: AsyncStream<Void>
  private let releaser: AsyncStream<Void>.Continuation

  init(key: String) {
    self.key = key
    (self.arrivals, self.arrival) = AsyncStream<Void>.makeStream()
    (self.releases, self.releaser) = AsyncStream<Void>.makeStream()
  }

  /// Called by the server for the held request: tells the step it arrived, then waits until it
  /// is released (or its task is cancelled).
  func hold() async {
    self.arrival.yield()
    self.arrival.finish()
    for await _ in self.releases {}
  }

  /// Waits until the request arrives.
  ///
  /// - Parameter timeout: How long to wait.
  /// - Returns: Whether the request arrived in time.
  func waitForArrival(within timeout: Duration) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        for await _ in self.arrivals {
          return true
        }
        return false
      }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return false
      }
      let arrived = await group.next() ?? false
      group.cancelAll()
      return arrived
    }
  }

  /// Lets the request go on; harmless if it is released already or never arrived.
  func release() {
    self.releaser.finish()
  }
}
