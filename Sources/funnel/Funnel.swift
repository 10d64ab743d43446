import ArgumentParser

@main
struct Funnel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "funnel",
        abstract: "Event-sourced funnels for mobile onboarding flows.",
        subcommands: [
            IngestCommand.self,
            ReportCommand.self,
            UsersCommand.self,
            ReplayCommand.self,
            RebuildCommand.self,
            QuarantineCommand.self,
            ExportCommand.self,
            FlowsCommand.self,
            SampleCommand.self,
        ]
    )
}
