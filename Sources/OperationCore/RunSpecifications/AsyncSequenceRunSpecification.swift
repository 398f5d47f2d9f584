import OperationSynchronization

// MARK: - AsyncSequenceRunSpecification

/// A run specification whose value is the latest element of an asynchronous sequence of booleans.
///
/// The specification starts iterating the sequence as soon as it is created, so it tracks the
/// value whether or not anything subscribes. Until the sequence produces its first element, the
/// specification answers `initialValue`.
///
/// ```swift
/// let (isLoggedIn, continuation) = AsyncStream.makeStream(of: Bool.self)
/// let spec = AsyncSequenceRunSpecification(sequence: isLoggedIn, initialValue: false)
/// continuation.yield(true)  // Soon after, spec.isSatisfied(in:) is true and subscribers are told.
/// ```
///
/// Observation contract:
/// - Every element is stored, then every subscriber is called once, on the task that iterates the
///   sequence. Elements are not deduplicated: a repeated value notifies again.
/// - Subscribing does not call the handler with the current value; read
///   ``isSatisfied(in:)`` instead.
/// - Releasing the specification cancels the iteration. A sequence that honours cancellation,
///   such as `AsyncStream`, then ends.
public final class AsyncSequenceRunSpecification<
  Elements: AsyncSequence & Sendable
>: OperationRunSpecification, Sendable
where Elements.Element == Bool, Elements.Failure == Never {
  private struct State {
    var value: Bool
    var task: Task<Void, Never>?
  }

  private let state: Lock<State>
  private let handlers = HandlerList<@Sendable () -> Void>()

  /// Creates a specification and starts iterating `sequence`.
  ///
  /// - Parameters:
  ///   - sequence: The sequence of values to follow.
  ///   - initialValue: The value until `sequence` produces its first element.
  public init(sequence: Elements, initialValue: Bool) {
    self.state = Lock(State(value: initialValue))
    let task = Task { [weak self] in
      for await value in sequence {
        guard let self else { return }
        self.receive(value)
      }
    }
    self.state.withLock { $0.task = task }
  }

  deinit {
    let task = self.state.withLock { $0.task }
    task?.cancel()
  }

  /// The latest element of the sequence, or the initial value before the first one.
  ///
  /// - Parameter context: The context of the operation, which is ignored.
  /// - Returns: The latest value.
  public func isSatisfied(in context: OperationContext) -> Bool {
    self.state.withLock { $0.value }
  }

  /// Calls `onChange` after every element of the sequence.
  ///
  /// - Parameters:
  ///   - context: The context of the operation, which is ignored.
  ///   - onChange: Called after each element.
  /// - Returns: A subscription that stops the calls.
  public func subscribe(
    in context: OperationContext,
    onChange: @escaping @Sendable () -> Void
  ) -> OperationSubscription {
    self.handlers.add(onChange)
  }

  private func receive(_ value: Bool) {
    self.state.withLock { $0.value = value }
    for handler in self.handlers.handlers {
      handler()
    }
  }
}

extension OperationRunSpecification {
  /// A run specification whose value is the latest element of an asynchronous sequence.
  ///
  /// ```swift
  /// let query = FeedQuery()
  ///   .enableAutomaticRunning(onlyWhen: .observing(sequence: isLoggedIn, initialValue: false))
  /// ```
  ///
  /// - Parameters:
  ///   - sequence: The sequence of values to follow; iteration starts at once.
  ///   - initialValue: The value until `sequence` produces its first element.
  /// - Returns: An ``AsyncSequenceRunSpecification``.
  public static func observing<Elements>(
    sequence: Elements,
    initialValue: Bool
  ) -> Self where Self == AsyncSequenceRunSpecification<Elements> {
    AsyncSequenceRunSpecification(sequence: sequence, initialValue: initialValue)
  }
}
