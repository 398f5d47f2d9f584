/// One page of a ``PaginatedRequest``: the page's identifier and the value fetched for it.
///
/// A store keeps its pages in order in a ``Pages`` list, so a view can show every page one after
/// the other:
///
/// ```swift
/// for page in store.currentValue {
///   print(page.id, page.value.posts.count)
/// }
/// ```
public struct Page<ID: Hashable & Sendable, Value: Sendable>: Identifiable, Sendable {
  /// The identifier of the page, such as a page number or a cursor.
  public var id: ID

  /// The value fetched for the page.
  public var value: Value

  /// Creates a page.
  ///
  /// - Parameters:
  ///   - id: The identifier of the page.
  ///   - value: The value fetched for the page.
  public init(id: ID, value: Value) {
    self.id = id
    self.value = value
  }
}

extension Page: Equatable where Value: Equatable {}
extension Page: Hashable where Value: Hashable {}
