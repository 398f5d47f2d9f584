extension ProgressReporter {
  /// The reporter's progress as an `AsyncSequence`: the current progress first, then each change.
  ///
  /// Each iteration subscribes on its own, when its iterator is made.
  ///
  /// Buffering contract:
  /// - The first element is the progress when the iterator was made, unless a change replaced it
  ///   before the first call to `next()`.
  /// - The iterator keeps only the newest change: a consumer that falls behind skips the values
  ///   that were replaced while it was busy and always reaches the latest one.
  /// - Values never go back in time and are never repeated.
  /// - The sequence ends after it delivered a finished progress
  ///   (``OperationProgress/isFinished``), or when the iterating task is cancelled.
  ///
  /// ```swift
  /// for await progress in reporter.updates {
  ///   print("\(Int(progress.fractionCompleted * 100))%")
  /// }
  /// print("done")
  /// ```
  public var updates: Updates {
    Updates(reporter: self)
  }

  /// An `AsyncSequence` of a reporter's progress; see ``ProgressReporter/updates`` for what it
  /// buffers and when it ends.
  public struct Updates: AsyncSequence, Sendable {
    /// The type of the sequence's elements.
    public typealias Element = OperationProgress

    /// The sequence never fails.
    public typealias Failure = Never

    let reporter: ProgressReporter

    /// Subscribes to the reporter and returns an iterator whose first element is its current
    /// progress.
    ///
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> AsyncIterator {
      let (stream, continuation) = AsyncStream<OperationProgress>.makeStream(
        bufferingPolicy: .bufferingNewest(1)
      )
      let subscriber = Subscriber { progress in
        continuation.yield(progress)
        if progress.isFinished {
          continuation.finish()
        }
      }
      let reporter = self.reporter
      // NB: Set before the subscriber is added, so that a stream that ends at once (a finished
      // reporter, or a cancelled task) still removes it.
      continuation.onTermination = { _ in
        subscriber.cancel()
        reporter.remove(subscriber)
      }
      let (version, progress) = reporter.add(subscriber)
      subscriber.deliver(version: version, progress: progress)
      return AsyncIterator(base: stream.makeAsyncIterator())
    }

    /// The iterator of ``ProgressReporter/Updates``.
    public struct AsyncIterator: AsyncIteratorProtocol {
      var base: AsyncStream<OperationProgress>.Iterator

      /// The next progress, or `nil` once the reporter finished or the task was cancelled.
      ///
      /// - Returns: The next progress.
      public mutating func next() async -> OperationProgress? {
        await self.base.next(isolation: #isolation)
      }

      /// The next progress, or `nil` once the reporter finished or the task was cancelled.
      ///
      /// - Parameter actor: The actor to wait on.
      /// - Returns: The next progress.
      public mutating func next(isolation actor: isolated (any Actor)?) async -> OperationProgress?
      {
        await self.base.next(isolation: actor)
      }
    }
  }
}
