public import OperationCore
