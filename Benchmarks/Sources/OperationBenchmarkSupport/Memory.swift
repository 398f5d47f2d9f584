import CHeapStatistics

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The process's memory, read from the operating system.
public enum Memory {
  /// The resident set size in bytes (`/proc/self/statm`); 0 where it cannot be read.
  public static var residentBytes: Int {
    #if os(Linux)
      let fd = open("/proc/self/statm", O_RDONLY)
      guard fd >= 0 else { return 0 }
      defer { close(fd) }
      var buffer = [UInt8](repeating: 0, count: 256)
      let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 256) }
      guard count > 0 else { return 0 }
      let fields = String(decoding: buffer[0..<count], as: UTF8.self).split(separator: " ")
      guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
      return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    #else
      return 0
    #endif
  }

  /// The bytes that the C heap has handed out and not taken back (glibc's `mallinfo2`); 0 where
  /// it cannot be read.
  public static var heapBytesInUse: Int {
    Int(benchmark_heap_bytes_in_use())
  }

  /// Both figures at once.
  public static func snapshot() -> Snapshot {
    Snapshot(resident: Self.residentBytes, heap: Self.heapBytesInUse)
  }

  /// The resident and heap bytes at one moment.
  public struct Snapshot: Sendable {
    /// The resident set size in bytes.
    public let resident: Int
    /// The heap bytes in use.
    public let heap: Int
  }
}

/// Nanoseconds since an instant of the continuous clock.
public func nanoseconds(since start: ContinuousClock.Instant) -> Int {
  let elapsed = ContinuousClock.now - start
  return Int(elapsed.components.seconds) * 1_000_000_000
    + Int(elapsed.components.attoseconds / 1_000_000_000)
}
