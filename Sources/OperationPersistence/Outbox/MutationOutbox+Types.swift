public import Foundation
public import OperationCore

// NB: The values and errors of the outbox's API, apart from the outbox itself
// (MutationOutbox.swift), which keeps its storage, lanes and deliveries.

extension MutationOutbox {
  /// An entry of the outbox, as stored.
  public struct Entry: Hashable, Sendable, Identifiable, Codable {
    /// Where an entry stands.
    public enum Status: String, Hashable, Sendable, Codable {
      /// Waiting to be sent, or to be sent again.
      case queued
      /// Being sent.
      case inFlight
      /// Failed for good; kept until retried or discarded.
      case failed
    }

    /// The entry's id, in the order of enqueueing.
    public let id: Int64
    /// The kind of mutation, as registered.
    public let kind: String
    /// The lane the entry is delivered in.
    public let lane: String
    /// The key the server deduplicates deliveries by.
    public let idempotencyKey: String
    /// The encoded arguments.
    public let arguments: Data
    /// Where the entry stands.
    public var status: Status
    /// How many times it was sent.
    public var attempts: Int
    /// The description of the last error.
    public var lastError: String?
    /// When it was enqueued.
    public let enqueuedAt: Date
    /// When its status last changed.
    public var updatedAt: Date

    /// Creates an entry.
    public init(
      id: Int64,
      kind: String,
      lane: String,
      idempotencyKey: String,
      arguments: Data,
      status: Status,
      attempts: Int,
      lastError: String?,
      enqueuedAt: Date,
      updatedAt: Date
    ) {
      self.id = id
      self.kind = kind
      self.lane = lane
      self.idempotencyKey = idempotencyKey
      self.arguments = arguments
      self.status = status
      self.attempts = attempts
      self.lastError = lastError
      self.enqueuedAt = enqueuedAt
      self.updatedAt = updatedAt
    }
  }

  /// Whether a failure may pass.
  public enum FailureKind: Hashable, Sendable {
    /// The entry stays queued and is sent again.
    case retryable
    /// The entry is kept as failed.
    case permanent
  }

  /// The outbox's entries, by status.
  public struct Statistics: Hashable, Sendable, Codable {
    /// Entries waiting to be sent.
    public var queued: Int
    /// Entries being sent.
    public var inFlight: Int
    /// Entries that failed for good.
    public var failed: Int
    /// When the oldest entry that is not delivered was enqueued.
    public var oldestEnqueuedAt: Date?

    /// Counts entries by status.
    ///
    /// - Parameter entries: The entries.
    public init(entries: [Entry]) {
      self.queued = entries.count { $0.status == .queued }
      self.inFlight = entries.count { $0.status == .inFlight }
      self.failed = entries.count { $0.status == .failed }
      self.oldestEnqueuedAt = entries.map(\.enqueuedAt).min()
    }
  }

  /// A failure to deliver an entry, as the caller that enqueued it receives it.
  public struct DeliveryError: Error, Sendable, CustomStringConvertible {
    /// The entry, kept as failed.
    public let entry: Entry
    /// The error of the last attempt.
    public let underlying: any Error

    /// A description of the failure.
    public var description: String {
      "The mutation '\(self.entry.kind)' (\(self.entry.idempotencyKey)) failed for good after "
        + "\(self.entry.attempts) attempts: \(self.underlying)"
    }
  }

  /// A change of an entry, as ``subscribe(_:)`` reports it, after the storage has it.
  public enum Event: Hashable, Sendable {
    /// The entry was written, queued.
    case enqueued(Entry)
    /// The entry is being sent.
    case sending(Entry)
    /// The entry was delivered and removed.
    case delivered(Entry)
    /// The entry failed and waits to be sent again.
    case requeued(Entry)
    /// The entry failed for good and is kept.
    case failed(Entry)
    /// The app queued a failed entry again.
    case retried(Entry)
    /// The app removed a failed entry.
    case discarded(Entry)
    /// A change of the entry could not be written; the change that ends an entry is written
    /// again after a delay.
    case storageFailed(Entry, error: String)
    /// Another worker claimed the entry (or it is gone): this outbox stopped handling it, and
    /// answered its callers with ``StaleClaimError``.
    case claimLost(Entry, error: String)

    /// The entry the event is about.
    public var entry: Entry {
      switch self {
      case .enqueued(let entry), .sending(let entry), .delivered(let entry),
        .requeued(let entry), .failed(let entry), .retried(let entry), .discarded(let entry),
        .storageFailed(let entry, _), .claimLost(let entry, _):
        entry
      }
    }
  }

