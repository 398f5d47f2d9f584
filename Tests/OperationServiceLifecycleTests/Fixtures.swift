import Foundation
import OperationSynchronization
import OperationTestSupport

/// A directory of its own under the temporary directory, removed when the value is released.
final class TemporaryDirectory: Sendable {
  let path: String

  init() {
    self.path = FileManager.default.temporaryDirectory
      .appendingPathComponent("operation-service-lifecycle-\(UUID().uuidString)").path
    try! FileManager.default.createDirectory(atPath: self.path, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(atPath: self.path)
  }

  /// The path of a file in the directory.
  func file(_ name: String) -> String {
    (self.path as NSString).appendingPathComponent(name)
  }
}

/// An upstream server that records the deliveries it starts and completes, and holds each one
/// until it is released.
final class HeldUpstream: Sendable {
  private struct State {
    var started = [String]()
    var completed = [String]()
  }

  private let state = Lock(State())
  private let requested = Gate()
  private let released = Gate()

  var started: [String] { self.state.withLock { $0.started } }
  var completed: [String] { self.state.withLock { $0.completed } }

  /// Waits until a delivery has started.
  func waitForRequest() async {
    await self.requested.wait()
  }

  /// Lets every delivery, held or to come, complete.
  func release() {
    self.released.open()
  }

  func receive(_ text: String) async throws -> String {
    self.state.withLock { $0.started.append(text) }
    self.requested.open()
    await self.released.wait()
    try Task.checkCancellation()
    self.state.withLock { $0.completed.append(text) }
    return "delivered \(text)"
  }
}
