import FunnelModel
import Journeys

extension PathsTally {
    /// What `PathsTally` counts of users given by their facts, with steps as numbers (a lane
    /// step its slot, another step a number after the slots, by name): no string hashed per
    /// user. `flush` turns it into the tally's named counts.
    struct Codes: Sendable {
        /// The steps of the slots, then the other steps met, by code.
        private(set) var names: [String]
        private var otherCodes: [String: Int] = [:]
        let slotCount: Int
        private var stepUsers: [Int] = []
        private var movedOn: [Int] = []
        /// Per step last viewed: users completed, in progress, abandoned.
        private var exits: [(completed: Int, inProgress: Int, abandoned: Int)] = []
        /// Per step left before a silence: users, returns, and returns per `ReturnKind` (in
        /// `allCases` order).
        private var returns: [(users: Int, returns: Int, kinds: [Int])] = []
        /// Moves between lane steps by `flatKey`: users, moves, and the last user counted.
        private var flatUsers: [Int]
        private var flatMoves: [Int]
        private var flatSeen: [Int]
        /// Other moves by `moveKey`: users and moves.
        private var transitions: [Int: (users: Int, moves: Int)] = [:]
        /// The user being counted, as a stamp in the arrays below (per-user distinct counts).
        private var user = 0
        private var stepSeen: [Int] = []
        private var movedOnSeen: [Int] = []
        private var leftSeen: [Int] = []
        private var place: [Int] = []
        private var placed: [Int] = []
        private var runs: [Int] = []
        private var userMoves: [Int] = []

        init(slots: [String]) {
            names = slots
            slotCount = slots.count
            for (i, step) in slots.enumerated() { otherCodes[step] = i }
            let flat = slots.count * slots.count * PathsReport.MoveKind.allCases.count
            flatUsers = [Int](repeating: 0, count: flat)
            flatMoves = [Int](repeating: 0, count: flat)
            flatSeen = [Int](repeating: -1, count: flat)
            grow(to: slots.count)
            place = [Int](repeating: -1, count: slots.count)
        }

        private mutating func grow(to count: Int) {
            let more = count - stepUsers.count
            guard more > 0 else { return }
            stepUsers += [Int](repeating: 0, count: more)
            movedOn += [Int](repeating: 0, count: more)
            exits += [(completed: Int, inProgress: Int, abandoned: Int)](repeating: (0, 0, 0), count: more)
            returns += [(users: Int, returns: Int, kinds: [Int])](
                repeating: (0, 0, [Int](repeating: 0, count: PathsReport.ReturnKind.allCases.count)), count: more)
            stepSeen += [Int](repeating: -1, count: more)
            movedOnSeen += [Int](repeating: -1, count: more)
            leftSeen += [Int](repeating: -1, count: more)
        }

        /// The code of a step by name (a new one for a step not met before).
        mutating func code(_ step: String) -> Int {
            if let c = otherCodes[step] { return c }
            let c = names.count
            names.append(step)
            otherCodes[step] = c
            grow(to: names.count)
            return c
        }

        private func moveKey(_ from: Int, _ to: Int, _ kind: Int) -> Int { (from << 24) | (to << 4) | kind }

        private func flatKey(_ from: Int, _ to: Int, _ kind: Int) -> Int {
            (from * slotCount + to) * PathsReport.MoveKind.allCases.count + kind
        }

        /// The number of a move's kind (`MoveKind.allCases` order).
        private static func kindNumber(_ kind: PathsReport.MoveKind) -> Int {
            switch kind {
            case .forward: return 0
            case .skip: return 1
            case .back: return 2
            case .offPath: return 3
            }
        }

