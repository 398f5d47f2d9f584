// NB: `MutationState.history` and `QueryState.activeTasks` are `IdentifiedArray`s, and code written
// for swift-operation indexes them (`store.history[0]`, `store.history[id: id]`) with only
// OperationCore imported, as upstream re-exports the module too.
@_exported public import IdentifiedCollections
