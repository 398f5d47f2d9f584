import ArgumentParser

/// The executable's entry point.
///
/// `operation-demo outbox-crash-test child …` runs the crash test's child process,
/// `operation-demo outbox-crash-test …` the crash test, `operation-demo shutdown-test child …`
/// the shutdown test's child service, `operation-demo shutdown-test` the shutdown test,
/// `operation-demo fleet-child …` a child of the fleet test, `operation-demo fleet-test …` the
/// fleet test, `operation-demo fleet` the fleet demo, anything else the demo.
///
/// NB: These are not subcommands: ArgumentParser lets a parent command's options appear after a
/// subcommand's name, so the demo's `--seed`, `--failure-rate`, `--time-limit` and `--base-url`
/// would take the crash test's flags of the same names, and the crash test's `--lanes` the
/// child's.
@main
enum OperationDemoMain {
  static func main() async {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.starts(with: OutboxCrashChildCommand.arguments) {
      await OutboxCrashChildCommand.main(Array(arguments.dropFirst(2)))
    } else if arguments.first == OutboxCrashTestCommand.name {
      await OutboxCrashTestCommand.main(Array(arguments.dropFirst()))
    } else if arguments.starts(with: ShutdownChildCommand.arguments) {
      await ShutdownChildCommand.main(Array(arguments.dropFirst(2)))
    } else if arguments.first == ShutdownTestCommand.name {
      await ShutdownTestCommand.main(Array(arguments.dropFirst()))
    } else if arguments.first == FleetChildCommand.name {
      await FleetChildCommand.main(Array(arguments.dropFirst()))
    } else if arguments.first == FleetTestCommand.name {
      await FleetTestCommand.main(Array(arguments.dropFirst()))
    } else if arguments.first == FleetDemoCommand.name {
      await FleetDemoCommand.main(Array(arguments.dropFirst()))
    } else {
      await OperationDemoCommand.main()
    }
  }
}
