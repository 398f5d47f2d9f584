import Foundation
import OperationCore
import OperationGraph
import OperationGraphTestFixtures
import OperationQueueCompat
import OperationSynchronization
import OperationTestSupport
import Testing

/// The examples of danthorpe/Operations' README, as written modulo Swift 6 and Linux: YapDatabase
/// and UIKit are replaced by small fakes of the same shape, and `BlockOperation(mainQueueBlock:)`
/// by `BlockProcedure { … }` (the main queue is not serviced under the Linux test runner).
@Suite(.timeLimit(.minutes(1))) struct `Operations README tests` {
  @Test func `SaveContactOperation saves and calls its completion`() async throws {
    let connection = FakeDatabaseConnection()
    let saved = Lock<Contact?>(nil)
    let save = SaveContactOperation(
      connection: connection,
      contact: Contact(displayName: "Ada")
    ) { contact in
      saved.withLock { $0 = contact }
    }
    let queue = OperationQueue()
    queue.addOperation(save)
    try await save.untilFinished()
    #expect(save.name == "Save Contact: Ada")
    #expect(saved.withLock { $0 } == Contact(displayName: "Ada"))
    #expect(connection.contacts == [Contact(displayName: "Ada")])
  }

  @Test func `A composed write operation with a block observer`() async throws {
    let connection = FakeDatabaseConnection()
    let contact = Contact(displayName: "Grace")
    let log = EventLog()
    let queue = OperationQueue()

    let save = ComposedOperation(connection.writeOperation(contact))
    save.addObserver(
      BlockObserver { (_, errors) in
        log.append("Did save contact")
      }
    )
    queue.addOperation(save)

    try await save.untilFinished()
    #expect(log.events == ["Did save contact"])
    #expect(connection.contacts == [contact])
  }

  @Test func `A confirmation condition gates a delete`() async throws {
    for confirms in [true, false] {
      let connection = FakeDatabaseConnection()
      let contact = Contact(displayName: "Alan")
      connection.asyncWrite(contact) { _ in }
      let queue = OperationQueue()

      let delete = DeleteContactOperation(connection: connection, contact: contact)
      let confirmation = UserConfirmationCondition(title: "Are you sure?") { confirms }
      delete.addCondition(confirmation)
      queue.addOperation(delete)

      try? await delete.untilFinished()
      #expect(confirmation.isMutuallyExclusive)
      #expect(connection.contacts == (confirms ? [] : [contact]))
      #expect(delete.failed == !confirms)
    }
  }

  @Test func `An unsaved-changes condition whose observer dismisses when nothing changed`()
    async throws
  {
    for (value, dismisses) in [(Contact.default, true), (Contact(displayName: "Edited"), false)] {
      let dismissed = Latch()
      let queue = OperationQueue()
      let connection = FakeDatabaseConnection()

      // Define a block for unwinding.
      let dismiss: @Sendable () -> Void = { dismissed.arrive() }

      // Wrap this in a block operation.
      let operation = BlockProcedure { dismiss() }

      // Attach a condition to check if there are unsaved changes.
      let condition = UnsavedChangesCondition(
        connection: connection,
        value: value,
        save: BlockProcedure { dismiss() },
        discard: BlockProcedure { dismiss() }
      )
      operation.addCondition(condition)

      // Attach an observer to see if the operation failed because there were no edits from a
      // default Contact, in which case continue with dismissing the controller.
      let dismissal = BlockProcedure { dismiss() }
      operation.addObserver(
        BlockObserver { [queue] (_, errors) in
          if let error = errors.first as? UnsavedChangesConditionError {
            switch error {
            case .noChangesFromDefault:
              queue.addOperation(dismissal)
            case .hasUnsavedChanges:
              break
            }
          }
        }
      )

      queue.addOperation(operation)

      try? await operation.untilFinished()
      if dismisses {
        try await dismissal.untilFinished()
        #expect(operation.errors.first as? UnsavedChangesConditionError == .noChangesFromDefault)
        #expect(dismissed.count == 1)
      } else {
        #expect(operation.errors.first as? UnsavedChangesConditionError == .hasUnsavedChanges)
        #expect(!dismissal.isFinished && !queue.operations.contains(dismissal))
        #expect(dismissed.count == 0)
      }
    }
  }
}

