import Foundation
import Logging
import Operation
import OperationDemoSupport
import OperationPersistence
import OperationServiceLifecycle
import ServiceLifecycle
import UnixSignals

/// The shutdown test's child process: a service in the shape of a Hummingbird or Vapor app, which
/// reads posts through a server-profile client with a persisted query cache and sends durable
/// mutations through an outbox, all in one `ServiceGroup` that `SIGTERM` stops gracefully.
///
/// It prints `ready <pending>` once it fetched its posts (their values waiting to be written,
/// the cache's write delay being an hour) and enqueued its mutations, and `stopped` when the
/// group returned.
struct ShutdownChild {
  let directory: String
  let api: PostsAPI
  let postCount: Int
  let plan: OutboxCrashPlan
  let gracePeriod: OperationDuration

  func run() async throws {
    let cache = try await PersistentQueryCache(
      storage: try SQLitePersistence(path: "\(self.directory)/cache.sqlite"),
      writeDelay: .seconds(3_600)
    )
    let outbox = try await MutationOutbox(
      storage: try SQLitePersistence(path: "\(self.directory)/outbox.sqlite"),
      retryDelay: .constant(.milliseconds(20)),
      maxAttempts: 1_000
    )
    outbox.register(OutboxItemMutation(api: self.api), kind: OutboxItemMutation.kind)
    var context = OperationContext()
    context.postsAPI = self.api
    let profile = OperationClient.Profile.server
    profile.apply(to: &context)
    let client = OperationClient(
      defaultContext: context,
      storeCache: OperationClient.DefaultStoreCache(limits: profile.storeLimits),
      storeCreator: PersistingStoreCreator(
        cache: cache,
        base: .default(networkObserver: nil, activityObserver: nil)
      )
    )
    let workload = Workload(child: self, client: client, cache: cache, outbox: outbox)
    // NB: A group stops its services in reverse order: the workload (the app's requests) first,
    // then the outbox drains, then the cache writes what is pending.
    let group = ServiceGroup(
      configuration: ServiceGroupConfiguration(
        services: [
          .init(service: QueryCacheService(cache: cache)),
          .init(service: MutationOutboxService(outbox: outbox, gracePeriod: self.gracePeriod)),
          .init(service: workload),
        ],
        gracefulShutdownSignals: [.sigterm],
        logger: Logger(label: "shutdown-test-child")
      )
    )
    try await group.run()
    Self.emit("stopped")
  }

  /// The app's work: fetches the posts, enqueues the mutations, says it is ready, and waits for
  /// the shutdown.
  private struct Workload: Service {
    let child: ShutdownChild
    let client: OperationClient
    let cache: PersistentQueryCache
    let outbox: MutationOutbox

    func run() async throws {
      for id in 1...self.child.postCount {
        _ = try await self.client.store(for: Post.Query(id: id)).fetch()
      }
      for mutation in self.child.plan.mutations {
        try await self.outbox.enqueue(
          kind: OutboxItemMutation.kind,
          arguments: mutation,
          lane: mutation.path,
          idempotencyKey: mutation.key
        )
      }
      ShutdownChild.emit("ready \(self.cache.pendingWriteCount)")
      try? await gracefulShutdown()
    }
  }

  static func emit(_ line: String) {
    print(line)
    // NB: Every stream: the parent reads each line as soon as it is printed.
    fflush(nil)
  }
}
