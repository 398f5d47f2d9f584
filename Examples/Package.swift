// swift-tools-version: 6.3

import PackageDescription

// The demo of swift-operation, in a package of its own so that a package that depends on the
// library does not resolve the demo's HTTP server and its dependencies. Run it with
// `swift run --package-path Examples operation-demo` from the repository's root.
let package = Package(
  name: "Examples",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "operation-demo", targets: ["OperationDemo"])
  ],
  dependencies: [
    // NB: The name makes the dependency `swift-operation` whatever the checkout directory is called.
    // The `SwiftOperationMetrics` trait adds `OperationMetrics`, with which the demo's client counts
    // its runs, retries, joins and pages; the demo prints them at the end and checks them against
    // the requests the server received.
    .package(name: "swift-operation", path: "..", traits: ["SwiftOperationMetrics"]),
    // The feed step reads the pages of the library's paginated state, an `IdentifiedArrayOf`.
    .package(url: "https://github.com/pointfreeco/swift-identified-collections", from: "1.1.1"),
    // `Logger` for the embedded server, which Hummingbird takes; the demo logs only its errors.
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    // The demo embeds a real HTTP server, so that one command shows the library against real
    // network I/O. Hummingbird is an async/await HTTP server on SwiftNIO that builds on Linux with
    // no system libraries, but it is large: its first build takes several minutes. This package is
    // apart from the library's so that users of the library do not even resolve it.
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    // Flag parsing for `operation-demo`. swift-argument-parser gives `--help`, typed values and a
    // clear message plus a non-zero exit for a bad value, which a hand-written parser would have to
    // re-implement; it is a small, dependency-free package.
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    // `NIOCore` gives the demo the port that the system picked for its server, and
    // `ServiceLifecycle` shuts the server down gracefully. Hummingbird already depends on both, so
    // they add nothing to fetch or build.
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    // `HTTPField.Name`, to read and write the `Idempotency-Key` header (Hummingbird re-exports
    // `HTTPFields` but not the field names). Hummingbird already depends on it.
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    // A swift-metrics backend that keeps the client's metrics in memory and writes them in
    // Prometheus' text format, for the demo's metrics summary and `GET /debug/metrics`. It depends
    // on swift-metrics (which the trait above resolves already) and Atomics only.
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    // `PostgresClient`, the connection pool that `OperationPostgres` runs on, for the fleet test
    // and the fleet demo (the library takes the client rather than creating it). The library
    // depends on it already, so it adds nothing to fetch; the demo names it because it creates
    // the client, opens transactions for the outbox's transactional enqueue and terminates a
    // listening connection in the fleet test.
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
  ],
  targets: [
    .executableTarget(
      name: "OperationDemo",
      dependencies: [
        "OperationDemoSupport",
        .product(name: "Operation", package: "swift-operation"),
        // The mutation outbox on SQLite: the demo's outbox step and the outbox crash test.
        .product(name: "OperationPersistence", package: "swift-operation"),
        // The outbox's and the cache's services, stopped by SIGTERM in the shutdown test.
        .product(name: "OperationServiceLifecycle", package: "swift-operation"),
        // The query cache, the outbox and the fleet on PostgreSQL: `operation-demo fleet` and
        // `operation-demo fleet-test`, several instances sharing one database.
        .product(name: "OperationPostgres", package: "swift-operation"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        // `PrometheusCollectorRegistry` and `PrometheusMetricsFactory`: the backend that
        // `OperationMetrics(factory:)` records into.
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        // `UnixSignal.sigterm`, which the shutdown test's child service stops on.
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
      ]
    ),
    // The demo's pure parts (flags, fault decisions, the posts, the progress bar, the checks'
    // verdicts), apart so that they are unit-tested without a server; the demo itself is the
    // end-to-end test.
    .target(
      name: "OperationDemoSupport",
      dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]
    ),
    .testTarget(
      name: "OperationDemoSupportTests",
      dependencies: [
        "OperationDemoSupport",
        // The library's snapshot, encoded as `GET /debug/operations` encodes it, checks that the
        // demo's mirror of it (`InspectorSnapshot`) decodes the real thing.
        .product(name: "Operation", package: "swift-operation"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        // The metrics checks read the text that swift-prometheus writes, here from a real
        // registry, as `OperationMetrics` fills it.
        .product(name: "Prometheus", package: "swift-prometheus"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)

for target in package.targets {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .enableUpcomingFeature("ExistentialAny"),
      .enableUpcomingFeature("InternalImportsByDefault"),
      .enableUpcomingFeature("MemberImportVisibility"),
      .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
      .enableUpcomingFeature("InferIsolatedConformances"),
      .enableUpcomingFeature("ImmutableWeakCaptures"),
    ]
}
