// swift-tools-version: 6.3

import CompilerPluginSupport
import PackageDescription

// The demo (`Examples/`) and the benchmarks (`Benchmarks/`) are packages of their own, so that a
// package that depends on the library resolves none of their dependencies.
let package = Package(
  name: "swift-operation",
  platforms: [
    .iOS(.v18),
    .macOS(.v15),
    .tvOS(.v18),
    .watchOS(.v11),
    .visionOS(.v2),
  ],
  products: [
    .library(name: "OperationCore", targets: ["OperationCore"]),
    // `URLConnectionObserver`, apart from the core because `URLSession` is in FoundationNetworking
    // on Linux (with libcurl): only programs that use it link them. `Operation` re-exports it.
    .library(name: "OperationURLConnectionObserver", targets: ["OperationURLConnectionObserver"]),
    .library(name: "Operation", targets: ["Operation"]),
    .library(name: "OperationTestSupport", targets: ["OperationTestSupport"]),
    // Loading and process states for UI models (`LoadableState`, `ProcessState`, `@Loadable`,
    // `@Process`), after SwiftedMind/Processed, bridged to the core's stores and requests.
    .library(name: "Processed", targets: ["Processed"]),
    .library(name: "SharingOperation", targets: ["SharingOperation"]),
    // Chains, result passing, groups, conditions, observers, mutual exclusion and progress on
    // structured concurrency (after 3Squared/PeakOperation and danthorpe/Operations).
    .library(name: "OperationGraph", targets: ["OperationGraph"]),
    // PeakOperation's and danthorpe/Operations' classes on Foundation's `OperationQueue`
    // (`ConcurrentOperation`, result passing, groups, conditions and observers on operations), for
    // code ported from them; only the apps that need Foundation's queue link it.
    .library(name: "OperationQueueCompat", targets: ["OperationQueueCompat"]),
    // A query cache and a durable mutation outbox in SQLite, through GRDB.
    .library(name: "OperationPersistence", targets: ["OperationPersistence"]),
    // The outbox's delivery and the cache's writes as swift-service-lifecycle services, stopped
    // gracefully with a server's `ServiceGroup`; only services that link it build the package.
    .library(name: "OperationServiceLifecycle", targets: ["OperationServiceLifecycle"]),
    // A fleet of instances on one PostgreSQL database: a shared query cache, invalidations that
    // reach every instance, one upstream call per key across the fleet, and a transactional
    // outbox with several workers; only services that link it build postgres-nio.
    .library(name: "OperationPostgres", targets: ["OperationPostgres"]),
  ],
  traits: [
    .trait(
      name: "SwiftOperationLogging",
      description: """
        Adds the logDuration(with:at:) modifier, OperationContext.operationLogger and the graph's \
        LoggingObserver.
        """
    ),
    .trait(
      name: "SwiftOperationMetrics",
      description: """
        Adds OperationMetrics (run, outcome, retry, join, timeout, eviction and page counters and \
        run timers through swift-metrics), OperationContext.operationMetrics and metrics().
        """
    ),
    .trait(
      name: "SwiftOperationTracing",
      description: """
        Adds OperationTracing (spans per run, retry attempt and page through \
        swift-distributed-tracing), OperationContext.operationTracing and traced().
        """
    ),
  ],
  dependencies: [
    // `IdentifiedArrayOf` is part of the public API that swift-operation 0.5 exposes
    // (`QueryState.activeTasks`, mutation history, `Pages`), so source compatibility needs it.
    .package(url: "https://github.com/pointfreeco/swift-identified-collections", from: "1.1.1"),
    // IssueReporting: misuse is reported as an issue (a test failure under a test runner, a runtime
    // warning otherwise) instead of a trap, and `isTesting` picks the client's testing defaults.
    .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
    // `swift package generate-documentation` for the DocC catalogs.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    // `Logger` for `logDuration(with:at:)` and `OperationContext.operationLogger`. Only the
    // `SwiftOperationLogging` trait links it, so apps that do not log pay nothing for it.
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    // `@Dependency(\.defaultOperationClient)` for `@SharedOperation`, as upstream spells it: apps
    // and tests swap the client (and the network observer and date) with `withDependencies`, and
    // every test gets a fresh client. Only the SharingOperation target links it; swift-sharing,
    // which upstream builds on, cannot be resolved here, so Observation takes its place.
    .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1"),
    // TESTS ONLY: generated event sequences (with shrinking to a smallest failing one) for the
    // synchronous tests of the deduplication, graph scheduling and outbox state machines, and
    // generated paths for the query cache's keys, through Swift Testing. Only the
    // OperationCoreTests, OperationGraphTests and OperationPersistenceTests targets link it.
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    // The `OperationMacros` compiler plug-in (`@QueryRequest`, `@MutationRequest`,
    // `@OperationRequest`, `@ContextEntry`, `#run`) is written on swift-syntax; the range is
    // upstream's. Every package that depends on `Operation` compiles it: on the 2-core Linux CI
    // machine, a clean debug build of a one-file app on `Operation` took 58 s instead of 15 s.
    .package(url: "https://github.com/swiftlang/swift-syntax", "601.0.0"..<"603.0.0"),
    // TESTS ONLY: `assertMacro` snapshots of the macros' expansions and diagnostics, as upstream's
    // macro tests are written. Only the OperationMacrosTests target links it.
    .package(url: "https://github.com/pointfreeco/swift-macro-testing", from: "0.7.0"),
    // SQLite for `OperationPersistence` (the query cache on disk and the mutation outbox): WAL
    // mode, busy timeouts, migrations and prepared statements, with no server to run. On Linux it
    // links the system's SQLite (Debian's libsqlite3-dev). Only the OperationPersistence target
    // links it.
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    // `Counter` and `Timer` for `OperationMetrics`, on whichever backend the app bootstraps
    // (MetricsTestKit's `TestMetrics` in the tests). Only the `SwiftOperationMetrics` trait links
    // it.
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    // `Tracer` and `ServiceContext` for `OperationTracing` (`InMemoryTracer` in the tests). Only
    // the `SwiftOperationTracing` trait links it.
    .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
    // `Service` and the graceful shutdown of a `ServiceGroup`, which Hummingbird, Vapor and gRPC
    // servers run in: the protocol servers already use to stop on SIGTERM, rather than one of our
    // own. Only the OperationServiceLifecycle target links it.
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    // The PostgreSQL wire protocol for `OperationPostgres`: a connection pool, `LISTEN`/`NOTIFY`
    // as an async sequence and transactions on one connection, in the SwiftNIO stack that
    // Vapor and Hummingbird services already run on. It is heavy (SwiftNIO, swift-crypto,
    // swift-nio-ssl), so only the OperationPostgres target links it.
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
  ],
  targets: [
    // The package's one lock family (`Lock`, `RecursiveLock`), internal to the package: every
    // module guards its state with these, and nothing else (see the loop at the end).
    .target(name: "OperationSynchronization"),
    .target(
      name: "OperationCore",
      dependencies: [
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        .product(
          name: "Logging",
          package: "swift-log",
          condition: .when(traits: ["SwiftOperationLogging"])
        ),
        .product(
          name: "CoreMetrics",
          package: "swift-metrics",
          condition: .when(traits: ["SwiftOperationMetrics"])
        ),
        .product(
          name: "Tracing",
          package: "swift-distributed-tracing",
          condition: .when(traits: ["SwiftOperationTracing"])
        ),
      ]
    ),
    .target(
      name: "OperationURLConnectionObserver",
      dependencies: ["OperationCore"]
    ),
    // OperationMacros: the compiler plug-in behind the macros that `Operation` declares (issue 15).
    .macro(
      name: "OperationMacros",
      dependencies: [
        .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
        .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        .product(name: "SwiftSyntax", package: "swift-syntax"),
        .product(name: "SwiftDiagnostics", package: "swift-syntax"),
        .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
      ]
    ),
    .target(
      name: "Operation",
      dependencies: [
        "OperationCore",
        "OperationMacros",
        // NB: Re-exported, so that `import Operation` sees `URLConnectionObserver` as upstream's
        // core declares it.
        "OperationURLConnectionObserver",
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    .target(
      name: "OperationTestSupport",
      dependencies: [
        "OperationCore",
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
      ]
    ),
    // Processed: UI loading and process states (issue 7). Only the core is needed: the bridge reads
    // store statuses and runs requests with an `OperationRunner`.
    .target(
      name: "Processed",
      dependencies: ["OperationCore"]
    ),
    // OperationGraph: combinators over requests and a dependency-graph runner (issue 13). The
    // logging observer needs swift-log, so only the `SwiftOperationLogging` trait links it.
    .target(
      name: "OperationGraph",
      dependencies: [
        "OperationCore",
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        .product(
          name: "Logging",
          package: "swift-log",
          condition: .when(traits: ["SwiftOperationLogging"])
        ),
      ]
    ),
    // OperationQueueCompat: the Foundation `OperationQueue` classes, on OperationGraph's
    // conditions, observers, strategies and exclusivity locks (issue 26). The logging observer's
    // conformance needs swift-log, so only the `SwiftOperationLogging` trait links it.
    .target(
      name: "OperationQueueCompat",
      dependencies: [
        "OperationCore",
        "OperationGraph",
        .product(
          name: "Logging",
          package: "swift-log",
          condition: .when(traits: ["SwiftOperationLogging"])
        ),
      ]
    ),
    .target(
      name: "SharingOperation",
      dependencies: [
        "Operation",
        .product(name: "Dependencies", package: "swift-dependencies"),
      ]
    ),
    .target(
      name: "OperationPersistence",
      dependencies: [
        "OperationCore",
        .product(name: "GRDB", package: "GRDB.swift"),
      ]
    ),
    .target(
      name: "OperationServiceLifecycle",
      dependencies: [
        "OperationCore",
        "OperationPersistence",
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ]
    ),
    .target(
      name: "OperationPostgres",
      dependencies: [
        "OperationCore",
        "OperationPersistence",
        // NB: The `Logger` that postgres-nio takes; postgres-nio depends on swift-log already.
        .product(name: "Logging", package: "swift-log"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        // NB: `PostgresFleet` is a `Service`, run in the app's `ServiceGroup` beside its
        // `PostgresClient`; postgres-nio depends on swift-service-lifecycle already.
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ]
    ),
    .testTarget(
      name: "OperationPostgresTests",
      dependencies: [
        "Operation",
        "OperationPersistence",
        "OperationPostgres",
        "OperationTestSupport",
        .product(name: "PostgresNIO", package: "postgres-nio"),
      ]
    ),
    .testTarget(
      name: "OperationServiceLifecycleTests",
      dependencies: [
        "Operation",
        "OperationPersistence",
        "OperationServiceLifecycle",
        "OperationTestSupport",
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        // NB: `testGracefulShutdown` triggers a graceful shutdown without a signal.
        .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
      ]
    ),
    // A second process for OperationPersistence's fault tests (an outbox held by another
    // process, keys computed in another process); not a product, so users never build it.
    .executableTarget(
      name: "OperationPersistenceProbe",
      dependencies: ["OperationCore", "OperationPersistence", "OperationPersistenceProbeSupport"],
      path: "Tests/OperationPersistenceProbe"
    ),
    // What the probe and the tests both compute (the paths whose keys they compare).
    .target(
      name: "OperationPersistenceProbeSupport",
      dependencies: ["OperationCore"],
      path: "Tests/OperationPersistenceProbeSupport"
    ),
    .testTarget(
      name: "OperationPersistenceTests",
      dependencies: [
        "Operation",
        "OperationPersistence",
        // NB: The second process of the fault tests; depending on it builds it before them.
        "OperationPersistenceProbe",
        "OperationPersistenceProbeSupport",
        "OperationTestSupport",
        // NB: A second connection that holds the database's write lock, in the fault tests.
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]
    ),
    .testTarget(
      name: "OperationCoreTests",
      dependencies: [
        "Operation",
        "OperationCore",
        "OperationURLConnectionObserver",
        "OperationTestSupport",
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        // NB: Lets `reportIssue` record warnings as Swift Testing issues, which `withKnownIssue`
        // matches; without it they are only printed.
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
        // NB: Generated event sequences for the deduplication state machine's tests.
        .product(name: "PropertyBased", package: "swift-property-based"),
        // NB: The logging tests build a `Logger` with a capturing handler.
        .product(
          name: "Logging",
          package: "swift-log",
          condition: .when(traits: ["SwiftOperationLogging"])
        ),
        // NB: The metrics tests count with `TestMetrics`, the tracing tests with
        // `InMemoryTracer`.
        .product(
          name: "MetricsTestKit",
          package: "swift-metrics",
          condition: .when(traits: ["SwiftOperationMetrics"])
        ),
        .product(
          name: "InMemoryTracing",
          package: "swift-distributed-tracing",
          condition: .when(traits: ["SwiftOperationTracing"])
        ),
      ]
    ),
    .testTarget(
      name: "OperationMacrosTests",
      dependencies: [
        "OperationMacros",
        // NB: `assertMacro` snapshots of expansions and diagnostics.
        .product(name: "MacroTesting", package: "swift-macro-testing"),
      ]
    ),
    .testTarget(
      name: "OperationMacrosUsageTests",
      dependencies: [
        // NB: Runs the code the macros generate through runners, stores and the client.
        "Operation"
      ]
    ),
    .testTarget(
      name: "ProcessedTests",
      dependencies: [
        "OperationCore",
        "OperationTestSupport",
        "Processed",
      ]
    ),
    // What the tests of OperationGraph and OperationQueueCompat both use (latches, event logs,
    // probes, small requests); not a product, so users never build it.
    .target(
      name: "OperationGraphTestFixtures",
      dependencies: [
        "OperationCore",
        "OperationTestSupport",
        // NB: A logger that the logging observer's tests read back.
        .product(
          name: "Logging",
          package: "swift-log",
          condition: .when(traits: ["SwiftOperationLogging"])
        ),
      ],
      path: "Tests/OperationGraphTestFixtures"
    ),
    .testTarget(
      name: "OperationGraphTests",
      dependencies: [
        "OperationGraphTestFixtures",
        // NB: `OperationClient()` with the platform's default store creator, as apps make it.
        "Operation",
        "OperationCore",
        "OperationGraph",
        "OperationTestSupport",
        // NB: Lets `reportIssue` record warnings as Swift Testing issues, which `withKnownIssue`
        // matches; without it they are only printed.
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
        // NB: Generated event sequences for the graph's scheduling state machine.
        .product(name: "PropertyBased", package: "swift-property-based"),
        // NB: The logging observer's tests build a `Logger` with a capturing handler.
        .product(
          name: "Logging",
          package: "swift-log",
          condition: .when(traits: ["SwiftOperationLogging"])
        ),
      ]
    ),
    .testTarget(
      name: "OperationQueueCompatTests",
      dependencies: [
        "OperationGraphTestFixtures",
        // NB: `RequestOperation(store:)` runs through a client made as apps make it.
        "Operation",
        "OperationCore",
        "OperationGraph",
        "OperationQueueCompat",
        "OperationTestSupport",
        // NB: Lets `reportIssue` record warnings as Swift Testing issues, which `withKnownIssue`
        // matches; without it they are only printed.
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
        // NB: The logging observer's tests build a `Logger` with a capturing handler.
        .product(
          name: "Logging",
          package: "swift-log",
          condition: .when(traits: ["SwiftOperationLogging"])
        ),
      ]
    ),
    .testTarget(
      name: "SharingOperationTests",
      dependencies: [
        "SharingOperation",
        "OperationTestSupport",
        .product(name: "Dependencies", package: "swift-dependencies"),
        // NB: Lets `reportIssue` record warnings as Swift Testing issues, which `withKnownIssue`
        // matches; without it they are only printed.
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)

// NB: Every module and test target may use the lock family; the macro plug-in runs in the
// compiler and needs none.
for target in package.targets
where target.name != "OperationSynchronization" && target.type != .macro {
  target.dependencies.append("OperationSynchronization")
}

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
