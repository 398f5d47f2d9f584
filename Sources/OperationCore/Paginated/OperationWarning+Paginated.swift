@_spi(Warnings)
extension OperationWarning {
  /// A refetch of every page came back to a page it had already refetched, so it stopped there.
  ///
  /// - Parameters:
  ///   - requestType: The type of the paginated request.
  ///   - pageId: The identifier that came around again.
  public static func paginatedRequestRepeatedPageId(
    requestType: any Any.Type,
    pageId: any Sendable
  ) -> Self {
    Self(
      """
      A refetch of every page of \(typeName(requestType)) came back to page \(pageId), which it \
      had already refetched, so it stopped there.

      pageId(after:using:in:) must lead from the first page to the last without repeating a page; \
      return nil after the last page.
      """
    )
  }
}
