import Foundation
import HTTPTypes
import Hummingbird
import OperationDemoSupport

/// The posts API, shaped like dummyjson.com's:
///
/// - `GET /posts?limit=&skip=` answers `{posts, total, skip, limit}`, newest post first;
/// - `GET /posts/{id}` answers the post, or 404 `{message}`;
/// - `POST /posts/add` with `{userId, title, body}` answers 201 and the post with a new `id`, and
///   (unlike dummyjson.com) keeps it. With an `Idempotency-Key` header it creates one post per
///   key: a repeated key gets the first answer again, marked `Idempotent-Replayed: true`.
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
      guard let key = request.headers[.idempotencyKey] else {
        let newPost = try await request.decode(as: NewPost.self, context: context)
        return try .json(state.addPost(newPost), status: .created)
      }
      var request = request
      let body = try await request.collectBody(upTo: 1 << 20)
      let newPost: NewPost
      do {
        newPost = try JSONDecoder().decode(NewPost.self, from: Data(body.readableBytesView))
      } catch {
        return .json(status: .badRequest, message: "Invalid post: \(error)")
      }
      let canonical = try [UInt8].canonicalJSON(newPost)
      let outcome = try state.applyOnce(key: key, path: request.uri.path, body: canonical) {
        Array(try JSONEncoder().encode(state.addPost(newPost)))
      }
      return .idempotent(outcome, key: key)
    }
  }
}

extension [UInt8] {
  /// A request body in a canonical form, for the idempotency ledger to compare with a repeated
  /// request's: decoded, then encoded with sorted keys.
  ///
  /// NB: Not the bytes received: the key order of `JSONEncoder`'s output can differ from one
  /// process to the next, so an outbox entry resent by a restarted app may spell the same body
  /// differently.
  static func canonicalJSON(_ value: some Encodable) throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return Array(try encoder.encode(value))
  }
}

extension HTTPField.Name {
  /// `Idempotency-Key`: a client's key for a request that it may send more than once, which the
  /// server applies once.
  // NB: A literal, valid field name.
  static let idempotencyKey = HTTPField.Name("Idempotency-Key")!

  /// `Idempotent-Replayed: true` marks an answer replayed for a repeated key.
  static let idempotentReplayed = HTTPField.Name("Idempotent-Replayed")!
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

  /// The answer to a request with an idempotency key: 201 and the first answer's body for a new
  /// or a repeated key (marked `Idempotent-Replayed: true`), 422 for a key used by another
  /// request.
  static func idempotent(_ outcome: IdempotencyLedger<[UInt8]>.Outcome, key: String) -> Response {
    switch outcome {
    case .applied(let body):
      Response(
        status: .created,
        headers: [.contentType: "application/json"],
        body: ResponseBody(byteBuffer: ByteBuffer(bytes: body))
      )
    case .replayed(let body):
      Response(
        status: .created,
        headers: [.contentType: "application/json", .idempotentReplayed: "true"],
        body: ResponseBody(byteBuffer: ByteBuffer(bytes: body))
      )
    case .conflict:
      .json(
        status: .unprocessableContent,
        message: "The Idempotency-Key '\(key)' was used for another request."
      )
    }
  }

  /// A JSON error answer, `{"message": …}`, as dummyjson.com sends.
  static func json(status: HTTPResponse.Status, message: String) -> Response {
    // NB: Encoding a one-field dictionary of strings cannot fail.
    (try? .json(["message": message], status: status)) ?? Response(status: status)
  }
}
