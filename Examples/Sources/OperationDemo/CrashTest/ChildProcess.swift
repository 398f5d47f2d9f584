import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A child process of the crash test: this executable, started again with other arguments, whose
/// standard output the parent reads line by line and which it can kill with `SIGKILL`.
///
/// The child's standard error goes to the parent's, so that its crashes show in the log.
///
/// NB: Started with `posix_spawn`, read with a blocking `read` and reaped with `waitpid` on a
/// thread of its own, rather than with Foundation's `Process`: on Linux, `Process`'s
/// `readabilityHandler` and termination handler now and then never reported the end of a killed
/// child, which hung the test. The pipe's ends are close-on-exec, so a child inherits only its
/// own standard output, and its end is seen as soon as it dies.
final class ChildProcess: Sendable {
  /// How a child ended.
  struct Termination: Hashable, Sendable, CustomStringConvertible {
    /// The exit status, or the number of the signal that ended the child.
    let status: Int32
    /// Whether a signal ended the child.
    let bySignal: Bool

    /// Whether `SIGKILL` ended the child.
    var isKilled: Bool {
      self.bySignal && self.status == SIGKILL
    }

    var description: String {
      self.bySignal
        ? (self.status == SIGKILL ? "killed by SIGKILL" : "ended by signal \(self.status)")
        : "exited with status \(self.status)"
    }
  }

  /// The child's process id.
  let pid: pid_t
  /// The lines the child prints, without their newlines; the stream ends when the child's
  /// standard output closes (when it ends).
  let lines: AsyncStream<String>
  /// The write end of the child's standard input, when it was started with one; -1 otherwise.
  private let inputFD: Int32
  private let ending: Locked<Ending>

  private struct Ending {
    var termination: Termination?
    var waiters = [CheckedContinuation<Termination, Never>]()
  }

  /// Starts this executable again with `arguments`.
  ///
  /// - Parameters:
  ///   - arguments: The child's arguments.
  ///   - hasInput: Whether the child's standard input is a pipe that ``send(_:)`` writes to
  ///     (the fleet test's commands); otherwise the child inherits the parent's.
  /// - Throws: The error that kept the process from starting.
  init(arguments: [String], hasInput: Bool = false) throws {
    // NB: `Bundle.main.executableURL` is this executable, on Linux (from /proc/self/exe) and on
    // Apple platforms.
    guard let executable = Bundle.main.executableURL?.path else {
      throw ChildProcessError.noExecutable
    }
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { throw ChildProcessError.system("pipe", errno) }
    // NB: The tests start one child at a time, so no other spawn can inherit a pipe between
    // `pipe` and these calls (`pipe2` would close that window, but Glibc's module does
    // not export it).
    _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
    let (readEnd, writeEnd) = (fds[0], fds[1])
    var inputFDs: [Int32] = [-1, -1]
    if hasInput {
      guard pipe(&inputFDs) == 0 else {
        close(readEnd)
        close(writeEnd)
        throw ChildProcessError.system("pipe", errno)
      }
      _ = fcntl(inputFDs[0], F_SETFD, FD_CLOEXEC)
      _ = fcntl(inputFDs[1], F_SETFD, FD_CLOEXEC)
    }

    #if canImport(Glibc)
      var actions = posix_spawn_file_actions_t()
    #else
      var actions: posix_spawn_file_actions_t?
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // NB: `dup2` clears close-on-exec on the copy: the child's standard output is the pipe.
    posix_spawn_file_actions_adddup2(&actions, writeEnd, STDOUT_FILENO)
    if hasInput {
      posix_spawn_file_actions_adddup2(&actions, inputFDs[0], STDIN_FILENO)
    }

    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") }
    let envp = environment + [nil]
    defer {
      for pointer in argv + envp { free(pointer) }
    }
    var spawnedPid = pid_t()
    let spawned = posix_spawn(&spawnedPid, executable, &actions, nil, argv, envp)
    close(writeEnd)
    if hasInput { close(inputFDs[0]) }
    guard spawned == 0 else {
      close(readEnd)
      if hasInput { close(inputFDs[1]) }
      throw ChildProcessError.system("posix_spawn", spawned)
    }

    let pid = spawnedPid
    let (lines, linesContinuation) = AsyncStream<String>.makeStream()
    let ending = Locked(Ending())
    self.pid = pid
    self.lines = lines
    self.inputFD = hasInput ? inputFDs[1] : -1
    self.ending = ending
    Thread.detachNewThread {
      Self.readLines(from: readEnd, into: linesContinuation)
      close(readEnd)
      let termination = Self.reap(pid)
      let waiters = ending.withLock { ending in
        ending.termination = termination
        defer { ending.waiters.removeAll() }
        return ending.waiters
      }
      for waiter in waiters {
        waiter.resume(returning: termination)
      }
    }
  }

  deinit {
    if self.inputFD >= 0 { close(self.inputFD) }
  }

  /// Sends `SIGKILL`: the child dies at once, with no chance to clean up.
  func kill() {
    self.signal(SIGKILL)
  }

  /// Sends a signal, such as `SIGSTOP` or `SIGCONT`.
  ///
  /// - Parameter number: The signal.
  func signal(_ number: Int32) {
    #if canImport(Glibc)
      _ = Glibc.kill(self.pid, number)
    #else
      _ = Darwin.kill(self.pid, number)
    #endif
  }

  /// Writes a line to the child's standard input; does nothing for a child started without one,
  /// and nothing (no `SIGPIPE`: the parent ignores it) for a child that died.
  ///
  /// - Parameter line: The line, without its newline.
  func send(_ line: String) {
    guard self.inputFD >= 0 else { return }
    // NB: A command is shorter than `PIPE_BUF`, so one `write` sends it whole, and two tasks
    // writing to one child never interleave their lines.
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes {
        write(self.inputFD, $0.baseAddress! + offset, $0.count - offset)
      }
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return }
      offset += written
    }
  }

  /// Waits until the child has ended and its output is read.
  ///
  /// - Returns: How it ended.
  func termination() async -> Termination {
    await withCheckedContinuation { continuation in
      let termination = self.ending.withLock { ending in
        if ending.termination == nil { ending.waiters.append(continuation) }
        return ending.termination
      }
      if let termination {
        continuation.resume(returning: termination)
      }
    }
  }

  /// Reads lines until the end of the file.
  private static func readLines(
    from fd: Int32,
    into continuation: AsyncStream<String>.Continuation
  ) {
    var pending = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      pending.append(contentsOf: buffer[..<count])
      while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
        continuation.yield(String(decoding: pending[..<newline], as: UTF8.self))
        pending.removeSubrange(...newline)
      }
    }
    if !pending.isEmpty {
      continuation.yield(String(decoding: pending, as: UTF8.self))
    }
    continuation.finish()
  }

  /// Waits for the child to end, and reaps it.
  private static func reap(_ pid: pid_t) -> Termination {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      guard errno == EINTR else { return Termination(status: -1, bySignal: false) }
    }
    // NB: The `WIFSIGNALED` and `WEXITSTATUS` macros, which Swift does not import.
    let signal = status & 0x7f
    return signal != 0
      ? Termination(status: signal, bySignal: true)
      : Termination(status: (status >> 8) & 0xff, bySignal: false)
  }
}

/// The crash test could not start a child.
enum ChildProcessError: Error, CustomStringConvertible {
  /// The path of this executable is unknown.
  case noExecutable
  /// A system call failed.
  case system(String, Int32)

  var description: String {
    switch self {
    case .noExecutable:
      "the path of this executable is unknown, so no child can be started"
    case .system(let call, let code):
      "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
  }
}
