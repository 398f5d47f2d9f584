public import Foundation

extension ConcurrentOperation {
  /// Posted on `NotificationCenter.default` as an operation is about to start.
  ///
  /// The notification's `object` is the operation; its `userInfo` holds the operation's `name`
  /// under `"name"` and the name of the queue that started it under `"queue"`, when they have
  /// one. The raw value is PeakOperation's, so code that matches on it keeps working.
  public static let operationWillStart = Notification.Name(
    "PeakOperation.ConcurrentOperation.operationWillStart"
  )

  /// Posted once an operation has started (it has a start date), before it executes.
  public static let operationDidStart = Notification.Name(
    "PeakOperation.ConcurrentOperation.operationDidStart"
  )

  /// Posted as an operation is about to finish (it has no finish date yet).
  public static let operationWillFinish = Notification.Name(
    "PeakOperation.ConcurrentOperation.operationWillFinish"
  )

  /// Posted once an operation has finished.
  public static let operationDidFinish = Notification.Name(
    "PeakOperation.ConcurrentOperation.operationDidFinish"
  )
}
