/// A type that is identified by an ``OperationPath``.
///
/// ``OperationStore`` and ``OpaqueOperationStore`` conform, which lets an
/// ``OperationPathableCollection`` index them by path.
public protocol OperationPathable {
  /// The path that identifies this value.
  var path: OperationPath { get }
}
