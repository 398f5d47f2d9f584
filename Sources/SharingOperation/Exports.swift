// NB: Code written for swift-operation's SharingOperation uses the operation types and
// `@Dependency(\.defaultOperationClient)` with only `import SharingOperation`, since upstream
// re-exports Operation and (through Sharing) Dependencies. Observation is re-exported so that
// `withObservationTracking` and `@Observable` models need no extra import.
@_exported public import Dependencies
@_exported public import Observation
@_exported public import Operation