  /// The error of an entry that failed for good in an earlier delivery, as stored.
  public struct StoredFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stored description of the error.
    public let description: String
  }

  /// An entry whose kind has no registered mutation; it stays queued.
  public struct UnregisteredKindError: Error, Hashable, Sendable {
    /// The kind.
    public let kind: String
  }

  /// A durable mutation whose kind is registered for another mutation type; nothing was
  /// written.
  public struct KindConflictError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind.
    public let kind: String
    /// The name of the type that has the kind.
    public let registeredType: String
    /// The name of the type that was refused.
    public let mutationType: String

    /// A description of the error, with what to do about it.
    public var description: String {
      "The outbox kind '\(self.kind)' belongs to \(self.registeredType), so "
        + "\(self.mutationType) cannot be delivered under it. Give each durable mutation a "
        + "kind of its own."
    }
  }

  /// The outbox was closed or shut down: a caller still waiting for its entry, whose entry
  /// stays in the storage for the next outbox, or a new enqueue, which wrote nothing.
  public struct ClosedError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Creates the error.
    public init() {}

    /// A description of the error.
    public var description: String {
      "The mutation outbox is closed: it delivers and accepts nothing more. Entries already "
        + "written stay in the storage for the next outbox."
    }
  }

  /// A worker's hold on one entry, from ``OperationPersistenceStorage/claimNextOutboxEntry(inLane:worker:at:leaseUntil:)``:
  /// while its generation is the entry's, only this claim can change the entry.
  public struct Claim: Hashable, Sendable {
    /// The entry as the claim left it: in flight, with one more attempt.
    public var entry: Entry

    /// Who holds the claim, as ``MutationOutbox/worker``.
    public var worker: String

    /// The entry's generation that this claim set; every claim of the entry increases it.
    public var generation: Int64

    /// When the lease expires unless renewed; after it, another worker may take the entry over.
    public var leaseExpiresAt: Date

    /// Creates a claim, as an engine returns it.
    ///
    /// - Parameters:
    ///   - entry: The entry, in flight.
    ///   - worker: The worker.
    ///   - generation: The generation the claim set.
    ///   - leaseExpiresAt: The lease's expiry.
    public init(entry: Entry, worker: String, generation: Int64, leaseExpiresAt: Date) {
      self.entry = entry
      self.worker = worker
      self.generation = generation
      self.leaseExpiresAt = leaseExpiresAt
    }
  }

  /// How a claim of a lane's next entry ended.
  public enum ClaimResult: Hashable, Sendable {
    /// The entry is claimed.
    case claimed(Claim)
    /// Another worker's live lease holds the lane's next entry, until the date.
    case busy(until: Date)
    /// The lane has no entry that is not failed.
    case empty
  }

  /// A change through a claim that no longer holds its entry: another worker claimed it since
  /// (a higher generation), or it is gone. The change was not made.
  ///
  /// A ``MutationOutbox`` that meets it stops handling the entry: it reports it (the
  /// `onStorageFailure` handler and ``Event/claimLost(_:error:)``), neither retries nor removes
  /// the entry, and answers the entry's callers with this error.
  public struct StaleClaimError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The entry's id.
    public let entryID: Int64
    /// The entry's idempotency key.
    public let idempotencyKey: String
    /// The generation of the stale claim.
    public let claimGeneration: Int64
    /// The entry's generation now; `nil` when the entry is gone.
    public let currentGeneration: Int64?

    /// Creates the error for `claim`.
    ///
    /// - Parameters:
    ///   - claim: The stale claim.
    ///   - currentGeneration: The entry's generation now; `nil` when it is gone.
    public init(claim: Claim, currentGeneration: Int64?) {
      self.entryID = claim.entry.id
      self.idempotencyKey = claim.entry.idempotencyKey
      self.claimGeneration = claim.generation
      self.currentGeneration = currentGeneration
    }

    /// A description of the error.
    public var description: String {
      let now = self.currentGeneration.map { "is at generation \($0)" } ?? "is gone"
      return "The claim (generation \(self.claimGeneration)) of outbox entry \(self.entryID) "
        + "(\(self.idempotencyKey)) is stale: the entry \(now), so another worker owns it. "
        + "This worker's change was not made; the other worker delivers the entry."
    }
  }

  /// An entry that this outbox expected in its lane is gone from the storage: another worker
  /// delivered it, or failed it, or something removed it. The outbox forgot it.
  public struct EntryGoneError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The entry, as this outbox last knew it.
    public let entry: Entry

    /// A description of the error.
    public var description: String {
      "Outbox entry \(self.entry.id) ('\(self.entry.kind)', \(self.entry.idempotencyKey)) is "
        + "no longer queued in the storage: another worker handled it, or it was removed."
    }
  }

  /// ``MutationOutbox/discard(_:)`` of an entry that is not failed: it is queued, being
  /// delivered, or gone; nothing was removed.
  public struct EntryNotFailedError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The entry.
    public let entry: Entry

    /// A description of the error.
    public var description: String {
      "Outbox entry \(self.entry.id) ('\(self.entry.kind)') is not failed, so it was not "
        + "discarded: only entries that failed for good can be discarded."
    }
  }

  /// The storage's outbox belongs to another outbox, in this process or another; see
  /// ``OperationPersistenceStorage/claimOutbox(owner:)``.
  public struct OutboxClaimedError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where the outbox is, such as the database's path.
    public let storage: String
    /// Who holds it, as it described itself (process id, host, date).
    public let owner: String

    /// A description of the error, with what to do about it.
    public var description: String {
      "The mutation outbox of \(self.storage) is held by \(self.owner). Only one outbox may "
        + "deliver a storage's entries: use that one, or wait for it to close."
    }
  }
}

/// An error that no retry can fix, such as a validation error from the server: a
/// ``MutationOutbox`` keeps the entry as failed instead of sending it again.
public protocol PermanentMutationFailure: Error {}

// MARK: - Context

extension OperationContext {
  /// The idempotency key of the outbox entry being delivered; `nil` outside an outbox delivery.
  ///
  /// Send it to the server, for example as an `Idempotency-Key` header, so that a delivery
  /// repeated after a crash is applied once.
  public var idempotencyKey: String? {
    get { self[IdempotencyKeyKey.self] }
    set { self[IdempotencyKeyKey.self] = newValue }
  }

  /// The outbox entry being delivered, with its attempt count; `nil` outside an outbox delivery.
  public var outboxEntry: MutationOutbox.Entry? {
    get { self[OutboxEntryKey.self] }
    set { self[OutboxEntryKey.self] = newValue }
  }

  private enum IdempotencyKeyKey: Key {
    static let defaultValue: String? = nil
  }

  private enum OutboxEntryKey: Key {
    static let defaultValue: MutationOutbox.Entry? = nil
  }
}
