import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The fault tests' second process: the `OperationPersistenceProbe` executable, built beside the
/// test bundle.
final class ProbeProcess {
  let process = Process()
  private let input = Pipe()
  private let output = Pipe()
  private var buffer = Data()

  /// Starts the probe with `arguments`.
  init(_ arguments: [String]) throws {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    self.process.executableURL = directory.appendingPathComponent("OperationPersistenceProbe")
    self.process.arguments = arguments
    self.process.standardInput = self.input
    self.process.standardOutput = self.output
    try self.process.run()
  }

  var pid: Int32 { self.process.processIdentifier }

  /// The next line the probe prints; `nil` at the end of its output.
  func readLine() -> String? {
    while true {
      if let newline = self.buffer.firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: self.buffer[..<newline], as: UTF8.self)
        self.buffer.removeSubrange(...newline)
        return line
      }
      let data = self.output.fileHandleForReading.availableData
      guard !data.isEmpty else { return nil }
      self.buffer.append(data)
    }
  }

  /// Every line the probe prints until it exits.
  func readAllLines() -> [String] {
    var lines = [String]()
    while let line = self.readLine() { lines.append(line) }
    return lines
  }

  /// Sends a signal to the probe.
  func send(_ signal: Int32) {
    kill(self.pid, signal)
  }

  /// Closes the probe's standard input and waits for it to exit; returns its status.
  @discardableResult
  func finish() -> Int32 {
    try? self.input.fileHandleForWriting.close()
    self.process.waitUntilExit()
    return self.process.terminationStatus
  }

  deinit {
    if self.process.isRunning {
      kill(self.pid, SIGKILL)
      self.process.waitUntilExit()
    }
  }
}
