#if canImport(SwiftUI)
  public import SwiftUI

  /// A ``SharedOperationStateScheduler`` that applies state changes on the main actor inside
  /// `withAnimation`, so that SwiftUI animates the views that depend on them.
  ///
  /// ```swift
  /// struct PostView: View {
  ///   @SharedOperation(Post.query(for: 1), scheduler: .animation(.bouncy)) var post
  ///   // ...
  /// }
  /// ```
  ///
  /// It exists only where SwiftUI does. Every change is enqueued on the main actor, even one made
  /// there, as SwiftUI expects animations to start from the main actor's run loop.
  public struct AnimationStateScheduler: SharedOperationStateScheduler, Sendable {
    /// The animation of every change.
    public let animation: Animation?

    /// Creates the scheduler.
    ///
    /// - Parameter animation: The animation of every change; `nil` applies changes unanimated.
    public init(animation: Animation?) {
      self.animation = animation
    }

    /// Runs `work` on the main actor inside `withAnimation`.
    ///
    /// - Parameter work: The work that applies the change.
    public func schedule(work: @escaping @Sendable () -> Void) {
      let animation = self.animation
      Task { @MainActor in
        withAnimation(animation) { work() }
      }
    }
  }

  extension SharedOperationStateScheduler where Self == AnimationStateScheduler {
    /// A scheduler that applies state changes on the main actor inside `withAnimation`.
    ///
    /// - Parameter animation: The animation of every change.
    /// - Returns: The scheduler.
    public static func animation(_ animation: Animation? = .default) -> Self {
      AnimationStateScheduler(animation: animation)
    }
  }
#endif
