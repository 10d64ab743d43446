/// One journey's key: a user in a flow.
package struct JourneyKey: Hashable, Sendable {
    package var flow: String
    package var user: String

    package init(flow: String, user: String) {
        self.flow = flow
        self.user = user
    }
}
