#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether this process runs under the thread sanitizer, whose runtime makes concurrent code 10
/// to 30 times slower: tests that hold many tasks at once use fewer of them there, so that the
/// sanitizer's run checks the same interleavings within their time limit.
let isRunningUnderThreadSanitizer: Bool = {
  #if canImport(Glibc) || canImport(Darwin)
    // NB: The sanitizer's runtime defines this symbol; nothing else does. The default handle,
    // which searches the program and its libraries, is null on Linux and -2 on Apple platforms.
    #if canImport(Darwin)
      let everything = UnsafeMutableRawPointer(bitPattern: -2)
    #else
      let everything: UnsafeMutableRawPointer? = nil
    #endif
    return dlsym(everything, "__tsan_init") != nil
  #else
    return false
  #endif
}()
