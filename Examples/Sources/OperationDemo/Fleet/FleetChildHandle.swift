import Foundation
import OperationDemoSupport

/// A child of the fleet test as the parent drives it: its process, its instance name, and the
/// lines it printed that the parent has not taken yet.
final class FleetChildHandle: Sendable {
  /// The child's instance name in the fleet (also its outbox worker and its connections'
  /// `application_name`).
  let instance: String
  /// The process.
  let process: ChildProcess
  private let mailbox = Locked(Mailbox())

  private struct Mailbox {
    var lines = [FleetChildLine]()
    var isEnded = false
  }

  /// Starts a child.
  ///
  /// - Parameters:
  ///   - instance: Its instance name.
  ///   - arguments: Its arguments.
  /// - Throws: The error that kept the process from starting.
  init(instance: String, arguments: [String]) throws {
    self.instance = instance
    self.process = try ChildProcess(arguments: arguments, hasInput: true)
    let (mailbox, lines) = (self.mailbox, self.process.lines)
    Task {
      for await line in lines {
        guard let parsed = FleetChildLine(parsing: line) else { continue }
        if case .failed(let message) = parsed {
          FileHandle.standardError.write(Data("\(instance): \(message)\n".utf8))
        }
        mailbox.withLock { $0.lines.append(parsed) }
      }
      mailbox.withLock { $0.isEnded = true }
    }
  }

  /// Writes a command to the child.
  func send(_ command: FleetCommand) {
    self.process.send(command.text)
  }

  /// Takes the first line that `match` accepts, waiting for it until `timeout`.
  ///
  /// - Parameters:
  ///   - timeout: How long to wait.
  ///   - match: What to take from a line; `nil` for a line to leave.
  /// - Returns: What `match` took; `nil` when no such line came in time, or the child ended.
  func take<Value>(
    within timeout: Duration,
    _ match: (FleetChildLine) -> Value?
  ) async -> Value? {
    let deadline = ContinuousClock.now + timeout
    while true {
      let (value, isEnded) = self.mailbox.withLock { mailbox -> (Value?, Bool) in
        for (index, line) in mailbox.lines.enumerated() {
          if let value = match(line) {
            mailbox.lines.remove(at: index)
            return (value, false)
          }
        }
        return (nil, mailbox.isEnded)
      }
      if let value { return value }
      guard !isEnded, ContinuousClock.now < deadline else { return nil }
      try? await Task.sleep(for: .milliseconds(5))
    }
  }

  /// Asks for the child's counters.
  ///
  /// - Returns: The counters; `nil` when the child did not answer within 10 seconds.
  func counters() async -> FleetCounters? {
    self.send(.statistics)
    return await self.take(within: .seconds(10)) { line in
      if case .statistics(let counters) = line { counters } else { nil }
    }
  }

  /// Asks the child to quit, and kills it if it has not ended within 5 seconds.
  func stop() async {
    self.send(.quit)
    await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        _ = await self.process.termination()
        return true
      }
      group.addTask {
        (try? await Task.sleep(for: .seconds(5))) == nil
      }
      if await group.next() == false {
        self.process.signal(SIGCONT)
        self.process.kill()
      }
      group.cancelAll()
    }
  }
}
