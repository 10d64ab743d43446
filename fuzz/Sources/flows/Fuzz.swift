import Flows
import Foundation
import FuzzSupport

/// The flow-definition checker on the input as a definition file. Properties: it returns
/// (issues, never a crash), gives the same issues twice, and when the file reads as a
/// definition its issues are those of checking that definition.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFlows(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let file = Data(fuzzBytes(data, size))
    let issues = FlowChecker.check(data: file)
    let (definition, loaded) = FlowChecker.load(data: file)
    fuzzCheck(loaded == issues, "two checks of the same bytes differ: \(issues) and \(loaded)")
    if let definition {
        let again = FlowChecker.check(definition)
        fuzzCheck(again == issues, "the definition read gives \(again), its file \(issues)")
    }
    return 0
}

@main
enum FlowsFuzzer {
    static func main() { runFuzzer(fuzzFlows) }
}
