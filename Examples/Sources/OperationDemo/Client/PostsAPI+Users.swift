import Foundation
import OperationDemoSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension PostsAPI {
  /// `GET /users/{id}`; a user that does not exist is an error (HTTP 404).
  func user(id: Int) async throws -> User {
    let (data, status) = try await self.send(URLRequest(url: self.url("users/\(id)")))
    guard status != 404 else { throw PostsAPIError.status(404) }
    return try JSONDecoder().decode(User.self, from: data)
  }

  /// `GET /users?ids=1,2,3`: the users the server has among `ids`, by id. An id it does not have
  /// is not in the answer.
  func users(ids: [Int]) async throws -> [Int: User] {
    var url = self.url("users")
    url.append(queryItems: [URLQueryItem(name: "ids", value: UserIDList.text(ids))])
    let (data, status) = try await self.send(URLRequest(url: url))
    guard status != 404 else { throw PostsAPIError.status(404) }
    let list = try JSONDecoder().decode(UserList.self, from: data)
    // NB: Only the ids asked for: a server that ignores `ids` (dummyjson.com lists its first
    // users) answers no one else's lookup.
    let asked = Set(ids)
    return Dictionary(
      list.users.filter { asked.contains($0.id) }.map { ($0.id, $0) },
      uniquingKeysWith: { first, _ in first }
    )
  }

  /// The body of `GET /users?ids=`, `{users, total, skip, limit}`; only the users are read.
  private struct UserList: Decodable {
    let users: [User]
  }
}
