// The complete example of the "Utilizing Modifiers" article
// (Sources/OperationCore/Documentation.docc/Articles/UtilizingModifiers.md), copied verbatim: the
// example code first, then the tests that the article shows. Keep both in sync with the article.

import Operation
import OperationTestSupport
import Testing

struct UserProfile: Hashable, Sendable {
  let id: Int
  var name: String
}

enum ProfileAPIError: Error, Equatable {
  case unauthorized
  case serviceUnavailable
}

// MARK: - The header entry and the modifier that sets it

extension OperationContext {
  var httpHeaders: [String: String] {
    get { self[HTTPHeadersKey.self] }
    set { self[HTTPHeadersKey.self] = newValue }
  }

  private enum HTTPHeadersKey: Key {
    static let defaultValue = [String: String]()
  }
}

struct BearerTokenModifier<Operation: OperationRequest>: _ContextUpdatingOperationModifier {
  let token: String

  func setup(context: inout OperationContext) {
    context.httpHeaders["Authorization"] = "Bearer \(self.token)"
  }
}

extension OperationRequest {
  func authenticated(
    withBearerToken token: String
  ) -> ModifiedOperation<Self, BearerTokenModifier<Self>> {
    self.modifier(BearerTokenModifier(token: token))
  }
}

// MARK: - A stand-in for the profile endpoint

/// Rejects requests without the right token, and answers its first few requests with an outage,
/// as a server under load might.
actor ProfileService {
  let acceptedToken: String
  private var outagesLeft: Int
  private(set) var receivedHeaders = [[String: String]]()

  init(acceptedToken: String, outages: Int) {
    self.acceptedToken = acceptedToken
    self.outagesLeft = outages
  }

  func profile(id: Int, headers: [String: String]) throws -> UserProfile {
    self.receivedHeaders.append(headers)
    guard headers["Authorization"] == "Bearer \(self.acceptedToken)" else {
      throw ProfileAPIError.unauthorized
    }
    guard self.outagesLeft == 0 else {
      self.outagesLeft -= 1
      throw ProfileAPIError.serviceUnavailable
    }
    return UserProfile(id: id, name: "Blob")
  }
}

// MARK: - The query

struct UserProfileQuery: QueryRequest {
  let id: Int
  let service: ProfileService

  var path: OperationPath { ["user-profile", self.id] }

  func fetch(
    isolation: isolated (any Actor)?,
    in context: OperationContext,
    with continuation: OperationContinuation<UserProfile, any Error>
  ) async throws -> UserProfile {
    try await self.service.profile(id: self.id, headers: context.httpHeaders)
  }
}

extension UserProfile {
  static func query(
    id: Int,
    service: ProfileService,
    token: String
  ) -> some QueryRequest<Self, any Error> {
    UserProfileQuery(id: id, service: service)
      .authenticated(withBearerToken: token)
      .retry(limit: 3) { _, error in
        // A rejected token stays rejected, so only retry outages.
        (error as? ProfileAPIError) != .unauthorized
      }
      .backoff(.exponential(.milliseconds(500)))
  }
}

@Suite struct `Utilizing modifiers article tests` {
  @Test func `Retries Outages With Exponential Backoff And Sends The Token Each Time`()
    async throws
  {
    let service = ProfileService(acceptedToken: "secret", outages: 3)
    let delayer = RecordingDelayer()
    let client = OperationClient()
    let store = client.store(
      for: UserProfile.query(id: 1, service: service, token: "secret")
        .delayer(delayer)
    )

    let profile = try await store.fetch()

    #expect(profile == UserProfile(id: 1, name: "Blob"))
    #expect(delayer.delays == [.milliseconds(500), .seconds(1), .seconds(2)])
    let headers = await service.receivedHeaders
    #expect(headers == Array(repeating: ["Authorization": "Bearer secret"], count: 4))
  }

  @Test func `Does Not Retry A Rejected Token`() async throws {
    let service = ProfileService(acceptedToken: "secret", outages: 0)
    let delayer = RecordingDelayer()
    let client = OperationClient()
    let store = client.store(
      for: UserProfile.query(id: 1, service: service, token: "expired")
        .delayer(delayer)
    )

    await #expect(throws: ProfileAPIError.unauthorized) {
      try await store.fetch()
    }
    #expect(delayer.delays.isEmpty)
    #expect(await service.receivedHeaders.count == 1)
  }
}
