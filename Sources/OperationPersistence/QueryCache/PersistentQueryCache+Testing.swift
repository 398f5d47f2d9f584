import OperationSynchronization

extension PersistentQueryCache {
  /// Waits until every background load (of a store created on a storage without synchronous
  /// reads) has read its entry and set its value, or found that the store recorded a newer one.
  @_spi(Testing)
  public func waitForBackgroundLoads() async {
    await withCheckedContinuation { continuation in
      let isIdle = self.backgroundLoads.withLock { loads -> Bool in
        guard loads.count > 0 else { return true }
        loads.waiters.append(continuation)
        return false
      }
      if isIdle { continuation.resume() }
    }
  }
}

/// The background loads in flight, and who waits for them to end.
struct BackgroundLoads: Sendable {
  var count = 0
  var waiters = [CheckedContinuation<Void, Never>]()
}

extension PersistentQueryCache {
  /// Counts a background load that starts.
  func beginBackgroundLoad() {
    self.backgroundLoads.withLock { $0.count += 1 }
  }

  /// Counts a background load that ended, and tells the waiters when none is left.
  func endBackgroundLoad() {
    let waiters = self.backgroundLoads.withLock { loads -> [CheckedContinuation<Void, Never>] in
      loads.count -= 1
      guard loads.count == 0 else { return [] }
      defer { loads.waiters.removeAll() }
      return loads.waiters
    }
    for waiter in waiters {
      waiter.resume()
    }
  }
}