        /// Counts one selected user's runs, path and silences, as `PathsTally.count` counts
        /// their `UserPath`; returns the code of the step they last viewed (nil: no view) and
        /// the seconds between each of `between`'s codes.
        mutating func add(_ f: JourneyFacts, state: Journey.State, idleMicros: Int64) -> Int? {
            user += 1
            runs.removeAll(keepingCapacity: true)
            for slot in f.runSlots { runs.append(slot >= 0 ? slot : code(f.otherRunSteps[-1 - slot])) }
            guard let last = runs.last else { return nil }
            // The place of each step on the path, as `UserPath` numbers it.
            var count = 0
            for slot in f.pathSlots where slot >= 0 && slot < slotCount {
                if place[slot] < 0 {
                    placed.append(slot)
                    place[slot] = count
                    count += 1
                } else {
                    place[slot] = count
                }
            }
            defer {
                for slot in placed { place[slot] = -1 }
                placed.removeAll(keepingCapacity: true)
            }
            func placeOf(_ c: Int) -> Int { c < slotCount ? place[c] : -1 }
            for c in runs where stepSeen[c] != user {
                stepSeen[c] = user
                stepUsers[c] += 1
            }
            userMoves.removeAll(keepingCapacity: true)
            for k in runs.indices.dropFirst() {
                let from = runs[k - 1], to = runs[k]
                let a = placeOf(from), b = placeOf(to)
                let kind = Self.kindNumber(a < 0 || b < 0 ? .offPath : b == a + 1 ? .forward : b > a ? .skip : .back)
                if from < slotCount && to < slotCount {
                    let key = flatKey(from, to, kind)
                    flatMoves[key] += 1
                    if flatSeen[key] != user {
                        flatSeen[key] = user
                        flatUsers[key] += 1
                    }
                } else {
                    let key = moveKey(from, to, kind)
                    var t = transitions[key] ?? (0, 0)
                    t.moves += 1
                    if !userMoves.contains(key) {
                        userMoves.append(key)
                        t.users += 1
                    }
                    transitions[key] = t
                }
                if movedOnSeen[from] != user {
                    movedOnSeen[from] = user
                    movedOn[from] += 1
                }
            }
            switch state {
            case .completed: exits[last].completed += 1
            case .inProgress: exits[last].inProgress += 1
            case .abandoned: exits[last].abandoned += 1
            }
            let first = runs[0]
            for (i, run) in f.silenceRuns.enumerated() where f.silenceMicros[i] > idleMicros && run < runs.count {
                guard !f.silenceStartsRun[i] || run > 0 else { continue }
                let to = runs[run]
                let left = f.silenceStartsRun[i] ? runs[run - 1] : to
                let kind: PathsReport.ReturnKind
                if to == left {
                    kind = .same
                } else if to == first {
                    kind = .first
                } else {
                    let a = placeOf(left), b = placeOf(to)
                    kind = a < 0 || b < 0 ? .offPath : b < a ? .earlier : .later
                }
                returns[left].returns += 1
                returns[left].kinds[PathsReport.ReturnKind.allCases.firstIndex(of: kind) ?? 0] += 1
                if leftSeen[left] != user {
                    leftSeen[left] = user
                    returns[left].users += 1
                }
            }
            return last
        }

        /// Microseconds from the user's first run of `from` to their first run of `to` after
        /// it, over the runs `add` last coded.
        func micros(from: Int, to: Int, micros: [Int64]) -> Int64? {
            AdjacentPairs.micros(runs: runs.count, step: { runs[$0] }, micros: { micros[$0] }, from: from, to: to)
        }

        /// The counts by name, added into the tally's.
        func flush(into tally: inout PathsTally) {
            let kinds = PathsReport.MoveKind.allCases
            let returnKinds = PathsReport.ReturnKind.allCases
            for (c, name) in names.enumerated() {
                if stepUsers[c] > 0 { tally.addCounted(step: name, users: stepUsers[c], movedOn: movedOn[c]) }
                let e = exits[c]
                if e.completed + e.inProgress + e.abandoned > 0 {
                    tally.addCounted(exit: name, completed: e.completed, inProgress: e.inProgress, abandoned: e.abandoned)
                }
                let r = returns[c]
                if r.returns > 0 {
                    var byKind: [PathsReport.ReturnKind: Int] = [:]
                    for (k, n) in r.kinds.enumerated() where n > 0 { byKind[returnKinds[k]] = n }
                    tally.addCounted(returnsFrom: name, users: r.users, returns: r.returns, kinds: byKind)
                }
            }
            for (key, t) in transitions {
                let move = UserPath.Move(from: names[key >> 24], to: names[(key >> 4) & 0xFFFFF], kind: kinds[key & 0xF])
                tally.addCounted(move, users: t.users, moves: t.moves)
            }
            for key in flatMoves.indices where flatMoves[key] > 0 {
                let pair = key / kinds.count
                let move = UserPath.Move(from: names[pair / slotCount], to: names[pair % slotCount], kind: kinds[key % kinds.count])
                tally.addCounted(move, users: flatUsers[key], moves: flatMoves[key])
            }
        }
    }
}
