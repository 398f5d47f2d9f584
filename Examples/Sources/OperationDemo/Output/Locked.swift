import Foundation

/// A value behind a lock, for the demo's shared counters and switches.
///
/// NB: The demo is an executable, not library code, so it uses Foundation's `NSLock` (which the
/// thread sanitizer understands on Linux) rather than the library's package-internal lock, which
/// the demo must not use: it only touches the library's public API.
final class Locked<Value>: @unchecked Sendable {
  // NB: Every access to `value` happens inside `withLock`, under `lock`, so sharing the box
  // between tasks is safe.
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) {
    self.value = value
  }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    self.lock.lock()
    defer { self.lock.unlock() }
    return try body(&self.value)
  }
}
