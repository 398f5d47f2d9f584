import OperationGraph
import OperationGraphTestFixtures

/// A condition that brings a dependency: both log what they do.
struct DependencyCondition: GraphCondition {
  let log: EventLog
  let label: String
  var category: String?

  var name: String { "Dependency Condition \(self.label)" }

  var mutualExclusionCategory: String? { self.category }

  var dependency: GraphWork<Void>? {
    let log = self.log
    let label = self.label
    return GraphWork { _ in log.append("\(label) dependency") }
  }

  func evaluate(in context: ConditionContext) async -> ConditionResult {
    self.log.append("\(self.label) evaluated")
    return .satisfied
  }
}
