@_exported public import OperationPersistence
