import Observation
import OperationCore
import OperationTestSupport
import Processed
import Testing

// The seed README's examples, rewritten as `@Observable` models. A model's `body` lists what the
// README's view would show. Sleeps wait on an injected delayer instead, which the tests resume by
// hand, and Combine's `publisher.values` is replaced by a plain loop.

// MARK: - DemoView with @Loadable

@MainActor
@Observable
final class DemoModel {
  @ObservationIgnored @Loadable<[Int]> var numbers
  @ObservationIgnored var numbersTask: Task<Void, Never>?
  var showLoadingDelay = false

  @ObservationIgnored let delayer: any OperationDelayer & Sendable

  init(delayer: any OperationDelayer & Sendable) {
    self.delayer = delayer
  }

  func loadNumbers() {
    $numbers.load {
      try await delayer.delay(for: .seconds(2))
      return [0, 1, 2, 42, 73]
    }
  }

  func loadStreamedNumbers() {
    $numbers.load { yield in
      var numbers: [Int] = []
      for number in [42, 73] {
        try await delayer.delay(for: .seconds(1))
        numbers.append(number)
        yield(.loaded(numbers))
      }
    }
  }

  func loadNumbersInTask() {
    self.numbersTask = Task {
      await $numbers.load {
        try await delayer.delay(for: .seconds(2))
        return [42]
      }
      // At this point, the loading process has finished.
    }
  }

  func loadWithTimeout(interruptDelayer: any OperationDelayer & Sendable) {
    $numbers.load(interrupts: [.seconds(2), .seconds(3)], delayer: interruptDelayer) {
      try await delayer.delay(for: .seconds(10))
      return [42]
    } onInterrupt: { accumulatedDelay in
      switch accumulatedDelay {
      case .seconds(5):
        throw TimeoutError()
      default:
        showLoadingDelay = true
      }
    }
  }

  var body: [String] {
    switch numbers {
    case .absent: []
    case .loading: ["ProgressView"]
    case .error(let error): ["\(error)"]
    case .loaded(let numbers): numbers.map { String($0) }
    }
  }
}

// MARK: - ViewModel with LoadableSupport

@MainActor
@Observable
final class NumbersViewModel: LoadableSupport {
  var numbers: LoadableState<[Int]> = .absent

  @ObservationIgnored let delayer: any OperationDelayer & Sendable

  init(delayer: any OperationDelayer & Sendable) {
    self.delayer = delayer
  }

  func loadNumbers() {
    load(\.numbers) {
      try await delayer.delay(for: .seconds(2))
      return [42]
    }
  }

  func loadStreamedNumbers() {
    load(\.numbers) { yield in
      var numbers: [Int] = []
      for number in [42, 73] {
        try await delayer.delay(for: .seconds(1))
        numbers.append(number)
        yield(.loaded(numbers))
      }
    }
  }

  func cancelLoading() {
    cancel(\.numbers)
  }
}

// MARK: - DemoView with @Process

enum ProcessKind {
  case save
  case delete
}

@MainActor
@Observable
final class SaveDemoModel {
  @ObservationIgnored @Process var saveData
  @ObservationIgnored @Process<ProcessKind> var process

  @ObservationIgnored let disk: ManualDelayer

  init(disk: ManualDelayer) {
    self.disk = disk
  }

  func saveToDisk() async throws {
    try await disk.delay(for: .seconds(1))
  }

  func deleteFromDisk() async throws {
    try await disk.delay(for: .seconds(1))
  }

  func saveSingle() {
    $saveData.run {
      try await saveToDisk()
    }
  }

  func save() {
    $process.run(.save) {
      try await saveToDisk()
    }
  }

  func delete() {
    $process.run(.delete) {
      try await deleteFromDisk()
    }
  }

  var body: String {
    switch process {
    case .idle: "idle"
    case .running(let process): "running \(process)"
    case .failed(let process, let error): "\(process) failed: \(error)"
    case .finished(let process): "finished \(process)"
    }
  }
}

// MARK: - ViewModel with ProcessSupport

@MainActor
@Observable
final class DocumentViewModel: ProcessSupport {
  var process: ProcessState<ProcessKind> = .idle

  @ObservationIgnored let disk: ManualDelayer

  init(disk: ManualDelayer) {
    self.disk = disk
  }

  func save() {
    run(\.process, as: .save) {
      try await disk.delay(for: .seconds(1))
    }
  }

  func delete() {
    run(\.process, as: .delete) {
      try await disk.delay(for: .seconds(1))
    }
  }

  func cancelLoading() {
    cancel(\.process)
  }
}

// MARK: - Tests

@MainActor
@Suite struct `Processed README example tests` {
  @Test func `The Demo View Shows A Spinner Then The Numbers`() async {
    let delayer = ManualDelayer()
    let model = DemoModel(delayer: delayer)
    #expect(model.body == [])

    model.loadNumbers()
    #expect(model.body == ["ProgressView"])

    await delayer.waitForDelays(count: 1)
    await resume(delayer, thenWaitForAChangeOf: { model.numbers })
    #expect(model.body == ["0", "1", "2", "42", "73"])
    #expect(delayer.delays == [.seconds(2)])
  }

