#!/usr/bin/env python3
"""An independent, deliberately plain implementation of the DESIGN.md definitions, used by the
tests to check `funnel report` figure by figure. Reads gzip/plain NDJSON files in name order.

Usage: reference_report.py --flow glp1 [--cohort-key journeyStatus --cohort-value already_on_glp1]
                           [--idle-seconds 86400]
                           [--segment-key journeyStatus --segment glp1=already_on_glp1 ...] FILE_OR_DIR...
Prints JSON: users.{started,completed,in_progress,abandoned}, time_to_complete_seconds.{p50,p75,p90,p95},
reached{step: n}, dropped{step: n}, as_of.
With --days, also days{YYYY-MM-DD: {started, completed}}: users by the UTC day of their first
onboarding.started.
With --segment-key, also segments[]: each named segment (users whose answer to the key is the
value) and "(none)" (every other started user), in that order, with started, completed, and
against the rest of the selection: difference (completion rate minus the rest's), p_value (the
two-proportion z-test with pooled variance; None under 30 users a side) and p_value_adjusted
(Benjamini-Hochberg across the segments).
With --pair DIM twice (each app_version, platform, day or flag:NAME), also pairs[]: one per
pair of values that has users, as {values: {DIM: value}, started, completed, p50, difference, p_value,
p_value_adjusted} against the rest (adjusted across the pairs). A user's app_version, platform
and flags are the last ones their events' context gave (event time, ties by arrival); a flag
no event gave takes its default from schemas/flows/FLOW.json; "(unknown)" when none.
With --since/--until (YYYY-MM-DD), only users who started in [since, until). With
--compare-since/--compare-until, also comparison: the users of that period, and
completion_difference {points, ci_low, ci_high, p_value}: this period's completion rate minus
that one's in points, Newcombe's hybrid score interval (from the two Wilson intervals) and the
pooled two-proportion z-test (None under 30 users a side). With --rates X1,N1,X2,N2 (repeatable),
also rates[]: the same difference, interval and test for each of those counts (the tests give
each step's eligible users and those who reached it, in both periods, from the reports).
"""
import argparse
import gzip
import json
import math
import os
import sys
from datetime import datetime, timezone


def files(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                out += [os.path.join(root, n) for n in names if n.endswith((".ndjson", ".jsonl", ".ndjson.gz", ".jsonl.gz"))]
        else:
            out.append(p)
    return sorted(out)


def micros(ts):
    t = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    return int(t.timestamp()) * 1_000_000 + t.microsecond


def read_events(paths):
    """Every event of the files in name order, each once (the first arrival of its event_id),
    as (ts_us, arrival, event); lines that are not JSON objects are left out."""
    seen, events, arrival = set(), [], 0
    for f in files(paths):
        opener = gzip.open if f.endswith(".gz") else open
        with opener(f, "rt", encoding="utf-8") as fh:
            for line in fh:
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(e, dict) or e.get("event_id") in seen:
                    continue
                seen.add(e["event_id"])
                arrival += 1
                events.append((micros(e["ts"]), arrival, e))
    return events


def percentile(xs, p):
    if not xs:
        return None
    xs = sorted(xs)
    h = (len(xs) - 1) * p
    lo = int(h)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (h - lo) * (xs[hi] - xs[lo])


def two_proportion_p(x1, n1, x2, n2):
    if n1 < 30 or n2 < 30:
        return None
    pooled = (x1 + x2) / (n1 + n2)
    variance = pooled * (1 - pooled) * (1 / n1 + 1 / n2)
    if variance <= 0:
        return 1.0
    z = (x1 / n1 - x2 / n2) / math.sqrt(variance)
    return math.erfc(abs(z) / math.sqrt(2))


def benjamini_hochberg(ps):
    tested = sorted((p, i) for i, p in enumerate(ps) if p is not None)
    m = len(tested)
    out = [None] * len(ps)
    running = 1.0
    for rank in range(m, 0, -1):
        p, i = tested[rank - 1]
        running = min(running, p * m / rank)
        out[i] = running
    return out


def wilson(x, n, z=1.959963984540054):
    if n == 0:
        return None
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0, centre - half), min(1, centre + half)


