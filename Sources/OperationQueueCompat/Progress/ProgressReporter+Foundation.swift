public import Foundation
import OperationCore
import OperationGraph
import OperationSynchronization

extension ProgressReporter {
  /// A Foundation `Progress` that mirrors this reporter, for APIs that take one.
  ///
  /// Its units follow every change of this reporter until the reporter is finished. While
  /// children are partly done, the fraction is scaled onto more units (a million, or the
  /// reporter's total when it is larger) so that the Foundation progress's `fractionCompleted`
  /// matches this reporter's; otherwise its units are this reporter's own. It works on Linux,
  /// where Foundation has no KVO: read it or poll it, or observe this reporter instead.
  ///
  /// The mirror only follows: cancelling, pausing or changing the Foundation progress does
  /// nothing to this reporter. It is a discrete progress, so it never joins a Foundation
  /// progress that is current on the calling thread.
  ///
  /// ```swift
  /// let reporter = ProgressReporter()
  /// let progress = reporter.foundationProgress()
  /// reporter.advance(by: 30)
  /// progress.fractionCompleted  // 0.3
  /// ```
  ///
  /// - Returns: A new Foundation progress that mirrors this reporter.
  public func foundationProgress() -> Foundation.Progress {
    let progress = Foundation.Progress.discreteProgress(totalUnitCount: 0)
    let mirror = FoundationMirror(progress: progress)
    // NB: The subscriber lives in this reporter until it finishes, as long as the Foundation
    // progress is meant to follow it; nothing else can keep it alive, since a Foundation
    // progress cannot own a subscription.
    let subscriber = Subscriber { [weak self] value in
      mirror.apply(value)
      if value.isFinished, let self {
        self.removeFoundationMirror(mirror)
      }
    }
    mirror.subscriber = subscriber
    let (version, value) = self.add(subscriber)
    subscriber.deliver(version: version, progress: value)
    return progress
  }

  fileprivate func removeFoundationMirror(_ mirror: FoundationMirror) {
    guard let subscriber = mirror.subscriber else { return }
    self.remove(subscriber)
  }
}

/// Writes a reporter's progress into a Foundation `Progress`.
private final class FoundationMirror: Sendable {
  let progress: Foundation.Progress
  // NB: Set once, right after `init` and before the subscriber is added, so no delivery can
  // read it before it is written; `Lock` keeps the compiler's guarantees anyway.
  private let storedSubscriber = Lock<ProgressReporter.Subscriber?>(nil)

  init(progress: Foundation.Progress) {
    self.progress = progress
  }

  var subscriber: ProgressReporter.Subscriber? {
    get { self.storedSubscriber.withLock { $0 } }
    set { self.storedSubscriber.withLock { $0 = newValue } }
  }

  /// Scales a fraction with partly done children onto enough units that Foundation's
  /// `completed / total` equals it to within a millionth.
  func apply(_ value: OperationProgress) {
    let total: Int64
    let completed: Int64
    let exact =
      value.totalUnitCount > 0
      ? Double(value.completedUnitCount) / Double(value.totalUnitCount) : 0
    if value.fractionCompleted == exact {
      total = value.totalUnitCount
      completed = value.completedUnitCount
    } else {
      total = max(value.totalUnitCount, 1_000_000)
      completed = Int64((value.fractionCompleted * Double(total)).rounded())
    }
    // NB: Deliveries to one subscriber are never concurrent, so only this method writes the
    // units. The order keeps completed ≤ total at every step for readers on other threads.
    if total < self.progress.totalUnitCount {
      self.progress.completedUnitCount = completed
      self.progress.totalUnitCount = total
    } else {
      self.progress.totalUnitCount = total
      self.progress.completedUnitCount = completed
    }
  }
}
