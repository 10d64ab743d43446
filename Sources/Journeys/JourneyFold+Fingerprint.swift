import Foundation
import FunnelModel

extension JourneyFold {
    /// What the fold and the facts compute, as a number: raised whenever they change, so
    /// that journeys folded by an earlier `funnel` are refolded (it is part of the fingerprint).
    package static let revision = 5

    /// A fingerprint of a definition and the fold: journeys folded with another one are refolded.
    public static func fingerprint(_ definition: FlowDefinition?) -> String {
        guard let definition else { return "none/\(revision)" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(definition)) ?? Data()
        // A change detector, not a security boundary.
        let hash = FNV1a.hash(data)
        return "\(definition.id)@\(definition.version):" + String(hash, radix: 16) + "/\(revision)"
    }
}
