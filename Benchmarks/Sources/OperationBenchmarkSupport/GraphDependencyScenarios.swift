import OperationGraph

/// What adding and running one node with many dependencies measured (issue 25).
public struct GraphDependencyFigures: Sendable {
  /// The number of dependencies of the node.
  public let dependencyCount: Int
  /// The time to add the `dependencyCount` empty nodes it depends on.
  public let addDependenciesNanoseconds: Int
  /// The time to add the node itself, with its `dependencyCount` dependencies.
  public let addNodeNanoseconds: Int
  /// The time of `run()`: every dependency, then the node.
  public let runNanoseconds: Int

  /// Adding the node, per dependency: flat when adding is linear.
  public var addNanosecondsPerDependency: Double {
    Double(self.addNodeNanoseconds) / Double(self.dependencyCount)
  }
}

/// Adds `count` empty nodes, then one node after all of them, and runs the graph with at most 8
/// nodes at once.
///
/// Before issue 25, adding a node cost O(N²) in its N dependencies (each was checked against
/// every one before it), so that a node with 40,000 dependencies took 46 s to add; the figures
/// show whether it is linear now.
public func graphWithManyDependencies(count: Int) async throws -> GraphDependencyFigures {
  let graph = WorkGraph(maxConcurrentNodes: 8)
  var dependencies = [GraphNode<Void>]()
  dependencies.reserveCapacity(count)
  let addDependenciesStart = ContinuousClock.now
  for _ in 0..<count {
    dependencies.append(try graph.add { _ in })
  }
  let addDependencies = nanoseconds(since: addDependenciesStart)
  let addNodeStart = ContinuousClock.now
  let node = try graph.add(after: dependencies) { _ in 1 }
  let addNode = nanoseconds(since: addNodeStart)
  let runStart = ContinuousClock.now
  let report = await graph.run()
  let run = nanoseconds(since: runStart)
  guard report.succeededCount == count + 1, report[node].outcome?.isSucceeded == true else {
    throw GraphScenarioError(
      message: "\(report.succeededCount) of \(count + 1) nodes succeeded in the dependency graph"
    )
  }
  return GraphDependencyFigures(
    dependencyCount: count,
    addDependenciesNanoseconds: addDependencies,
    addNodeNanoseconds: addNode,
    runNanoseconds: run
  )
}
