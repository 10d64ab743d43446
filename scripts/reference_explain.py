#!/usr/bin/env python3
"""An independent, deliberately plain reading of `funnel explain` (docs/explain.md) from the logs
and the flow definition, used by the tests to check every figure. Reads gzip/plain NDJSON files
in name order, as reference_report.py does, and shares its statistics.

Usage: reference_explain.py --definition schemas/flows/glp1.json --step notificationsPermission
                            [--lane glp1] [--idle-seconds 86400] [--as-of 2026-10-05T00:00:00Z] FILE_OR_DIR...
With --as-of, events after it are left out (the journeys as they stood then); else as-of is the
latest event time.
Prints JSON: users.{eligible,reached,dropped,dropped_not_eligible,in_progress,went_on},
attributes[] ({kind, key, value, users, dropped, rest_users, rest_dropped, difference, ci_low,
ci_high, p_value, p_value_adjusted}, in no particular order) and last_events[] ({event,
properties, users, share}).
"""
import argparse
import json
import math
import sys

from reference_report import benjamini_hochberg, micros, read_events, two_proportion_p

Z95 = 1.959963984540054
# The v1 event names (schemas/event.schema.json): their prefix is left out of last events.
KNOWN = {"started", "step_viewed", "step_completed", "step_back", "sign_in_started", "sign_in_succeeded", "signed_up",
         "sign_in_failed", "permission_prompted", "permission_result", "completed"}


