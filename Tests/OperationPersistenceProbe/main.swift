// A second process for the fault tests of OperationPersistence: it holds an outbox, or prints the
// query cache's keys, so that the tests check what happens across processes.
//
//   OperationPersistenceProbe claim <database>   claims the database's outbox, prints
//                                                "claimed <pid>", and holds it until its standard
//                                                input closes or it is killed; prints
//                                                "refused: <owner>" and exits with 3 when the
//                                                outbox is held
//   OperationPersistenceProbe keys               prints the keys of ProbePaths.all, one a line
//   OperationPersistenceProbe unstable-keys      prints, for each of ProbePaths.unstable, its key
//                                                or "refused: <type>"

import Foundation
import OperationCore
import OperationPersistence
import OperationPersistenceProbeSupport

/// Prints a line at once, unbuffered, for the test that reads it.
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "claim":
  guard let path = arguments.dropFirst().first else {
    say("usage: OperationPersistenceProbe claim <database>")
    exit(2)
  }
  do {
    let outbox = try await MutationOutbox(storage: SQLitePersistence(path: path))
    say("claimed \(ProcessInfo.processInfo.processIdentifier)")
    while readLine() != nil {}
    await outbox.close()
  } catch let error as MutationOutbox.OutboxClaimedError {
    say("refused: \(error.owner)")
    exit(3)
  } catch {
    say("error: \(error)")
    exit(1)
  }
case "keys":
  for path in ProbePaths.all {
    say(try PersistentQueryCache.key(for: path, operationType: [String: Int].self))
  }
case "unstable-keys":
  for (path, operationType) in ProbePaths.unstable {
    do throws(PersistentKeyError) {
      say(try PersistentQueryCache.key(for: path, operationType: operationType))
    } catch {
      say("refused: \(error.typeName)")
    }
  }
default:
  say("usage: OperationPersistenceProbe claim <database> | keys | unstable-keys")
  exit(2)
}
