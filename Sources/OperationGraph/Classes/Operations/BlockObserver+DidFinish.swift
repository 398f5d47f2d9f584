extension BlockObserver {
  /// Creates an observer that runs a closure once the operation has finished, so that
  /// Operations' trailing-closure spelling compiles:
  ///
  /// ```swift
  /// save.addObserver(BlockObserver { _, errors in
  ///   print("Did save contact")
  /// })
  /// ```
  ///
  /// Without it a trailing closure would match the first parameter of
  /// ``init(didAttach:willStart:didStart:didCancel:didProduce:willFinish:didFinish:)``,
  /// `didAttach`, which takes one argument.
  ///
  /// - Parameter didFinish: Called with the operation and its errors once it finished.
  public init(_ didFinish: @escaping @Sendable (ConcurrentOperation, [any Error]) -> Void) {
    self.init(didAttach: nil, didFinish: didFinish)
  }
}
