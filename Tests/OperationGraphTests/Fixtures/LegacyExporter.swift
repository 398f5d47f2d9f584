import OperationTestSupport

/// Work that does not check for cancellation, as the "Chains, Groups and Graphs" article's
/// exporter: ``export()`` returns only when the test opens ``release``.
struct LegacyExporter: Sendable {
  let release = Gate()

  func export() async throws -> String {
    await self.release.wait()
    return "exported"
  }
}
