import OperationCore

/// Runs `body` while calling `onInterrupt` after each of `interrupts`, accumulated.
///
/// `[100ms, 300ms]` calls `onInterrupt(100ms)` 100 ms after the start and `onInterrupt(400ms)`
/// 400 ms after the start, as timed by `delayer`. When `body` ends first, the remaining interrupts
/// never fire. When every interrupt fired, `body` goes on until it ends. When `onInterrupt`
/// throws, `body` is cancelled and its error is thrown.
@MainActor
func withInterrupts<T>(
  _ interrupts: [Duration],
  delayer: any OperationDelayer & Sendable,
  onInterrupt: @escaping @MainActor (_ accumulatedDelay: Duration) throws -> Void,
  body: @escaping @MainActor () async throws -> T
) async throws -> T {
  guard !interrupts.isEmpty else { return try await body() }
  let result = ResultBox<T>()
  let work: @MainActor () async throws -> Void = { result.value = try await body() }
  try await withThrowingTaskGroup(of: InterruptChild.self) { group in
    // NB: The children are not main-actor closures themselves; they call the main-actor closures
    // (one hop each). A `@MainActor` child closure that calls a captured `@MainActor` closure
    // trips the region-based isolation checker of Swift 6.3 ("pattern … does not understand").
    group.addTask {
      try await work()
      return .body
    }
    group.addTask {
      var accumulatedDelay = Duration.zero
      for interrupt in interrupts {
        try await delayer.delay(for: interrupt)
        accumulatedDelay += interrupt
        try await onInterrupt(accumulatedDelay)
      }
      return .interrupts
    }
    do {
      while let child = try await group.next() {
        guard child == .body else { continue }
        group.cancelAll()
        return
      }
    } catch {
      group.cancelAll()
      throw error
    }
  }
  // NB: The group only returns normally once the body child stored its value.
  guard let value = result.value else { throw CancellationError() }
  return value
}

private enum InterruptChild: Sendable {
  case body
  case interrupts
}

@MainActor
private final class ResultBox<T> {
  var value: T?
}
