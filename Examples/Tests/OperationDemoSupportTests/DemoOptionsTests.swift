import ArgumentParser
import Foundation
import OperationDemoSupport
import Testing

@Suite struct `DemoOptions tests` {
  @Test func `the defaults run the embedded server with faults`() throws {
    let options = try DemoOptions.parse([])
    #expect(options.baseURL == nil)
    #expect(options.faultPlan == FaultPlan(failureRate: 0.2, latency: .milliseconds(20), seed: 5))
    #expect(options.offlineDuration == .milliseconds(500))
    #expect(options.timeLimit == .seconds(30))
    #expect(!options.serveOnly)
    #expect(options.port == 0)
    #expect(!options.inspect)
  }

  @Test func `inspect is a flag`() throws {
    #expect(try DemoOptions.parse(["--inspect"]).inspect)
    #expect(try DemoOptions.parse(["--inspect", "--port", "8080"]).inspect)
  }

  @Test func `flags set the fault plan`() throws {
    let options = try DemoOptions.parse(
      ["--failure-rate", "0.5", "--latency-ms", "50", "--offline-for-ms", "800", "--seed", "1"]
    )
    #expect(options.faultPlan == FaultPlan(failureRate: 0.5, latency: .milliseconds(50), seed: 1))
    #expect(options.offlineDuration == .milliseconds(800))
  }

  @Test func `base URL loses its trailing slash`() throws {
    let options = try DemoOptions.parse(["--base-url", "https://dummyjson.com/"])
    #expect(options.baseURL == URL(string: "https://dummyjson.com"))
  }

  @Test(
    arguments: [
      (["--failure-rate", "1.5"], "--failure-rate must be between 0 and 1"),
      (["--failure-rate", "lots"], "failure-rate"),
      (["--latency-ms=-1"], "--latency-ms must be between 0 and 1000"),
      (["--latency-ms", "-5"], "--latency-ms must be between 0 and 1000, got -5."),
      (["--failure-rate", "-0.5"], "--failure-rate must be between 0 and 1, got -0.5."),
      (["--offline-for-ms", "-1"], "--offline-for-ms must be between 0 and 10000, got -1."),
      (["--time-limit", "-3"], "--time-limit must be between 1 and 600, got -3."),
      (["--port", "-1"], "--port must be between 0 and 65535, got -1."),
      (["--offline-for-ms", "20000"], "--offline-for-ms must be between 0 and 10000"),
      (["--time-limit", "0"], "--time-limit must be between 1 and 600"),
      (["--seed", "-4"], "seed"),
      (["--port", "70000"], "--port must be between 0 and 65535"),
      (["--base-url", "dummyjson.com"], "--base-url must be an http or https URL"),
      (["--base-url", "ftp://example.com"], "--base-url must be an http or https URL"),
      (["--serve-only", "--base-url", "http://a.b"], "--serve-only runs the embedded server"),
      (["--port", "8080", "--base-url", "http://a.b"], "--port sets the embedded server's port"),
      (["--inspect", "--serve-only"], "--inspect shows the demo client's stores"),
      (["--inspect", "--base-url", "http://a.b"], "--inspect reads the embedded server's"),
      (["--frobnicate"], "Unknown option '--frobnicate'"),
    ]
  )
  func `a bad flag gets a message that names it and a failure exit code`(
    arguments: [String],
    message: String
  ) {
    #expect {
      _ = try DemoOptions.parse(arguments)
    } throws: { error in
      DemoOptions.message(for: error).contains(message)
        && DemoOptions.exitCode(for: error) != .success
    }
  }
}
