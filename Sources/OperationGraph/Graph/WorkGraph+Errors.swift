import OperationCore

extension WorkGraph {
  /// The error that a refusal of the state machine is reported as, with the nodes' names.
  func graphError(_ error: GraphStateMachineError, in state: State) -> GraphError {
    let id = { (index: Int) in GraphNodeID(graph: self.identity, index: index) }
    let label = { (index: Int) -> String in
      let name = state.payloads.indices.contains(index) ? state.payloads[index].name : nil
      return name.map { "\(id(index)) '\($0)'" } ?? "\(id(index))"
    }
    switch error {
    case .finished:
      return GraphError(
        code: .graphFinished,
        nodes: [],
        message: """
          \(self.displayName.prefix(1).uppercased() + self.displayName.dropFirst()) has finished \
          running, so nothing can be added to it. Add nodes before its run ends, or use a new graph.
          """
      )
    case .unknownNode(let index):
      return GraphError(
        code: .unknownNode,
        nodes: [id(index)],
        message: "Node \(id(index)) is not a node of \(self.displayName)."
      )
    case .nodeStarted(let index):
      return GraphError(
        code: .nodeStarted,
        nodes: [id(index)],
        message: """
          Node \(label(index)) has started or ended, so it cannot wait for another node any more. \
          Add dependencies before the graph runs, or pass them when you add the node.
          """
      )
    case .cycle(let path):
      return GraphError(
        code: .cycle,
        nodes: path.map(id),
        message: """
          Adding this dependency would make a cycle, so the graph refused it: \
          \(path.map(label).joined(separator: " → ")) (each node waits for the next).
          """
      )
    }
  }
}