def completion_difference(x1, n1, x2, n2):
    """this period's completion (x1 of n1) minus the other's, in points, with its interval."""
    (l1, u1), (l2, u2) = wilson(x1, n1), wilson(x2, n2)
    p1, p2 = x1 / n1, x2 / n2
    below = math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    above = math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return {"points": 100 * (p1 - p2), "ci_low": 100 * (p1 - p2 - below), "ci_high": 100 * (p1 - p2 + above),
            "p_value": two_proportion_p(x1, n1, x2, n2)}


def dimension_value(u, dim):
    if dim == "day":
        return datetime.fromtimestamp(u["started"] // 1_000_000, tz=timezone.utc).strftime("%Y-%m-%d")
    if dim.startswith("flag:"):
        return "on" if u["context"].get(dim) is True else "off"
    v = u["context"].get(dim)
    return "(unknown)" if v is None else str(v)


def pairs(started_users, dims):
    """One row per pair of values that has users, against the rest of the started users."""
    keys = {}
    for u in started_users:
        keys.setdefault(tuple(dimension_value(u, d) for d in dims), []).append(u)
    rows = []
    for key in sorted(keys):
        inside = keys[key]
        rest = [u for u in started_users if tuple(dimension_value(u, d) for d in dims) != key]
        x, n = sum(u["completed"] is not None for u in inside), len(inside)
        rx, rn = sum(u["completed"] is not None for u in rest), len(rest)
        rows.append({"values": dict(zip(dims, key)), "started": n, "completed": x,
                     "p50": percentile([(u["completed"] - u["started"]) / 1e6 for u in inside if u["completed"] is not None], .5),
                     "difference": (x / n - rx / rn) if n and rn else None,
                     "p_value": two_proportion_p(x, n, rx, rn)})
    for row, adjusted in zip(rows, benjamini_hochberg([r["p_value"] for r in rows])):
        row["p_value_adjusted"] = adjusted
    return rows


def day_micros(text):
    return micros(text + "T00:00:00Z") if text and len(text) == 10 else (micros(text) if text else None)


def segments(started_users, key, named):
    """Each named segment and "(none)" against the rest of the started users."""
    groups = [(name, lambda u, v=value: str(u["values"].get(key)) == v) for name, value in named]
    values = {v for _, v in named}
    groups.append(("(none)", lambda u: str(u["values"].get(key)) not in values))
    rows = []
    for name, member in groups:
        inside = [u for u in started_users if member(u)]
        rest = [u for u in started_users if not member(u)]
        x, n = sum(u["completed"] is not None for u in inside), len(inside)
        rx, rn = sum(u["completed"] is not None for u in rest), len(rest)
        rows.append({"value": name, "started": n, "completed": x,
                     "difference": (x / n - rx / rn) if n and rn else None,
                     "p_value": two_proportion_p(x, n, rx, rn)})
    for row, adjusted in zip(rows, benjamini_hochberg([r["p_value"] for r in rows])):
        row["p_value_adjusted"] = adjusted
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--flow", required=True)
    ap.add_argument("--cohort-key")
    ap.add_argument("--cohort-value")
    ap.add_argument("--idle-seconds", type=float, default=86400)
    ap.add_argument("--days", action="store_true")
    ap.add_argument("--segment-key")
    ap.add_argument("--segment", action="append", default=[], help="NAME=VALUE")
    ap.add_argument("--pair", action="append", default=[], help="a dimension; give two")
    ap.add_argument("--since")
    ap.add_argument("--until")
    ap.add_argument("--compare-since")
    ap.add_argument("--compare-until")
    ap.add_argument("--rates", action="append", default=[], help="X1,N1,X2,N2")
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "schemas", "flows", a.flow + ".json"), encoding="utf-8") as fh:
        flag_defaults = {f["id"]: f.get("default", False) for f in json.load(fh).get("flags", [])}
    events = read_events(a.paths)
    as_of = max(t for t, _, _ in events)
    users = {}
    for t, n, e in sorted(events, key=lambda x: (x[0], x[1])):
        if e.get("flow") != a.flow:
            continue
        u = users.setdefault(e["user_id"], {"started": None, "completed": None, "last": None, "step": None,
                                            "values": {}, "viewed": set(),
                                            "context": {"flag:" + k: v for k, v in flag_defaults.items()}})
        name = e["event"] if e["event"].startswith("onboarding.") else "onboarding." + e["event"]
        u["last"] = t if u["last"] is None else max(u["last"], t)
        ctx = e.get("context") or {}
        for k in ("app_version", "platform"):
            if ctx.get(k) is not None:
                u["context"][k] = ctx[k]
        for k, v in (ctx.get("flags") or {}).items():
            u["context"]["flag:" + k] = v
        if name == "onboarding.started" and u["started"] is None:
            u["started"] = t
        elif name == "onboarding.completed" and u["completed"] is None:
            u["completed"] = t
        elif name == "onboarding.step_viewed" and e.get("step"):
            u["step"] = e["step"]
            u["viewed"].add(e["step"])
        elif name == "onboarding.step_completed":
            u["values"].update(e.get("properties") or {})
    counts = {"started": 0, "completed": 0, "in_progress": 0, "abandoned": 0}
    durations, reached, dropped, selected = [], {}, {}, []
    since, until = day_micros(a.since), day_micros(a.until)
    other = [u for u in users.values() if u["started"] is not None
             and a.compare_since and day_micros(a.compare_since) <= u["started"] < day_micros(a.compare_until)
             and u["started"] <= as_of]
    for u in users.values():
        if u["started"] is None:
            continue
        if (since is not None and u["started"] < since) or (until is not None and u["started"] >= until):
            continue
        if a.cohort_key and str(u["values"].get(a.cohort_key)) != a.cohort_value:
            continue
        selected.append(u)
        counts["started"] += 1
        for s in u["viewed"]:
            reached[s] = reached.get(s, 0) + 1
        if u["completed"] is not None:
            counts["completed"] += 1
            durations.append((u["completed"] - u["started"]) / 1e6)
        elif u["last"] >= as_of - a.idle_seconds * 1e6:
            counts["in_progress"] += 1
        else:
            counts["abandoned"] += 1
            dropped[u["step"]] = dropped.get(u["step"], 0) + 1
    out = {"users": counts, "as_of_us": as_of,
           "time_to_complete_seconds": {k: percentile(durations, p) for k, p in
                                        (("p50", .5), ("p75", .75), ("p90", .9), ("p95", .95))},
           "reached": reached, "dropped": dropped}
    if a.days:
        days = {}
        for u in selected:
            day = datetime.fromtimestamp(u["started"] // 1_000_000, tz=timezone.utc).strftime("%Y-%m-%d")
            d = days.setdefault(day, {"started": 0, "completed": 0})
            d["started"] += 1
            d["completed"] += u["completed"] is not None
        out["days"] = days
    if len(a.pair) == 2:
        out["pairs"] = pairs(selected, a.pair)
    if a.compare_since:
        x = sum(u["completed"] is not None for u in other)
        out["comparison"] = {"users": {"started": len(other), "completed": x},
                             "completion_difference": completion_difference(counts["completed"], counts["started"], x, len(other))}
    if a.rates:
        out["rates"] = [completion_difference(*[int(v) for v in r.split(",")]) for r in a.rates]
    if a.segment_key:
        out["segments"] = segments(selected, a.segment_key, [s.split("=", 1) for s in a.segment])
    json.dump(out, sys.stdout, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
