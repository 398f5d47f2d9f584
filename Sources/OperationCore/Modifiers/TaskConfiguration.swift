extension OperationRequest {
  /// Replaces the configuration of the tasks that run this operation.
  ///
  /// ```swift
  /// Post.query(for: 1).taskConfiguration(OperationTaskConfiguration(name: "Load post"))
  /// ```
  ///
  /// - Parameter configuration: The name, priority and executor preference of the tasks.
  /// - Returns: The modified operation.
  public func taskConfiguration(
    _ configuration: OperationTaskConfiguration
  ) -> ModifiedOperation<Self, _OperationTaskConfigurationModifier<Self>> {
    self.modifier(_OperationTaskConfigurationModifier { $0 = configuration })
  }

  /// Edits the configuration of the tasks that run this operation.
  ///
  /// ```swift
  /// Post.query(for: 1).taskConfiguration { $0.priority = .high }
  /// ```
  ///
  /// - Parameter edit: Changes the configuration in place.
  /// - Returns: The modified operation.
  public func taskConfiguration(
    _ edit: @escaping @Sendable (inout OperationTaskConfiguration) -> Void
  ) -> ModifiedOperation<Self, _OperationTaskConfigurationModifier<Self>> {
    self.modifier(_OperationTaskConfigurationModifier(edit: edit))
  }
}

/// The modifier behind ``OperationRequest/taskConfiguration(_:)-(OperationTaskConfiguration)``.
public struct _OperationTaskConfigurationModifier<
  Operation: OperationRequest
>: _ContextUpdatingOperationModifier, Sendable {
  let edit: @Sendable (inout OperationTaskConfiguration) -> Void

  /// Applies the edit to the context's task configuration.
  ///
  /// - Parameter context: The context to prepare.
  public func setup(context: inout OperationContext) {
    self.edit(&context.operationTaskConfiguration)
  }
}
