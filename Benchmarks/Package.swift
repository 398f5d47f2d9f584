// swift-tools-version: 6.1

import PackageDescription

// The benchmarks of swift-operation, in a package of their own so that the library does not depend
// on package-benchmark. See README.md for how to run them.
let package = Package(
  name: "Benchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    // NB: The name makes the dependency `swift-operation` whatever the checkout directory is called.
    .package(name: "swift-operation", path: ".."),
    .package(
      url: "https://github.com/ordo-one/benchmark",
      from: "1.38.1",
      traits: ["MallocInterposer"]
    ),
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
  ],
  swiftLanguageModes: [.v6]
)

// NB: The toolchain's clang writes DWARF 5, which Valgrind 3.19 reads only in part: with two C
// targets in DWARF 5 it gave up on `OperationProfile` ("debuginfo reader: Possibly corrupted
// debuginfo file"). Swift code is in DWARF 4 already; the C targets are compiled to match.
var valgrindReadableDebugInfo: [CSetting] {
  [.unsafeFlags(["-gdwarf-4"])]
}
