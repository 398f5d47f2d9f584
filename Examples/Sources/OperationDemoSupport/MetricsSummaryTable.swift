/// The demo's summary of the client's metrics: a table of the counts per operation group with the
/// requests they imply, then a table of the routes with the requests implied and received.
///
/// ```text
/// OPERATION        RUNS  OK  FAILED  CANCELLED  RETRIES  JOINS  TIMEOUTS  REJECTED  PAGES  REQUESTS
/// Post.FeedQuery      4   4       0          0        2      0         0         0     13        13  = pages
/// …
/// ROUTE            IMPLIED  RECEIVED
/// GET /posts            13        13  ✓
/// ```
public enum MetricsSummaryTable {
  /// Renders the tables, without indentation.
  ///
  /// - Parameters:
  ///   - counts: The metrics, per group.
  ///   - reconciliation: The same metrics next to the server's counts, or `nil` when there is no
  ///     server to compare with (`--base-url`): then only the first table is rendered, with the
  ///     requests the metrics imply.
  ///   - traffic: How each group sends requests, for the requests column without a server.
  /// - Returns: The lines.
  public static func render(
    counts: [OperationCounts],
    reconciliation: MetricsReconciliation?,
    traffic: [OperationTraffic]
  ) -> [String] {
    let formulas = Dictionary(
      traffic.map { ($0.operation, $0.formula) },
      uniquingKeysWith: { first, _ in first }
    )
    var operations = [
      [
        "OPERATION", "RUNS", "OK", "FAILED", "CANCELLED", "RETRIES", "JOINS", "TIMEOUTS",
        "REJECTED", "PAGES", "REQUESTS", "",
      ]
    ]
    for group in counts {
      let formula = formulas[group.operation]
      let requests = formula.map { "\($0.requests(for: group))" } ?? "?"
      let note: String =
        switch formula {
        case .none(let reason)?: "= 0: \(reason)"
        case let formula?: "= \(formula.text)"
        case nil: "no formula"
        }
      operations.append(
        [
          group.operation, "\(group.runs)", "\(group.successes)", "\(group.failures)",
          "\(group.cancellations)", "\(group.retries)", "\(group.joins)", "\(group.timeouts)",
          "\(group.rejections)", "\(group.pages)", requests, note,
        ]
      )
    }
    var lines = Self.table(operations)
    guard let reconciliation else { return lines }
    var routes = [["ROUTE", "IMPLIED", "RECEIVED", ""]]
    for route in reconciliation.routes {
      let mark = route.agrees ? "✓" : "✗"
      if let excluded = route.excluded {
        let expected = excluded.expectedRequests.map { ", the demo sent \($0)" } ?? ""
        routes.append(
          [
            route.route, "-", "\(route.received)",
            "\(mark) left out: \(excluded.reason)\(expected)",
          ]
        )
      } else if let implied = route.implied {
        routes.append(
          [
            route.route, "\(implied)", "\(route.received)",
            "\(mark) \(route.operations.joined(separator: ", "))",
          ]
        )
      } else {
        routes.append(
          [route.route, "-", "\(route.received)", "\(mark) no operation, no exclusion"]
        )
      }
    }
    routes.append(
      [
        "total", "\(reconciliation.totalImplied)", "\(reconciliation.totalReceived)",
        "= \(reconciliation.totalImplied) from the operations + \(reconciliation.totalExcluded) "
          + "left out",
      ]
    )
    lines.append("")
    lines += Self.table(routes)
    return lines
  }

  /// Aligns the cells in columns: the first and the last to the left, the others to the right;
  /// trailing spaces are trimmed.
  private static func table(_ rows: [[String]]) -> [String] {
    let columns = rows.map(\.count).max() ?? 0
    let widths = (0..<columns).map { column in
      rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0
    }
    return rows.map { row in
      let cells = row.enumerated().map { column, cell in
        let padding = String(repeating: " ", count: widths[column] - cell.count)
        return column == 0 || column == columns - 1 ? cell + padding : padding + cell
      }
      let line = cells.joined(separator: "  ")
      return String(line.reversed().drop { $0 == " " }.reversed())
    }
  }
}
