// The classes are built on the graph's conditions, observers and strategies, and code that uses
// them adds those to operations (`MutuallyExclusive`, `TimeoutObserver`, `WaitStrategy`), so one
// import brings both.
@_exported public import OperationGraph
