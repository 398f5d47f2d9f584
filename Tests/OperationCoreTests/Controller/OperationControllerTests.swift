import Foundation
@_spi(Warnings) import OperationCore
import OperationSynchronization
import OperationTestSupport
import Testing

@Suite struct `OperationController tests` {
  private typealias State = QueryState<Int, any Error>

  @Test func `Each Store Calls Its Controllers Once When Created`() {
    let controller = CapturingController()
    let query = TestQuery().controlled(by: controller)
    _ = OperationStore.detached(query: query, initialValue: nil)
    _ = OperationStore.detached(query: query, initialValue: nil)
    #expect(controller.controlCount == 2)
  }

  @Test func `Controllers Accumulate`() {
    let first = CapturingController()
    let second = CapturingController()
    _ = OperationStore.detached(
      query: TestQuery().controlled(by: first).controlled(by: second),
      initialValue: nil
    )
    #expect(first.controlCount == 1)
    #expect(second.controlCount == 1)
  }

  @Test func `Deallocating The Store Cancels The Controller Subscription`() {
    let controller = CapturingController()
    var store: OperationStore<State>? = OperationStore.detached(
      query: TestQuery().controlled(by: controller),
      initialValue: nil
    )
    #expect(!controller.isCancelled)
    _ = store
    store = nil
    #expect(controller.isCancelled)
  }

  @Test func `Yielded Values And Errors Update The State And Notify`() throws {
    let clock = ManualOperationClock(date: Date(timeIntervalSince1970: 10))
    let controller = CapturingController()
    let store = OperationStore.detached(
      query: TestQuery().controlled(by: controller).clock(clock),
      initialValue: nil
    )
    let recorder = OperationEventRecorder<State>()
    let subscription = store.subscribe(with: recorder.eventHandler())
    let controls = try #require(controller.controls)

    controls.yield(5)
    #expect(store.currentValue == 5)
    #expect(store.valueUpdateCount == 1)
    #expect(store.valueLastUpdatedAt == Date(timeIntervalSince1970: 10))

    clock.advance(by: 5)
    controls.yield(throwing: TestError())
    #expect(store.error is TestError)
    #expect(store.errorUpdateCount == 1)
    #expect(store.errorLastUpdatedAt == Date(timeIntervalSince1970: 15))
    #expect(recorder.events == [.stateChanged, .stateChanged, .stateChanged])
    subscription.cancel()
  }

  @Test func `Exclusive Access Yields From The Current State`() throws {
    let controller = CapturingController()
    let store = OperationStore.detached(
      query: TestQuery().controlled(by: controller),
      initialValue: 1
    )
    let controls = try #require(controller.controls)
    controls.withExclusiveAccess { controls in
      controls.yield((controls.state.currentValue ?? 0) + 1)
    }
    #expect(store.currentValue == 2)
  }

  @Test func `Reset Through The Controls Restores The Initial State`() async throws {
    let controller = CapturingController()
    let store = OperationStore.detached(
      query: TestQuery().controlled(by: controller),
      initialValue: nil
    )
    try await store.fetch()
    #expect(store.currentValue == 1)
    try #require(controller.controls).yieldResetState()
    #expect(store.currentValue == nil)
    #expect(store.valueUpdateCount == 0)
  }

  @Test func `Rerun Needs Automatic Running`() async throws {
    let controller = CapturingController()
    let disabled = OperationStore.detached(
      query: TestQuery().controlled(by: controller),
      initialValue: nil
    )
    let controls = try #require(controller.controls)
    #expect(!controls.canYieldRerun)
    #expect(controls.yieldRerunTask() == nil)
    #expect(disabled.activeTasks.isEmpty)

    let enabledController = CapturingController()
    let enabled = OperationStore.detached(
      query: TestQuery().controlled(by: enabledController)
        .enableAutomaticRunning(onlyWhen: .always(true)),
      initialValue: nil
    )
    let enabledControls = try #require(enabledController.controls)
    #expect(enabledControls.canYieldRerun)
    #expect(try await enabledControls.yieldRerun() == 1)
    #expect(enabled.currentValue == 1)
  }

  @Test func `Controls Read The Store`() throws {
    let controller = CapturingController()
    let store = OperationStore.detached(
      query: TestQuery().controlled(by: controller),
      initialValue: 3
    )
    let controls = try #require(controller.controls)
    let subscription = store.subscribe(with: OperationEventHandler())
    #expect(controls.path == store.path)
    #expect(controls.state.currentValue == 3)
    #expect(controls.subscriberCount == 1)
    #expect(controls.isStale)
    #expect(controls.context.operationControllers.count == 1)
    subscription.cancel()
  }

  @Test func `Using The Controls After The Store Is Gone Reports A Warning`() throws {
    let controller = CapturingController(keepsControls: true)
    var store: OperationStore<State>? = OperationStore.detached(
      query: TestQuery().controlled(by: controller),
      initialValue: 7
    )
    _ = store
    store = nil
    let controls = try #require(controller.controls)
    withKnownIssue {
      #expect(controls.state.currentValue == 7)
      #expect(controls.subscriberCount == 0)
      controls.yield(1)
    } matching: { issue in
      issue.comments.contains(
        Comment(
          rawValue: OperationWarning.controllerDeallocatedStoreAccess(stateType: State.self)
            .message
        )
      )
    }
  }
}

/// A controller that keeps the controls it receives until its subscription is cancelled.
private final class CapturingController: OperationController, Sendable {
  typealias State = QueryState<Int, any Error>

  private struct Captured {
    var controls: OperationControls<State>?
    var controlCount = 0
    var isCancelled = false
  }

  private let captured = Lock(Captured())
  private let keepsControls: Bool

  init(keepsControls: Bool = false) {
    self.keepsControls = keepsControls
  }

  var controls: OperationControls<State>? { self.captured.withLock { $0.controls } }
  var controlCount: Int { self.captured.withLock { $0.controlCount } }
  var isCancelled: Bool { self.captured.withLock { $0.isCancelled } }

  func control(with controls: OperationControls<State>) -> OperationSubscription {
    self.captured.withLock {
      $0.controls = controls
      $0.controlCount += 1
    }
    return OperationSubscription { [keepsControls] in
      self.captured.withLock {
        $0.isCancelled = true
        if !keepsControls { $0.controls = nil }
      }
    }
  }
}