  @Test func `The Demo View Shows Streamed Numbers As They Arrive`() async {
    let delayer = ManualDelayer()
    let model = DemoModel(delayer: delayer)
    model.loadStreamedNumbers()
    #expect(model.body == ["ProgressView"])

    await delayer.waitForDelays(count: 1)
    await resume(delayer, thenWaitForAChangeOf: { model.numbers })
    #expect(model.body == ["42"])

    await delayer.waitForDelays(count: 2)
    await resume(delayer, thenWaitForAChangeOf: { model.numbers })
    #expect(model.body == ["42", "73"])
  }

  @Test func `The Async Load Uses The Calling Task`() async {
    let delayer = ManualDelayer()
    let model = DemoModel(delayer: delayer)
    model.loadNumbersInTask()
    await delayer.waitForDelays(count: 1)
    #expect(model.numbers == .loading)
    delayer.resumeNext()
    await model.numbersTask?.value
    #expect(model.numbers == .loaded([42]))
  }

  @Test func `Cancelling The Calling Task Stops The Async Load`() async {
    let delayer = ManualDelayer()
    let model = DemoModel(delayer: delayer)
    model.loadNumbersInTask()
    await delayer.waitForDelays(count: 1)
    model.numbersTask?.cancel()
    await model.numbersTask?.value
    #expect(model.numbers == .loading)
  }

  @Test func `Cancel And Reset Of The Demo View`() async {
    let delayer = ManualDelayer()
    let model = DemoModel(delayer: delayer)
    model.loadNumbers()
    await delayer.waitForDelays(count: 1)
    model.$numbers.cancel()
    #expect(delayer.cancelledCount == 1)
    #expect(model.numbers == .loading)
    model.$numbers.reset()
    #expect(model.numbers == .absent)
  }

  @Test func `Interrupts Show A Hint Then Time Out`() async {
    let work = ManualDelayer()
    let interrupts = ManualDelayer()
    let model = DemoModel(delayer: work)
    model.loadWithTimeout(interruptDelayer: interrupts)

    await interrupts.waitForDelays(count: 1)
    interrupts.resumeNext()
    await interrupts.waitForDelays(count: 2)
    #expect(model.showLoadingDelay)
    #expect(model.numbers == .loading)

    await resume(interrupts, thenWaitForAChangeOf: { model.numbers })
    #expect(model.numbers.error as? TimeoutError == TimeoutError())
    #expect(work.delays == [.seconds(10)])
  }

  @Test func `The View Model Loads Numbers`() async {
    let delayer = ManualDelayer()
    let model = NumbersViewModel(delayer: delayer)
    model.loadNumbers()
    #expect(model.numbers == .loading)
    await delayer.waitForDelays(count: 1)
    await resume(delayer, thenWaitForAChangeOf: { model.numbers })
    #expect(model.numbers == .loaded([42]))
  }

  @Test func `The View Model Streams Numbers`() async {
    let delayer = ManualDelayer()
    let model = NumbersViewModel(delayer: delayer)
    model.loadStreamedNumbers()
    await delayer.waitForDelays(count: 1)
    await resume(delayer, thenWaitForAChangeOf: { model.numbers })
    #expect(model.numbers == .loaded([42]))
    await delayer.waitForDelays(count: 2)
    await resume(delayer, thenWaitForAChangeOf: { model.numbers })
    #expect(model.numbers == .loaded([42, 73]))
  }

  @Test func `The View Model Cancels Loading`() async {
    let delayer = ManualDelayer()
    let model = NumbersViewModel(delayer: delayer)
    model.loadNumbers()
    await delayer.waitForDelays(count: 1)
    model.cancelLoading()
    #expect(delayer.cancelledCount == 1)
    #expect(model.numbers == .loading)
  }

  @Test func `The Process Demo Saves And Deletes`() async {
    let disk = ManualDelayer()
    let model = SaveDemoModel(disk: disk)
    #expect(model.body == "idle")

    model.save()
    #expect(model.body == "running save")
    await disk.waitForDelays(count: 1)
    await resume(disk, thenWaitForAChangeOf: { model.process })
    #expect(model.body == "finished save")

    model.delete()
    #expect(model.body == "running delete")
    await disk.waitForDelays(count: 2)
    await resume(disk, thenWaitForAChangeOf: { model.process })
    #expect(model.body == "finished delete")
  }

  @Test func `The Single Process Demo Saves`() async {
    let disk = ManualDelayer()
    let model = SaveDemoModel(disk: disk)
    model.saveSingle()
    #expect(model.saveData.isRunning)
    await disk.waitForDelays(count: 1)
    await resume(disk, thenWaitForAChangeOf: { model.saveData })
    #expect(model.saveData.hasFinished)
  }

  @Test func `The Process View Model Saves, Deletes And Cancels`() async {
    let disk = ManualDelayer()
    let model = DocumentViewModel(disk: disk)
    model.save()
    #expect(model.process.isRunning(.save))
    await disk.waitForDelays(count: 1)
    await resume(disk, thenWaitForAChangeOf: { model.process })
    #expect(model.process.hasFinished(.save))

    model.delete()
    await disk.waitForDelays(count: 2)
    model.cancelLoading()
    #expect(disk.cancelledCount == 1)
    #expect(model.process.isRunning(.delete))
  }
}

/// Resumes the next delay of `delayer`, then waits until the state that `state` reads changes.
@MainActor
private func resume<T>(
  _ delayer: ManualDelayer,
  thenWaitForAChangeOf state: @MainActor () -> T
) async {
  let changed = Gate()
  withObservationTrackingOnce(state, onChange: { changed.open() })
  delayer.resumeNext()
  await changed.wait()
}
