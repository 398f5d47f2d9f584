// Tests that use the test tools also use the core types they drive.
@_exported public import OperationCore
