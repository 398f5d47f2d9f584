import Operation

/// Prints a store's status each time it changes, and counts the store's runs.
///
/// Pass ``stateChanged`` and ``runStarted`` to a store's `subscribe(with:)` (an observer) or to a
/// single run's `handler:` (`fetch(handler:)`, `fetchNextPage(handler:)`, `mutate(with:handler:)`).
final class StatusPrinter<State: OperationState & Sendable>: Sendable {
  let label: String
  private let terminal: Terminal
  private let describe: @Sendable (State) -> String
  private let lastText = Locked<String?>(nil)
  private let runs = Locked(0)

  /// Creates a printer for a store.
  ///
  /// - Parameters:
  ///   - store: The store whose state is printed; only its type is used.
  ///   - label: The label of the lines.
  ///   - terminal: Where the lines go.
  ///   - describe: The text of a state; a line is printed when it changes.
  init(
    for store: OperationStore<State>,
    label: String,
    terminal: Terminal,
    describe: @escaping @Sendable (State) -> String
  ) {
    self.label = label
    self.terminal = terminal
    self.describe = describe
  }

  /// The text of the last state printed.
  var lastStatus: String? {
    self.lastText.withLock { $0 }
  }

  /// The number of runs of the store this printer saw start.
  var runCount: Int {
    self.runs.withLock { $0 }
  }

  /// Prints the state's text when it differs from the last one.
  var stateChanged: @Sendable (State, OperationContext) -> Void {
    { [self] state, _ in
      let text = self.describe(state)
      let isNew = self.lastText.withLock { last in
        defer { last = text }
        return last != text
      }
      if isNew {
        self.terminal.event(self.label, text)
      }
    }
  }

  /// Counts a run.
  var runStarted: @Sendable (OperationContext) -> Void {
    { [self] _ in self.runs.withLock { $0 += 1 } }
  }
}

/// Formats a status, such as `loading` or `success: "The quiet harbor"`.
func statusText<Value, Failure>(
  _ status: OperationStatus<Value, Failure>,
  value: (Value) -> String
) -> String {
  switch status {
  case .idle: "idle"
  case .loading: "loading"
  case .result(.success(let success)): "success: \(value(success))"
  case .result(.failure(let error)): status.isCancelled ? "cancelled" : "failure: \(error)"
  }
}
