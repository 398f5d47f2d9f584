import Foundation
import Testing

/// A temporary directory laid out like `/sys/class/net`, for `LinuxNetworkObserver` tests.
///
/// Each interface is a directory with optional `operstate`, `carrier` and `flags` files; `nil`
/// leaves the file out. The directory is removed when the fixture is released.
final class NetworkInterfaceFixture: Sendable {
  struct Interface: Sendable, CustomTestStringConvertible {
    var name: String
    var operstate: String?
    var carrier: String?
    var flags: String?

    var testDescription: String {
      "\(self.name)(\(self.operstate ?? "-"), \(self.carrier ?? "-"), \(self.flags ?? "-"))"
    }
  }

  let root: URL

  init(_ interfaces: [Interface] = []) throws {
    self.root = FileManager.default.temporaryDirectory
      .appending(path: "net-fixture-\(UUID().uuidString)", directoryHint: .isDirectory)
    try FileManager.default.createDirectory(at: self.root, withIntermediateDirectories: true)
    for interface in interfaces {
      try self.write(interface)
    }
  }

  deinit {
    try? FileManager.default.removeItem(at: self.root)
  }

  /// Creates or replaces an interface directory.
  func write(_ interface: Interface) throws {
    let directory = self.root.appending(path: interface.name, directoryHint: .isDirectory)
    try? FileManager.default.removeItem(at: directory)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let files = [
      ("operstate", interface.operstate), ("carrier", interface.carrier),
      ("flags", interface.flags),
    ]
    for case (let file, let contents?) in files {
      try Data("\(contents)\n".utf8).write(to: directory.appending(path: file))
    }
  }

  /// Writes a plain file at the top level, like `bonding_masters`.
  func writeFile(named name: String, contents: String) throws {
    try Data(contents.utf8).write(to: self.root.appending(path: name))
  }
}
