import Foundation
import OperationPersistence
import OperationSynchronization

/// A database file in a directory of its own under the temporary directory, removed when the
/// value is released.
final class TemporaryDatabase: Sendable {
  let directory: URL
  let path: String

  init() {
    self.directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("operation-persistence-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
    self.path = self.directory.appendingPathComponent("db.sqlite").path
  }

  deinit {
    try? FileManager.default.removeItem(at: self.directory)
  }

  /// A new connection to the file.
  func open() throws -> SQLitePersistence {
    try SQLitePersistence(path: self.path)
  }
}

/// Records values from any thread.
final class Recorder<Value: Sendable>: Sendable {
  private let storage = Lock<[Value]>([])

  var values: [Value] { self.storage.withLock { $0 } }

  func record(_ value: Value) {
    self.storage.withLock { $0.append(value) }
  }
}
