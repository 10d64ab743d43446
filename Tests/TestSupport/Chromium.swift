import Foundation

/// Headless Chromium, for the tests that look at the HTML report in a real browser.
public enum Chromium {
    /// The chromium binary on PATH, if there is one.
    public static var path: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in ["chromium", "chromium-browser"] {
            for dir in path.split(separator: ":") {
                let candidate = "\(dir)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }

    /// How a page is laid out in a window: its width and each horizontally scrolling box's.
    public struct Layout: Decodable, Sendable, CustomStringConvertible {
        /// The window's inner width (CSS pixels).
        public var viewport: Double
        /// The page's whole width: more than `viewport` when the window scrolls sideways.
        public var documentWidth: Double
        public var boxes: [Box]

        public struct Box: Decodable, Sendable {
            /// The heading above the box and its table's class: `By week table.`.
            public var label: String
            public var right: Double
            /// The box's visible width and its content's width: more than `clientWidth`
            /// when part of the content is scrolled out of sight.
            public var clientWidth: Double
            public var scrollWidth: Double
        }

        public var description: String {
            "window \(viewport) px, page \(documentWidth) px; "
                + boxes.map { "\($0.label): right \($0.right), \($0.scrollWidth) px in \($0.clientWidth) px" }.joined(separator: "; ")
        }
    }

    /// Lays `page` out in a window `width` pixels wide and measures it and every element
    /// matching `selector`: a copy of the page gets a script that writes the measures into
    /// it, and Chromium's `--dump-dom` gives them back. The page itself is left as it is.
    public static func layout(of page: URL, width: Int, height: Int = 900, selector: String = ".scroll") throws -> Layout {
        guard let browser = path else { throw SupportFailure("chromium is not on PATH") }
        let html = try String(contentsOf: page, encoding: .utf8)
        guard let body = html.range(of: "</body>", options: .backwards) else { throw SupportFailure("\(page.path) has no </body>") }
        let script = """
            <script>
            window.addEventListener('load', () => {
              const boxes = [...document.querySelectorAll('\(selector)')].map(el => {
                let h = el.previousElementSibling;
                while (h && !/^H[1-6]$/.test(h.tagName)) { h = h.previousElementSibling; }
                const table = el.querySelector('table');
                return {label: (h ? h.textContent : '') + ' table.' + (table ? table.className : ''),
                        right: el.getBoundingClientRect().right, clientWidth: el.clientWidth, scrollWidth: el.scrollWidth};
              });
              const pre = document.createElement('pre');
              pre.id = 'funnel-layout';
              pre.textContent = JSON.stringify({viewport: window.innerWidth,
                                                documentWidth: document.documentElement.scrollWidth, boxes});
              document.body.appendChild(pre);
            });
            </script>

            """
        let dir = Scratch.directory("chromium-layout")
        let measured = dir.appendingPathComponent(page.lastPathComponent)
        try html.replacingCharacters(in: body.lowerBound..<body.lowerBound, with: script)
            .write(to: measured, atomically: true, encoding: .utf8)
        let (status, dom) = try run(browser, ["--window-size=\(width),\(height)", "--virtual-time-budget=5000",
                                              "--dump-dom", measured.absoluteString])
        guard let start = dom.range(of: "<pre id=\"funnel-layout\">"),
              let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex) else {
            throw SupportFailure("chromium (exit \(status)) gave no measures of \(page.path):\n\(dom.suffix(2000))")
        }
        let json = dom[start.upperBound..<end.lowerBound].replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
        return try JSONDecoder().decode(Layout.self, from: Data(json.utf8))
    }

    /// Runs headless `browser` with `arguments` and a profile of its own; its standard output
    /// (standard error goes with it) and exit status. Stopped after `timeout` seconds.
    public static func run(_ browser: String, _ arguments: [String], timeout: TimeInterval = 120) throws -> (status: Int32, output: String) {
        let profile = Scratch.directory("chromium-profile")
        defer { try? FileManager.default.removeItem(at: profile) }
        let log = profile.appendingPathComponent("output.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: browser)
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)"] + arguments
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw SupportFailure("chromium took over \(Int(timeout)) s: \(arguments.joined(separator: " "))")
        }
        process.waitUntilExit()
        try? handle.close()
        return (process.terminationStatus, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }
}
