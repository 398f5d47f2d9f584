/// A ``MapOperation`` that maps its input with a closure: PeakOperation's `BlockMapOperation`.
///
/// ```swift
/// let negate = BlockMapOperation<Bool, Bool> { input in
///   input.map { !$0 }
/// }
/// ```
///
/// The closure gets the whole input, failures included. Unlike PeakOperation's, it is
/// `@Sendable`, and `Input` and `Output` are `Sendable`, as ``MapOperation``'s are.
open class BlockMapOperation<Input: Sendable, Output: Sendable>: MapOperation<Input, Output>,
  @unchecked Sendable
{
  // NB: `@unchecked Sendable` restates the superclass's conformance; the closure is a `let` of a
  // `Sendable` type.
  private let block: @Sendable (Result<Input, any Error>) -> Result<Output, any Error>

  /// Creates an operation whose input a producer passes.
  ///
  /// - Parameter block: Maps the input to the output.
  public init(
    block: @escaping @Sendable (Result<Input, any Error>) -> Result<Output, any Error>
  ) {
    self.block = block
    super.init()
  }

  /// Creates an operation with a successful input.
  ///
  /// - Parameters:
  ///   - input: The value to map.
  ///   - block: Maps the input to the output.
  public init(
    input: Input,
    block: @escaping @Sendable (Result<Input, any Error>) -> Result<Output, any Error>
  ) {
    self.block = block
    super.init(input: input)
  }

  /// Runs the closure.
  ///
  /// - Parameter input: The operation's input.
  /// - Returns: What the closure returns.
  open override func map(input: Result<Input, any Error>) -> Result<Output, any Error> {
    self.block(input)
  }
}
