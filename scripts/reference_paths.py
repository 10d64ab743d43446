#!/usr/bin/env python3
"""An independent, deliberately plain reading of `funnel paths` (docs/paths.md) from the logs and
the flow definition, used by the tests to check every figure. Reads gzip/plain NDJSON files in
name order, as reference_report.py does, and shares its reading and percentiles and
reference_explain.py's expected path.

Usage: reference_paths.py --definition schemas/flows/glp1.json [--idle-seconds 86400]
                          [--from STEP --to STEP] FILE_OR_DIR...
Prints JSON: users.{started,viewed,moved}, transitions[] ({from, to, kind, users, moves}),
exits[] ({step, completed, in_progress, abandoned, last_events: {text: users}}), returns[]
({step, users, returns, came_back: {kind: n}}), adjacent_pairs[] ({from, to, users, p50, p75,
p90, p95, mean}: every two steps one after the other on a lane, viewed in that order by someone),
and with --from/--to time_between ({users, p50, p75, p90, p95, mean}); lists in no particular
order.
"""
import argparse
import json
import sys

from reference_explain import KNOWN, expected_path, text
from reference_report import percentile, read_events

RETURN_KINDS = ["same", "first", "earlier", "later", "off_path"]


def name_of(e):
    return e["event"] if e["event"].startswith("onboarding.") else "onboarding." + e["event"]


def last_event_text(e, free):
    """`permission_result granted=false permission=notifications`: the name without the v1
    prefix, the properties but free-form answers, sorted."""
    name = name_of(e)
    short = name[len("onboarding."):]
    shown = short if short in KNOWN else e["event"]
    props = sorted((k, text(v)) for k, v in (e.get("properties") or {}).items() if k not in free)
    return " ".join([shown] + [f"{k}={v}" for k, v in props])


def between(runs, first, then):
    """Seconds from the first view of `first` to the first view of `then` after it, or None."""
    names = [s for s, _ in runs]
    if first not in names:
        return None
    i = names.index(first)
    later = [t for s, t in runs[i + 1:] if s == then]
    return (later[0] - runs[i][1]) / 1e6 if later else None


def summary(xs):
    return {"users": len(xs), "mean": sum(xs) / len(xs) if xs else None,
            **{k: percentile(xs, p) for k, p in (("p50", .5), ("p75", .75), ("p90", .9), ("p95", .95))}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--definition", required=True)
    ap.add_argument("--idle-seconds", type=float, default=86400)
    ap.add_argument("--from", dest="from_step")
    ap.add_argument("--to", dest="to_step")
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    flow = json.load(open(a.definition))
    free = {c["key"] for s in flow["steps"] for c in s.get("collects", []) if c.get("values") is None}
    events = read_events(a.paths)
    as_of = max(t for t, _, _ in events)
    idle = int(a.idle_seconds * 1_000_000)
    users = {}
    for t, _, e in sorted(events, key=lambda x: (x[0], x[1])):
        if e.get("flow") != flow["id"]:
            continue
        u = users.setdefault(e["user_id"], {"started": None, "start_step": None, "completed": None, "last": None,
                                            "values": {}, "flags": {}, "viewed": set(), "view_order": [],
                                            "events": []})
        context = e.get("context") or {}
        u["flags"].update(context.get("flags") or {})
        u["events"].append((t, e))
        u["last"] = t if u["last"] is None else max(u["last"], t)
        name = name_of(e)
        if name == "onboarding.started" and u["started"] is None:
            u["started"], u["start_step"] = t, e.get("step")
        elif name == "onboarding.completed" and u["completed"] is None:
            u["completed"] = t
        elif name == "onboarding.step_viewed" and e.get("step"):
            if e["step"] not in u["viewed"]:
                u["viewed"].add(e["step"])
                u["view_order"].append(e["step"])
        elif name == "onboarding.step_completed":
            u["values"].update(e.get("properties") or {})

    counts = {"started": 0, "viewed": 0, "moved": 0}
    transitions, exits, returns, durations = {}, {}, {}, []
    lanes = [[s if isinstance(s, str) else s["id"] for s in lane["steps"]] for lane in flow["lanes"]]
    pairs = {(lane[i], lane[i + 1]): [] for lane in lanes for i in range(len(lane) - 1)}
    for u in users.values():
        if u["started"] is None:
            continue
        counts["started"] += 1
        on_path = [s for s, status in expected_path(flow, u) if status != "skipped"]
        # Step views in order, a run of views of one step once; returns after idle gaps.
        runs, came_back, previous, left = [], [], None, None
        for t, e in u["events"]:
            if previous is not None and t - previous > idle and left is None:
                left = runs[-1][0] if runs else None
            previous = t
            if name_of(e) != "onboarding.step_viewed" or not e.get("step"):
                continue
            step = e["step"]
            if left is not None:
                if step == left:
                    kind = "same"
                elif step == runs[0][0]:
                    kind = "first"
                elif left in on_path and step in on_path:
                    kind = "earlier" if on_path.index(step) < on_path.index(left) else "later"
                else:
                    kind = "off_path"
                came_back.append((left, kind))
                left = None
            if not runs or runs[-1][0] != step:
                runs.append((step, t))
        if not runs:
            continue
        counts["viewed"] += 1
        moves = [(runs[i][0], runs[i + 1][0]) for i in range(len(runs) - 1)]
        counts["moved"] += bool(moves)
        for key in set(moves):
            a_, b_ = key
            if a_ in on_path and b_ in on_path:
                i, j = on_path.index(a_), on_path.index(b_)
                kind = "forward" if j == i + 1 else "skip" if j > i else "back"
            else:
                kind = "off_path"
            row = transitions.setdefault((a_, b_, kind), {"users": 0, "moves": 0})
            row["users"] += 1
            row["moves"] += moves.count(key)
        last_step = runs[-1][0]
        if u["completed"] is not None and u["completed"] <= as_of:
            state = "completed"
        elif u["last"] >= as_of - idle:
            state = "in_progress"
        else:
            state = "abandoned"
        x = exits.setdefault(last_step, {"completed": 0, "in_progress": 0, "abandoned": 0, "last_events": {}})
        x[state] += 1
        if state == "abandoned":
            label = last_event_text(u["events"][-1][1], free)
            x["last_events"][label] = x["last_events"].get(label, 0) + 1
        for step in {s for s, _ in came_back}:
            r = returns.setdefault(step, {"users": 0, "returns": 0, "came_back": {k: 0 for k in RETURN_KINDS}})
            r["users"] += 1
        for step, kind in came_back:
            returns[step]["returns"] += 1
            returns[step]["came_back"][kind] += 1
        if a.from_step:
            seconds = between(runs, a.from_step, a.to_step)
            if seconds is not None:
                durations.append(seconds)
        for (first, then), seen in pairs.items():
            seconds = between(runs, first, then)
            if seconds is not None:
                seen.append(seconds)
    out = {"users": counts,
           "transitions": [{"from": f, "to": t, "kind": k, **v} for (f, t, k), v in transitions.items()],
           "exits": [{"step": s, **v} for s, v in exits.items()],
           "returns": [{"step": s, **v} for s, v in returns.items()]}
    if a.from_step:
        out["time_between"] = summary(durations)
    out["adjacent_pairs"] = [{"from": f, "to": t, **summary(xs)} for (f, t), xs in pairs.items() if xs]
    json.dump(out, sys.stdout, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
