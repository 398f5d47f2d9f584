import SharingOperation

// The models of the ObservingState article's sections "Keeping the previous value while a new
// operation loads" and "Observing a selection", as written there.

/// Shows one post at a time; the next one loads behind the previous one, dimmed.
@MainActor
@Observable
final class PostPagerModel {
  private(set) var id: Int

  @ObservationIgnored
  @SharedOperation<Post.Query.State> var post: Post??

  init(id: Int) {
    self.id = id
    self._post = SharedOperation(Post.query(for: id))
  }

  var title: String {
    self.post??.title ?? "Loading…"
  }

  var isDimmed: Bool {
    self.$post.isPlaceholder
  }

  func nextButtonTapped() {
    self.id += 1
    self.$post = SharedOperation(Post.query(for: self.id), placeholder: .previousValue)
  }
}

/// Shows a post's title, and updates only when the title changes.
@MainActor
@Observable
final class PostTitleModel {
  @ObservationIgnored
  @SharedSelection<String?> var title: String?

  init(id: Int) {
    self._title = SharedSelection(Post.query(for: id)) { $0.currentValue??.title }
  }
}