def text(v):
    """A JSON value as the report writes it in text."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, str):
        return v
    return json.dumps(v)


def truthy(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, str):
        return v.lower() in ("true", "on", "yes", "1", "enabled")
    if isinstance(v, (int, float)):
        return v != 0
    return False


def wilson(x, n):
    p = x / n
    d = 1 + Z95 * Z95 / n
    c = (p + Z95 * Z95 / (2 * n)) / d
    h = Z95 * math.sqrt(p * (1 - p) / n + Z95 * Z95 / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def newcombe(x1, n1, x2, n2):
    """Newcombe's hybrid score interval (method 10) for x1/n1 - x2/n2."""
    if n1 == 0 or n2 == 0:
        return None, None
    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson(x1, n1)
    l2, u2 = wilson(x2, n2)
    return (p1 - p2 - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
            p1 - p2 + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def condition(expr, ctx):
    """The flows' conditions: `key == v`, `key != v`, `key in [a, b]`; None when key is unknown."""
    if " in [" in expr:
        key, rest = expr.split(" in [", 1)
        options = [o.strip() for o in rest.rstrip("]").split(",")]
        value = ctx.get(key.strip())
        return None if value is None else text(value) in options
    for op in ("==", "!="):
        if op in expr:
            key, v = (s.strip() for s in expr.split(op, 1))
            value = ctx.get(key)
            if value is None:
                return None
            return (text(value) == v) == (op == "==")
    raise ValueError("condition not read here: " + expr)


def expected_path(flow, user):
    """[(step, status)] for the user's lane, answers and flags; status shown/skipped/undetermined."""
    flags = {f["id"]: f.get("default", False) for f in flow.get("flags", [])}
    flags.update({k: truthy(v) for k, v in user["flags"].items()})
    steps = {s["id"]: s for s in flow["steps"]}
    lanes = flow["lanes"]
    lane, unknown = None, False
    for l in lanes:
        if "when" not in l:
            lane = l
            break
        verdict = condition(l["when"], user["values"])
        if verdict is True:
            lane = l
            break
        unknown = unknown or verdict is None
    def status(step_id, lane_step):
        step = steps.get(step_id, {})
        for flag in (step.get("flag"), lane_step.get("flag")):
            if flag and not flags.get(flag, False):
                return "skipped"
        verdicts = [condition(w, user["values"]) for w in (step.get("when"), lane_step.get("when")) if w]
        if False in verdicts:
            return "skipped"
        return "undetermined" if None in verdicts else "shown"
    def ids(l):
        return [s if isinstance(s, str) else s["id"] for s in l["steps"]]
    if lane is not None:
        user["lane"] = lane["id"]
        return [(sid, status(sid, s if isinstance(s, dict) else {})) for sid, s in zip(ids(lane), lane["steps"])]
    user["lane"] = None
    shared = shared_prefix(flow)
    path = [(sid, status(sid, {})) for sid in shared]
    seen = set(shared)
    for l in lanes:
        for sid in ids(l):
            if sid not in seen:
                seen.add(sid)
                path.append((sid, "undetermined"))
    return path


def shared_prefix(flow):
    lists = [[s if isinstance(s, str) else s["id"] for s in l["steps"]] for l in flow["lanes"]]
    out = []
    for i, sid in enumerate(lists[0]):
        if all(i < len(l) and l[i] == sid for l in lists):
            out.append(sid)
        else:
            break
    return out


def eligible(path, user, step):
    """On the path, after the step the user started on, with the step before it on the path reached."""
    if user["started"] is None:
        return False
    names = [s for s, _ in path]
    first_view = user["view_order"][0] if user["view_order"] else None
    start = user["start_step"] if user["start_step"] in names else first_view if first_view in names else None
    first = names.index(start) if start is not None else 0
    previous = None
    for i, (sid, st) in enumerate(path):
        if i < first:
            if sid == step:
                return False
            continue
        if sid == step:
            return st == "shown" and (previous is None or previous in user["viewed"])
        if st == "undetermined":
            return False
        if st == "shown":
            previous = sid
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--definition", required=True)
    ap.add_argument("--step", required=True)
    ap.add_argument("--lane")
    ap.add_argument("--idle-seconds", type=float, default=86400)
    ap.add_argument("--as-of")
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    flow = json.load(open(a.definition))
    events = read_events(a.paths)
    if a.as_of:
        as_of = micros(a.as_of)
        events = [x for x in events if x[0] <= as_of]
    else:
        as_of = max(t for t, _, _ in events)
    step = a.step
    users = {}
    for t, _, e in sorted(events, key=lambda x: (x[0], x[1])):
        if e.get("flow") != flow["id"]:
            continue
        u = users.setdefault(e["user_id"], {"started": None, "start_step": None, "completed": None, "last": None,
                                            "step": None, "values": {}, "flags": {}, "app_version": None,
                                            "platform": None, "viewed": set(), "view_order": [], "permission": None,
                                            "failures": [], "on_step": []})
        name = e["event"] if e["event"].startswith("onboarding.") else "onboarding." + e["event"]
        props = e.get("properties") or {}
        context = e.get("context") or {}
        u["last"] = t if u["last"] is None else max(u["last"], t)
        u["app_version"] = context.get("app_version", u["app_version"])
        u["platform"] = context.get("platform", u["platform"])
        u["flags"].update(context.get("flags") or {})
        if e.get("step") == step:
            u["on_step"].append(e)
        if name == "onboarding.started" and u["started"] is None:
            u["started"], u["start_step"] = t, e.get("step")
        elif name == "onboarding.completed" and u["completed"] is None:
            u["completed"] = t
        elif name == "onboarding.step_viewed" and e.get("step"):
            u["step"] = e["step"]
            if e["step"] not in u["viewed"]:
                u["viewed"].add(e["step"])
                u["view_order"].append(e["step"])
        elif name == "onboarding.step_completed":
            u["values"].update(props)
        elif name in ("onboarding.permission_prompted", "onboarding.permission_result") and e.get("step") == step:
            u["permission"] = ("permission_prompted" if name.endswith("prompted")
                               else "permission_result granted=" + (text(props["granted"]) if "granted" in props else "(none)"))
        elif name == "onboarding.sign_in_failed" and e.get("step") == step:
            label = "sign_in_failed reason=" + (text(props["reason"]) if "reason" in props else "(none)")
            if label not in u["failures"]:
                u["failures"].append(label)

    lane_ids = lambda l: [s if isinstance(s, str) else s["id"] for s in l["steps"]]
    having = [l["id"] for l in flow["lanes"] if step in lane_ids(l)]
    scope = [a.lane] if a.lane else having
    shared = len(flow["lanes"]) == 1 or step in shared_prefix(flow)
    listed = {c["key"] for s in flow["steps"] for c in s.get("collects", []) if c.get("values") is not None}
    free = {c["key"] for s in flow["steps"] for c in s.get("collects", []) if c.get("values") is None}
    steps = {s["id"]: s for s in flow["steps"]}
    keys = []
    for l in flow["lanes"]:
        if l["id"] in scope:
            for sid in lane_ids(l)[:lane_ids(l).index(step)]:
                keys += [c["key"] for c in steps[sid].get("collects", []) if c["key"] in listed and c["key"] not in keys]
    flag_names = [f["id"] for f in flow.get("flags", [])]
    defaults = {f["id"]: f.get("default", False) for f in flow.get("flags", [])}

    counts = dict(eligible=0, reached=0, dropped=0, dropped_not_eligible=0, in_progress=0, went_on=0)
    compared, dropped_ids = [], []
    for uid, u in users.items():
        if u["started"] is None:
            continue
        path = expected_path(flow, u)
        if a.lane:
            if u["lane"] != a.lane:
                continue
        elif not shared and u["lane"] is not None and u["lane"] not in having:
            continue
        if u["completed"] is not None and u["completed"] <= as_of:
            state = "completed"
        elif u["last"] >= as_of - int(a.idle_seconds * 1_000_000):
            state = "in_progress"
        else:
            state = "abandoned"
        dropped_here = state == "abandoned" and u["step"] == step
        ok = eligible(path, u, step)
        counts["eligible"] += ok
        if dropped_here:
            counts["dropped"] += 1
            dropped_ids.append(uid)
        if not (ok and step in u["viewed"]):
            counts["dropped_not_eligible"] += dropped_here
            continue
        counts["reached"] += 1
        if not dropped_here and state == "in_progress" and u["step"] == step:
            counts["in_progress"] += 1
            continue
        counts["went_on"] += not dropped_here
        compared.append((u, dropped_here))

    def attributes(u):
        out = [("answer", k, text(u["values"][k]) if k in u["values"] else "(not answered)") for k in keys]
        for f in flag_names:
            on = truthy(u["flags"][f]) if f in u["flags"] else defaults[f]
            out.append(("flag", f, "on" if on else "off"))
        out.append(("app_version", None, u["app_version"] or "(unknown)"))
        out.append(("platform", None, u["platform"] or "(unknown)"))
        if not shared and len(scope) > 1:
            out.append(("lane", None, u["lane"]))
        outcomes = ([u["permission"]] if u["permission"] else []) + u["failures"]
        out += [("prompt", None, o) for o in outcomes] or [("prompt", None, None)]
        return out

    tally = {}
    for u, d in compared:
        for attr in attributes(u):
            n = tally.setdefault(attr, [0, 0])
            n[0] += 1
            n[1] += d
    outcomes = [v for (kind, _, v) in tally if kind == "prompt" and v is not None]
    if not outcomes:
        tally = {k: v for k, v in tally.items() if k[0] != "prompt"}
    none = ("(not prompted)" if outcomes and all(o.startswith("permission_") for o in outcomes)
            else "(no sign_in_failed)" if outcomes and all(o.startswith("sign_in_failed ") for o in outcomes) else "(none)")
    total, total_dropped = len(compared), sum(d for _, d in compared)
    rows = []
    for (kind, key, value), (n, x) in tally.items():
        rn, rx = total - n, total_dropped - x
        low, high = newcombe(x, n, rx, rn)
        rows.append({"kind": kind, "key": key, "value": none if kind == "prompt" and value is None else value,
                     "users": n, "dropped": x, "rest_users": rn, "rest_dropped": rx,
                     "difference": x / n - rx / rn if n and rn else None, "ci_low": low, "ci_high": high,
                     "p_value": two_proportion_p(x, n, rx, rn)})
    for row, adjusted in zip(rows, benjamini_hochberg([r["p_value"] for r in rows])):
        row["p_value_adjusted"] = adjusted

    last = {}
    for uid in dropped_ids:
        mine = [e for e in users[uid]["on_step"] if micros(e["ts"]) <= as_of]
        if not mine:
            continue
        e = mine[-1]
        name = e["event"][len("onboarding."):] if e["event"][len("onboarding."):] in KNOWN else e["event"]
        props = {k: text(v) for k, v in (e.get("properties") or {}).items() if k not in free}
        k = json.dumps([name, props], sort_keys=True)
        last[k] = last.get(k, 0) + 1
    last_events = [{"event": json.loads(k)[0], "properties": json.loads(k)[1], "users": n, "share": n / len(dropped_ids)}
                   for k, n in last.items()]
    json.dump({"users": counts, "attributes": rows, "last_events": last_events}, sys.stdout, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
