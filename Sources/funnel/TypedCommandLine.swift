/// The command as typed, for an HTML page's footer; without --store and --output, which say
/// where things were kept, not what the page shows.
func typedCommandLine() -> String {
    var args: [String] = []
    var skip = false
    for arg in CommandLine.arguments.dropFirst() {
        if skip { skip = false; continue }
        if arg == "--store" || arg == "--output" { skip = true; continue }
        if arg.hasPrefix("--store=") || arg.hasPrefix("--output=") { continue }
        args.append(arg.contains(" ") ? "'\(arg)'" : arg)
    }
    return (["funnel"] + args).joined(separator: " ")
}
