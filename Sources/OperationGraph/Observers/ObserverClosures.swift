/// The closures of an observer made of closures, one optional closure per event: the one
/// implementation behind ``GraphBlockObserver`` and `OperationQueueCompat`'s `BlockObserver`,
/// which differ only in what they observe.
///
/// - `Subject`: what is observed (a graph's ``NodeInfo``, an operation);
/// - `Produced`: what the subject produces (a node, an operation);
/// - `Outcome`: what the finish events carry (a ``NodeOutcome``, an operation's errors).
///
/// Each event calls its closure, when there is one, with no lock held.
package struct ObserverClosures<Subject, Produced, Outcome>: Sendable {
  private let onAttach: (@Sendable (Subject) -> Void)?
  private let onWillStart: (@Sendable (Subject) -> Void)?
  private let onDidStart: (@Sendable (Subject) -> Void)?
  private let onDidCancel: (@Sendable (Subject, [any Error]) -> Void)?
  private let onDidProduce: (@Sendable (_ produced: Produced, _ producer: Subject) -> Void)?
  private let onWillFinish: (@Sendable (Subject, Outcome) -> Void)?
  private let onDidFinish: (@Sendable (Subject, Outcome) -> Void)?

  /// Gathers the closures; each is optional.
  package init(
    didAttach: (@Sendable (Subject) -> Void)?,
    willStart: (@Sendable (Subject) -> Void)?,
    didStart: (@Sendable (Subject) -> Void)?,
    didCancel: (@Sendable (Subject, [any Error]) -> Void)?,
    didProduce: (@Sendable (_ produced: Produced, _ producer: Subject) -> Void)?,
    willFinish: (@Sendable (Subject, Outcome) -> Void)?,
    didFinish: (@Sendable (Subject, Outcome) -> Void)?
  ) {
    self.onAttach = didAttach
    self.onWillStart = willStart
    self.onDidStart = didStart
    self.onDidCancel = didCancel
    self.onDidProduce = didProduce
    self.onWillFinish = willFinish
    self.onDidFinish = didFinish
  }

  package func attached(to subject: Subject) {
    self.onAttach?(subject)
  }

  package func willStart(_ subject: Subject) {
    self.onWillStart?(subject)
  }

  package func didStart(_ subject: Subject) {
    self.onDidStart?(subject)
  }

  package func cancelled(_ subject: Subject, errors: [any Error]) {
    self.onDidCancel?(subject, errors)
  }

  package func produced(_ produced: Produced, by producer: Subject) {
    self.onDidProduce?(produced, producer)
  }

  package func willFinish(_ subject: Subject, outcome: Outcome) {
    self.onWillFinish?(subject, outcome)
  }

  package func didFinish(_ subject: Subject, outcome: Outcome) {
    self.onDidFinish?(subject, outcome)
  }
}
