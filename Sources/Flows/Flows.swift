import Foundation
import FunnelModel

/// The built-in flows: one per seed document, from schemas/flows/*.json, compiled into the
/// binary (BuiltInFlows.generated.swift) so that `funnel` works from any directory.
public enum Flows {
    /// The built-in definitions, in file-name order. Each is checked by the test suite.
    public static let builtIn: [FlowDefinition] = BuiltInFlowSources.files.compactMap { file in
        try? JSONDecoder().decode(FlowDefinition.self, from: Data(file.json.utf8))
    }

    /// The built-in JSON texts by file name (`glp1.json`), as they are in schemas/flows/.
    public static var builtInSources: [(name: String, json: String)] { BuiltInFlowSources.files }
}
