@_exported public import OperationCore
