import XCTest
@testable import FunnelModel

final class ConditionTests: XCTestCase {
    func evaluate(_ text: String, _ ctx: ConditionContext) throws -> Bool? {
        try Condition(parsing: text).evaluate(ctx)
    }

    /// Conditions like the GLP-1 flow's, on what a user has shown so far.
    func testComparisonsMembershipAndFlags() throws {
        let ctx = ConditionContext(values: ["weightGoal": .string("lose"), "injectionFrequency": .string("weekly"),
                                            "age": .number("42")],
                                   flags: ["trackingStyleQuestion": .bool(true)], appVersion: "3.10.0", platform: "ios")
        XCTAssertEqual(try evaluate("weightGoal != maintain", ctx), true)
        XCTAssertEqual(try evaluate("weightGoal == maintain", ctx), false)
        XCTAssertEqual(try evaluate("injectionFrequency in [weekly, biweekly]", ctx), true)
        XCTAssertEqual(try evaluate("injectionFrequency not in [weekly, biweekly]", ctx), false)
        XCTAssertEqual(try evaluate("flag:trackingStyleQuestion", ctx), true)
        XCTAssertEqual(try evaluate("flag:newPaywall", ctx), false, "a flag no event mentions is off")
        XCTAssertEqual(try evaluate("age >= 40 and age < 50", ctx), true)
        XCTAssertEqual(try evaluate("age > 100 or platform = ios", ctx), true)
        XCTAssertEqual(try evaluate("not (platform == android)", ctx), true)
        XCTAssertEqual(try evaluate(#"weightGoal == "lose""#, ctx), true)
    }

    /// The values a condition compares keys with, wherever they sit in it; order comparisons
    /// and bare keys name none.
    func testComparedValues() throws {
        let c = try Condition(parsing: "not (weightGoal == maintian) and (gender in [male, femal] or age > 3) and flag:x")
        XCTAssertEqual(c.comparedValues.map { "\($0.key)=\($0.value)" }, ["weightGoal=maintian", "gender=male", "gender=femal"])
        XCTAssertEqual(try Condition(parsing: "weightGoal != lose").comparedValues.map(\.value), ["lose"])
        XCTAssertEqual(try Condition(parsing: "app_version >= 3.2").comparedValues.count, 0)
    }

    func testVersionsCompareByPartNotAsText() throws {
        let ctx = ConditionContext(appVersion: "3.10.0")
        XCTAssertEqual(try evaluate("app_version >= 3.9.1", ctx), true)
        XCTAssertEqual(try evaluate("app_version < 3.9.1", ctx), false)
        XCTAssertEqual(Condition.compareVersions("3.10.0", "3.9.1"), 1)
        XCTAssertEqual(Condition.compareVersions("3.2", "3.2.0"), 0)
        XCTAssertEqual(Condition.compareVersions("2.9", "10.0"), -1)
    }

    /// Three-valued: a comparison on a value not shown yet is unknown, and only a known
    /// answer decides `and`/`or`.
    func testUnknownValuesStayUnknownUntilTheyDecide() throws {
        let empty = ConditionContext()
        XCTAssertNil(try evaluate("weightGoal != maintain", empty))
        XCTAssertNil(try evaluate("not weightGoal", empty))
        XCTAssertEqual(try evaluate("weightGoal == lose and flag:x", empty), false, "the flag is off: false whatever the goal")
        XCTAssertNil(try evaluate("weightGoal == lose or flag:x", empty))
        XCTAssertEqual(try evaluate("weightGoal == lose or not flag:x", empty), true)
        let defaults = ConditionContext(flagDefaults: ["x": true])
        XCTAssertEqual(try evaluate("flag:x", defaults), true, "a definition's default holds until an event says otherwise")
    }

    func testTextRoundTripsAndErrorsSayWhere() throws {
        for text in ["weightGoal != maintain", "injectionFrequency in [weekly, biweekly]",
                     "app_version >= 3.2.0 and not flag:newPaywall", "(a or b) and c", #"name == "two words""#] {
            let c = try Condition(parsing: text)
            XCTAssertEqual(try Condition(parsing: c.description), c, text)
        }
        XCTAssertEqual(try Condition(parsing: "a and (b or c)").keys, ["a", "b", "c"])
        XCTAssertThrowsError(try Condition(parsing: "weightGoal ==")) { error in
            let e = error as? ConditionParseError
            XCTAssertEqual(e?.text, "weightGoal ==")
            XCTAssertEqual(e?.reason, "expected a value")
        }
        XCTAssertThrowsError(try Condition(parsing: "a in [b, c"))
        XCTAssertThrowsError(try Condition(parsing: "(a or b"))
    }

    func testEventNamesWithAndWithoutThePrefix() {
        XCTAssertEqual(EventName.normalized("sign_in_succeeded"), "onboarding.sign_in_succeeded")
        XCTAssertEqual(EventName.normalized("onboarding.started"), "onboarding.started")
        XCTAssertEqual(EventName.normalized("app.opened"), "app.opened", "an unknown name is kept as written")
        XCTAssertEqual(EventName(normalizing: "permission_result"), .permissionResult)
        XCTAssertNil(EventName(normalizing: "onboarding.unknown"))
    }
}
