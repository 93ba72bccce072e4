import Foundation

/// Measurements with their targets, printed as a Markdown table.
struct Report {
    struct Row {
        var name: String
        var value: String
        var target: String
        var met: Bool?
    }

    private(set) var rows: [Row] = []

    mutating func add(_ name: String, _ value: String, target: String = "", met: Bool? = nil) {
        rows.append(Row(name: name, value: value, target: target, met: met))
    }

    func print() {
        Swift.print("\n| measurement | result | target | met |")
        Swift.print("|---|---|---|---|")
        for row in rows {
            let met = row.met.map { $0 ? "yes" : "**no**" } ?? ""
            Swift.print("| \(row.name) | \(row.value) | \(row.target) | \(met) |")
        }
        let machine = "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB"
        Swift.print("\nMachine: \(machine).")
    }
}

func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e3 + Double(attoseconds) / 1e15
}

func nanoseconds(_ duration: Duration) -> Double {
    milliseconds(duration) * 1e6
}

/// Runs `body` once to warm up, then `runs` times, and returns the median time in milliseconds.
func medianMilliseconds(of runs: Int, _ body: () throws -> Void) rethrows -> Double {
    try body()
    let clock = ContinuousClock()
    var times: [Double] = []
    for _ in 0..<runs { times.append(milliseconds(try clock.measure(body))) }
    return median(times)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

func format(_ value: Double, _ digits: Int = 1) -> String {
    String(format: "%.\(digits)f", value)
}
