import EventStore
import Foundation
import FunnelModel
import StoreCore

/// A one-line progress bar on standard error, for long work (ingest, rebuild, export, a read
/// as of the past): made only when standard error is a terminal (`onTerminal`), redrawn at
/// most every 0.1 s.
final class ProgressBar {
    private var last = 0.0
    private var drawn = false

    /// A bar when standard error is a terminal, else nil (nothing is drawn when piped).
    static func onTerminal() -> ProgressBar? { isatty(2) == 1 ? ProgressBar() : nil }

    func update(_ p: IngestProgress) {
        let fraction = p.size > 0 ? min(1, Double(p.bytesRead) / Double(p.size)) : 0
        let name = (p.path as NSString).lastPathComponent
        show(fraction, String(format: "%d/%d %@ %d lines", p.inputIndex + 1, p.inputCount, TerminalText.fit(name, width: 24), p.lines))
    }

    /// `done` of `total` things (`total` nil or 0: a count without a bar's fill).
    func update(done: Int, of total: Int?, _ things: String) {
        if let total, total > 0 {
            show(min(1, Double(done) / Double(total)), "\(done)/\(total) \(things)")
        } else {
            show(nil, "\(done) \(things)")
        }
    }

    private func show(_ fraction: Double?, _ detail: String) {
        let now = Date().timeIntervalSince1970
        guard now - last >= 0.1 else { return }
        last = now
        drawn = true
        let width = 24
        let filled = Int((fraction ?? 0) * Double(width))
        let percent = fraction.map { String(format: "%3d%%", Int($0 * 100)) } ?? "    "
        let text = "\r[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] "
            + percent + " " + detail
        FileHandle.standardError.write(Data((text.padding(toLength: 79, withPad: " ", startingAt: 0)).utf8))
    }

    /// Blanks the bar's line, if it was drawn, for what is written next.
    func clear() {
        guard drawn else { return }
        drawn = false
        FileHandle.standardError.write(Data(("\r" + String(repeating: " ", count: 79) + "\r").utf8))
    }
}
