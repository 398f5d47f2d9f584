public import OperationGraph

/// The shapes of graph that issue 13 measures.
public enum GraphShape: String, Sendable, CaseIterable {
  /// Each node depends on the one before it.
  case chain
  /// One root, and every other node depends on it alone.
  case fanOut = "fan-out"
}

/// What running one graph of empty nodes measured.
public struct GraphFigures: Sendable {
  /// The nodes in the graph.
  public let nodeCount: Int
  /// The time to add every node, per node.
  public let addNanosecondsPerNode: Double
  /// The time of `run()`, per node.
  public let runNanosecondsPerNode: Double
  /// Heap in use after the run, before the graph is released, per node.
  public let heapBytesPerNode: Double

  /// Adding and running, per node: the scheduling overhead of a node whose work does nothing.
  public var totalNanosecondsPerNode: Double {
    self.addNanosecondsPerNode + self.runNanosecondsPerNode
  }
}

/// Builds a graph of `count` nodes that do nothing, in the given shape, and runs it with at most
/// 8 nodes at once.
///
/// The nodes' work is empty, so the figures are the graph's own cost: adding a node, scheduling
/// it, running it on a worker task, recording its result and releasing its dependents.
public func graphRun(_ shape: GraphShape, count: Int = 10_000) async throws -> GraphFigures {
  let heapBefore = Memory.heapBytesInUse
  let graph = WorkGraph(maxConcurrentNodes: 8)
  let addStart = ContinuousClock.now
  var previous: GraphNode<Void>?
  var root: GraphNode<Void>?
  for _ in 0..<count {
    let dependencies: [any GraphNodeReference] =
      switch shape {
      case .chain: previous.map { [$0] } ?? []
      case .fanOut: root.map { [$0] } ?? []
      }
    let node = try graph.add(after: dependencies) { _ in }
    previous = node
    root = root ?? node
  }
  let addNanoseconds = nanoseconds(since: addStart)
  let runStart = ContinuousClock.now
  let report = await graph.run()
  let runNanoseconds = nanoseconds(since: runStart)
  let heapAfter = Memory.heapBytesInUse
  guard report.succeededCount == count else {
    throw GraphScenarioError(
      message: "\(report.succeededCount) of \(count) nodes succeeded in the \(shape) graph"
    )
  }
  return GraphFigures(
    nodeCount: count,
    addNanosecondsPerNode: Double(addNanoseconds) / Double(count),
    runNanosecondsPerNode: Double(runNanoseconds) / Double(count),
    heapBytesPerNode: Double(heapAfter - heapBefore) / Double(count)
  )
}

/// A graph scenario did not do what it measures.
public struct GraphScenarioError: Error, CustomStringConvertible {
  /// What went wrong.
  public let message: String

  public var description: String {
    self.message
  }
}
