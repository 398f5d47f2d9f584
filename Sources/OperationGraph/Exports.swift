// Graphs and combinators are built from the core's requests, contexts and delayers, so code that
// uses them needs the core's types too.
@_exported public import OperationCore
