import Foundation
import Magpie
import MagpieTesting
import Testing

/// A table view in miniature: 12 reusable cells over 1,000 rows whose images are told apart
/// by their width (row r's image is 100 + r pixels wide).
@MainActor
final class ScrollingTable {
    @MainActor
    final class Cell: ImageDisplaying {
        let imageBinding = ImageBinding()
        var row = -1
        /// Every image shown, with the row the cell held at that moment.
        private(set) var history: [(row: Int, width: Int?)] = []

        func display(_ image: DecodedImage?) { history.append((row, image?.width)) }
    }

    static let rowCount = 1_000
    static let cellCount = 12
    let cells = (0..<cellCount).map { _ in Cell() }
    let pipeline: ImagePipeline
    let urls: [URL]
    private(set) var bindsSatisfiedFromMemory = 0
    private(set) var binds = 0

    init(pipeline: ImagePipeline, urls: [URL]) {
        self.pipeline = pipeline
        self.urls = urls
    }

    static func width(ofRow row: Int) -> Int { 100 + row }

    /// Shows rows `top ..< top + cellCount`, rebinding only the cells whose row changed.
    func scroll(to top: Int) {
        for row in top..<(top + Self.cellCount) {
            let cell = cells[row % Self.cellCount]
            guard cell.row != row else { continue }
            cell.row = row
            binds += 1
            if pipeline.bind(urls[row], to: cell) == nil { bindsSatisfiedFromMemory += 1 }
        }
    }

    /// Scrolls one row per frame at 60 frames a second, then stops.
    func scroll(rows: Int) async throws {
        for top in 0...rows {
            scroll(to: top)
            try await Task.sleep(for: .milliseconds(16))
        }
    }

    var visibleRowsShowTheirImages: Bool {
        cells.allSatisfy { cell in
            cell.history.last.map { $0.row == cell.row && $0.width == Self.width(ofRow: cell.row) } ?? false
        }
    }

    /// Displays of an image that belongs to another row than the cell's at that moment.
    var wrongImages: [(row: Int, width: Int)] {
        cells.flatMap { cell in
            cell.history.compactMap { entry in
                guard let width = entry.width, width != Self.width(ofRow: entry.row) else { return nil }
                return (entry.row, width)
            }
        }
    }

    /// Rows whose image was displayed at some point.
    var rowsShown: Set<Int> {
        Set(cells.flatMap { cell in cell.history.compactMap { $0.width.map { $0 - 100 } } })
    }
}

@Suite("Scroll simulation", .serialized)
@MainActor
struct ScrollSimulationTests {
    static let scrolledRows = 400

    static func serveRows(_ fixture: TestFixture) throws -> [URL] {
        var generator = SystemRandomNumberGenerator()
        return try (0..<ScrollingTable.rowCount).map { row in
            var route = ServedRoute.image(try TestImages.texture(width: ScrollingTable.width(ofRow: row), height: 4, format: .png))
            route.latency = .milliseconds(Int.random(in: 0...200, using: &generator))
            fixture.server.serve("/row\(row).png", route)
            return fixture.server.url("/row\(row).png")
        }
    }

    @Test func reusedCellsNeverShowAnotherRowsImage() async throws {
        // LIFO is the configuration for scrolling lists: rows that just appeared (and will stay
        // longest) load first, rows about to leave wait and are cancelled before they start.
        try await withTestFixture(configure: { $0.downloadOrder = .lifo }) { fixture in
            let table = ScrollingTable(pipeline: fixture.pipeline, urls: try Self.serveRows(fixture))
            try await table.scroll(rows: Self.scrolledRows)
            try await waitUntil { table.visibleRowsShowTheirImages }

            #expect(table.wrongImages.isEmpty, "\(table.wrongImages.prefix(5))")
            #expect(table.visibleRowsShowTheirImages)
            let shown = table.rowsShown
            var bytesShown = 0
            var bytesWasted = 0
            for row in 0..<(Self.scrolledRows + ScrollingTable.cellCount) {
                let sent = fixture.server.statistics(for: "/row\(row).png").bytesSent
                if shown.contains(row) { bytesShown += sent } else { bytesWasted += sent }
            }
            #expect(bytesShown > 0)
            // The server stops writing when a client goes away (ClientAbortHandler), so bytes sent
            // for rows that scrolled away are what cancellation failed to save.
            #expect(Double(bytesWasted) < Double(bytesShown) * 0.10, "wasted \(bytesWasted) of \(bytesShown) bytes")
            try await waitUntil { fixture.pipeline.inFlightTaskCount == 0 }
        }
    }

    @Test func aWarmScrollIsSynchronousAndOffline() async throws {
        try await withTestFixture { fixture in
            let urls = try Self.serveRows(fixture)
            let rows = 0..<(Self.scrolledRows + ScrollingTable.cellCount)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for row in rows { group.addTask { _ = try await fixture.pipeline.image(for: urls[row]) } }
                try await group.waitForAll()
            }
            let requestsBefore = fixture.server.totalRequests
            let table = ScrollingTable(pipeline: fixture.pipeline, urls: urls)
            try await table.scroll(rows: Self.scrolledRows)
            #expect(table.bindsSatisfiedFromMemory == table.binds)
            #expect(fixture.server.totalRequests == requestsBefore)
            #expect(table.visibleRowsShowTheirImages)
            #expect(table.wrongImages.isEmpty)
        }
    }
}
