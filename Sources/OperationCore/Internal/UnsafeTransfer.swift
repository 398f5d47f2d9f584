/// Carries a value that the caller owns exclusively into a closure the compiler cannot see
/// through, such as the body of a lock.
///
/// Use it only for a value received as `sending` and used once, inside the closure.
struct UnsafeTransfer<Value>: @unchecked Sendable {
  // NB: The value was a `sending` parameter, so no other reference to it exists; the transfer
  // moves it into one closure that consumes it once, synchronously, on the same thread.
  let value: Value
}
