/// How an ``OperationTask`` creates its Swift `Task`: its name, priority and executor.
public struct OperationTaskConfiguration: Sendable {
  /// The name of the task; stores name their tasks when this is `nil`.
  public var name: String?

  /// The priority of the task.
  public var priority: TaskPriority? {
    get { self.priorityRawValue.map(TaskPriority.init(rawValue:)) }
    set { self.priorityRawValue = newValue?.rawValue }
  }

  // NB: Kept as its raw value: `TaskPriority`'s layout is not known outside the concurrency
  // library, so a stored `TaskPriority?` made every copy of a configuration (a run copies its
  // configuration several times) go through the library's copy and destroy functions.
  private var priorityRawValue: UInt8?

  /// The executor the task prefers to run on.
  public var executorPreference: (any TaskExecutor)?

  /// Creates a configuration.
  ///
  /// - Parameters:
  ///   - name: The name of the task.
  ///   - priority: The priority of the task.
  ///   - executorPreference: The executor the task prefers to run on.
  public init(
    name: String? = nil,
    priority: TaskPriority? = nil,
    executorPreference: (any TaskExecutor)? = nil
  ) {
    self.name = name
    self.priorityRawValue = priority?.rawValue
    self.executorPreference = executorPreference
  }
}

extension OperationContext {
  /// The configuration of the tasks that stores create for this operation.
  ///
  /// Set it on a client's default context, a store's context, or the context of one run.
  public var operationTaskConfiguration: OperationTaskConfiguration {
    get { self[TaskConfigurationKey.self] }
    set { self[TaskConfigurationKey.self] = newValue }
  }

  private enum TaskConfigurationKey: Key {
    static let defaultValue = OperationTaskConfiguration()
  }
}

// MARK: - Task

extension Task where Failure == any Error {
  /// Creates a task from an operation task configuration.
  ///
  /// - Parameters:
  ///   - configuration: The name, priority and executor of the task.
  ///   - operation: The work of the task.
  @discardableResult
  public init(
    configuration: OperationTaskConfiguration,
    @_inheritActorContext @_implicitSelfCapture operation:
      sending @escaping @isolated(any) () async throws
      -> Success
  ) {
    if let executor = configuration.executorPreference {
      self.init(
        name: configuration.name,
        executorPreference: executor,
        priority: configuration.priority,
        operation: operation
      )
    } else {
      self.init(name: configuration.name, priority: configuration.priority, operation: operation)
    }
  }
}

extension Task where Failure == Never {
  /// Creates a non-throwing task from an operation task configuration.
  ///
  /// - Parameters:
  ///   - configuration: The name, priority and executor of the task.
  ///   - operation: The work of the task.
  @discardableResult
  public init(
    configuration: OperationTaskConfiguration,
    @_inheritActorContext @_implicitSelfCapture operation:
      sending @escaping @isolated(any) () async
      -> Success
  ) {
    if let executor = configuration.executorPreference {
      self.init(
        name: configuration.name,
        executorPreference: executor,
        priority: configuration.priority,
        operation: operation
      )
    } else {
      self.init(name: configuration.name, priority: configuration.priority, operation: operation)
    }
  }
}

extension Task where Failure == Never {
  /// Creates a non-throwing task from an operation task configuration that starts at once, on the
  /// calling thread, when the caller is on the task's actor (or the task has none), and runs there
  /// until it first suspends.
  ///
  /// Where the system has no `Task.immediate`, or the configuration prefers an executor, it is an
  /// ordinary task.
  ///
  /// - Parameters:
  ///   - configuration: The name, priority and executor of the task.
  ///   - operation: The work of the task.
  @discardableResult
  package static func immediate(
    configuration: OperationTaskConfiguration,
    @_inheritActorContext @_implicitSelfCapture operation:
      sending @escaping @isolated(any) () async
      -> Success
  ) -> Self {
    if configuration.executorPreference == nil,
      #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
    {
      return Task.immediate(
        name: configuration.name,
        priority: configuration.priority,
        operation: operation
      )
    }
    return Task(configuration: configuration, operation: operation)
  }
}
