import FunnelModel

/// `funnel flows check` as text and JSON (`DefinitionCheckText`, the one check output).
public enum FlowCheckText {
    public static func text(_ results: [FlowFileCheck], single: Bool) -> String {
        DefinitionCheckText.text(results, single: single)
    }

    public static func json(_ results: [FlowFileCheck], single: Bool) -> JSONValue {
        DefinitionCheckText.json(results, single: single)
    }
}

extension FlowFileCheck: DefinitionFileCheck {
    public var issueRows: [DefinitionCheckText.Row] {
        issues.map(\.row)
    }
}