// MARK: - Fakes with the README's shapes

struct Contact: Hashable, Sendable {
  static let `default` = Contact(displayName: "")

  var displayName: String
}

/// YapDatabaseConnection's shape: an asynchronous write, and a write operation.
final class FakeDatabaseConnection: Sendable {
  private let stored = Lock([Contact]())

  var contacts: [Contact] {
    self.stored.withLock { $0 }
  }

  func asyncWrite(_ contact: Contact, completion: @escaping @Sendable (Contact) -> Void) {
    self.stored.withLock { $0.append(contact) }
    DispatchQueue.global().async { completion(contact) }
  }

  func asyncRemove(_ contact: Contact, completion: @escaping @Sendable () -> Void) {
    self.stored.withLock { $0.removeAll { $0 == contact } }
    DispatchQueue.global().async { completion() }
  }

  func writeOperation(_ contact: Contact) -> Foundation.BlockOperation {
    Foundation.BlockOperation { self.stored.withLock { $0.append(contact) } }
  }
}

final class SaveContactOperation: ConcurrentOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; the stored properties are
  // `let`s of `Sendable` types.
  typealias CompletionBlockType = @Sendable (Contact) -> Void

  let connection: FakeDatabaseConnection
  let contact: Contact
  let completion: CompletionBlockType?

  init(
    connection: FakeDatabaseConnection,
    contact: Contact,
    completion: CompletionBlockType? = .none
  ) {
    self.connection = connection
    self.contact = contact
    self.completion = completion
    super.init()
    name = "Save Contact: \(contact.displayName)"
  }

  override func execute() {
    connection.asyncWrite(contact) { (returned: Contact) in
      self.completion?(returned)
      self.finish()
    }
  }
}

final class DeleteContactOperation: ConcurrentOperation, @unchecked Sendable {
  // NB: `@unchecked Sendable` restates the superclass's conformance; the stored properties are
  // `let`s of `Sendable` types.
  let connection: FakeDatabaseConnection
  let contact: Contact

  init(connection: FakeDatabaseConnection, contact: Contact) {
    self.connection = connection
    self.contact = contact
    super.init()
  }

  override func execute() {
    connection.asyncRemove(contact) { self.finish() }
  }
}

/// UserConfirmationCondition's shape without UIKit: `confirm` stands for the alert's answer. It
/// is exclusive with other alerts, as the README says.
struct UserConfirmationCondition: OperationCondition {
  struct Declined: Error {}

  let title: String
  let confirm: @Sendable () -> Bool

  var name: String { "UserConfirmationCondition(\(self.title))" }
  var mutualExclusionCategory: String? { AlertPresentation().mutualExclusionCategory }
  var isMutuallyExclusive: Bool { true }

  func evaluate(
    for operation: ConcurrentOperation,
    completion: @escaping @Sendable (OperationConditionResult) -> Void
  ) {
    completion(self.confirm() ? .satisfied : .failed(Declined()))
  }
}

enum UnsavedChangesConditionError: Error, Equatable {
  case noChangesFromDefault
  case hasUnsavedChanges
}

/// The README's imaginary condition: it fails with `.noChangesFromDefault` when the value is the
/// default one, and with `.hasUnsavedChanges` otherwise (a real one would present a prompt that
/// runs `save` or `discard`).
struct UnsavedChangesCondition: OperationCondition {
  let connection: FakeDatabaseConnection
  let value: Contact
  let save: Foundation.Operation
  let discard: Foundation.Operation

  var name: String { "Unsaved Changes" }

  func evaluate(
    for operation: ConcurrentOperation,
    completion: @escaping @Sendable (OperationConditionResult) -> Void
  ) {
    completion(
      .failed(
        self.value == .default
          ? UnsavedChangesConditionError.noChangesFromDefault
          : UnsavedChangesConditionError.hasUnsavedChanges
      )
    )
  }
}
