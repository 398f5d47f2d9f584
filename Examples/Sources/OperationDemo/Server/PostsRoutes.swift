import Foundation
import Hummingbird
import OperationDemoSupport

/// The posts API, shaped like dummyjson.com's:
///
/// - `GET /posts?limit=&skip=` answers `{posts, total, skip, limit}`, newest post first;
/// - `GET /posts/{id}` answers the post, or 404 `{message}`;
/// - `POST /posts/add` with `{userId, title, body}` answers 201 and the post with a new `id`, and
///   (unlike dummyjson.com) keeps it.
enum PostsRoutes {
  static func add(to router: Router<BasicRequestContext>, state: ServerState) {
    router.get("posts") { request, _ -> Response in
      let query = request.uri.queryParameters
      do {
        let page = try state.catalog.page(
          rawLimit: query["limit"].map(String.init),
          rawSkip: query["skip"].map(String.init)
        )
        return try .json(page)
      } catch let error as PageQueryError {
        return .json(status: .badRequest, message: error.description)
      }
    }
    router.get("posts/:id") { _, context -> Response in
      let raw = context.parameters.get("id") ?? ""
      guard let id = Int(raw) else {
        return .json(status: .badRequest, message: "Invalid post id '\(raw)'")
      }
      guard let post = state.catalog.post(id: id) else {
        return .json(status: .notFound, message: "Post with id '\(id)' not found")
      }
      return try .json(post)
    }
    router.post("posts/add") { request, context -> Response in
      let newPost = try await request.decode(as: NewPost.self, context: context)
      return try .json(state.addPost(newPost), status: .created)
    }
  }
}

extension Response {
  /// A JSON answer.
  static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    let data = try JSONEncoder().encode(value)
    return Response(
      status: status,
      headers: [.contentType: "application/json"],
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
    )
  }

  /// A JSON error answer, `{"message": …}`, as dummyjson.com sends.
  static func json(status: HTTPResponse.Status, message: String) -> Response {
    // NB: Encoding a one-field dictionary of strings cannot fail.
    (try? .json(["message": message], status: status)) ?? Response(status: status)
  }
}
