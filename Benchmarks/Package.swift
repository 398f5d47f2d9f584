// swift-tools-version: 6.1

import PackageDescription

// The benchmarks of swift-operation, in a package of their own so that the library does not depend
// on package-benchmark. See README.md for how to run them.
let package = Package(
  name: "Benchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    // NB: The name makes the dependency `swift-operation` whatever the checkout directory is called.
    // The traits compile in `OperationMetrics` and `OperationTracing`, whose cost issue 18's
    // `fetch-metrics*` and `fetch-traced*` scenarios measure; every other scenario runs without
    // instruments, as apps that never set one (the library's code on their path is the same with
    // or without the traits).
    .package(
      name: "swift-operation",
      path: "..",
      traits: ["SwiftOperationMetrics", "SwiftOperationTracing"]
    ),
    .package(
      url: "https://github.com/ordo-one/benchmark",
      from: "1.38.1",
      traits: ["MallocInterposer"]
    ),
    // `NOOPMetricsHandler` (swift-metrics' backend that drops everything) and `NoOpTracer` /
    // `InMemoryTracer`, named by the scenarios; the library resolves both packages already.
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
    // A real metrics backend for "metrics on": a counter's increment and a timer's histogram are
    // the backend's own work, which `NOOPMetricsHandler` would hide. Prometheus' client keeps its
    // series in memory (no exporter or server is involved) and is what a server app would
    // bootstrap; it depends on swift-metrics and swift-atomics only.
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    // `PostgresClient` for `FleetProfile`, which measures OperationPostgres against a real server.
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
  ],
  targets: [
    // glibc's heap statistics, which the Glibc module does not export.
    .target(name: "CHeapStatistics", cSettings: valgrindReadableDebugInfo),
    // Callgrind's client requests, so that `OperationProfile` can count the instructions of a
    // measured loop alone, after a long setup (`valgrind --tool=callgrind --instr-atstart=no`).
    .target(name: "CCallgrind", cSettings: valgrindReadableDebugInfo),
    // The scenarios and their fixtures, shared by the benchmark suite and the profiling tool.
    .target(
      name: "OperationBenchmarkSupport",
      dependencies: [
        "CCallgrind",
        "CHeapStatistics",
        .product(name: "Operation", package: "swift-operation"),
        .product(name: "OperationGraph", package: "swift-operation"),
        .product(name: "OperationPersistence", package: "swift-operation"),
        .product(name: "OperationTestSupport", package: "swift-operation"),
        .product(name: "CoreMetrics", package: "swift-metrics"),
        .product(name: "Tracing", package: "swift-distributed-tracing"),
        .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
        .product(name: "Prometheus", package: "swift-prometheus"),
      ]
    ),
    // The package-benchmark suite: `swift package benchmark`.
    .executableTarget(
      name: "OperationBenchmarks",
      dependencies: [
        "OperationBenchmarkSupport",
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/OperationBenchmarks",
      plugins: [
        .plugin(name: "BenchmarkPlugin", package: "benchmark")
      ]
    ),
    // A plain executable that runs one scenario, for quick checks and for
    // `valgrind --tool=callgrind`.
    .executableTarget(
      name: "OperationProfile",
      dependencies: ["OperationBenchmarkSupport"]
    ),
    // Wall-clock figures of a fleet on a real PostgreSQL (Scripts/with-postgres.sh starts one):
    // invalidation propagation, outbox throughput with notified and polling workers, and the
    // shared cache's cost per value. Network round trips are what they measure, so instruction
    // counts would say nothing.
    .executableTarget(
      name: "FleetProfile",
      dependencies: [
        .product(name: "Operation", package: "swift-operation"),
        .product(name: "OperationPostgres", package: "swift-operation"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)

// NB: The toolchain's clang writes DWARF 5, which Valgrind 3.19 reads only in part: with two C
// targets in DWARF 5 it gave up on `OperationProfile` ("debuginfo reader: Possibly corrupted
// debuginfo file"). Swift code is in DWARF 4 already; the C targets are compiled to match.
var valgrindReadableDebugInfo: [CSetting] {
  [.unsafeFlags(["-gdwarf-4"])]
}
