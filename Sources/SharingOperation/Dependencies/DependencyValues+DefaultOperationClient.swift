public import Dependencies
public import Operation

extension DependencyValues {
  /// The client that ``SharedOperation`` gets its stores from when it is not given one.
  ///
  /// The live value is one `OperationClient` for the whole process, so every wrapper created
  /// from the same operation shares one store. Under a test runner every test gets a fresh
  /// `OperationClient()`, which uses the testing store creator (no retries, no delays, no reruns on
  /// network changes), so tests never share stores.
  ///
  /// Override it for a part of your app or a test with `withDependencies`:
  ///
  /// ```swift
  /// let client = OperationClient(storeCreator: .defaultTesting)
  /// let model = withDependencies {
  ///   $0.defaultOperationClient = client
  /// } operation: {
  ///   PostModel(id: 1)
  /// }
  /// ```
  ///
  /// Operations can use it too, for example to update the stores of other operations:
  ///
  /// ```swift
  /// @Dependency(\.defaultOperationClient) var client
  /// for store in client.stores(matching: ["posts"], of: Post.Query.State.self) {
  ///   store.currentValue = nil
  /// }
  /// ```
  public var defaultOperationClient: OperationClient {
    get { self[DefaultOperationClientKey.self] }
    set { self[DefaultOperationClientKey.self] = newValue }
  }
}

private enum DefaultOperationClientKey: DependencyKey {
  static let liveValue = OperationClient()

  // NB: A computed value, so that each test, which swift-dependencies gives a cache of its own,
  // gets a new client instead of sharing the live one.
  static var testValue: OperationClient {
    OperationClient()
  }
}
