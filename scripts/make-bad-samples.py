#!/usr/bin/env python3
"""Writes sample-data/bad/ (one small file per kind of broken input) and
sample-data/edge/duplicates.ndjson. Deterministic: re-running gives the same bytes."""
import gzip, io, json, os, zlib

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sample-data")
bad = os.path.join(root, "bad")
edge = os.path.join(root, "edge")
os.makedirs(bad, exist_ok=True)
os.makedirs(edge, exist_ok=True)

PREFIX = ["evt"]

def ev(i, user="u-1", name="onboarding.step_viewed", step="journeyStatus", ts="2026-10-03T14:22:01.123+02:00", **extra):
    d = {"event_id": f"{PREFIX[0]}-{i:04d}", "event": name, "user_id": user, "ts": ts, "flow": "glp1", "step": step,
         "context": {"app_version": "3.3.0", "platform": "ios", "flags": {"trackingStyleQuestion": True}}}
    d.update(extra)
    return json.dumps(d, separators=(",", ":"))

def write(name, lines, crlf=False):
    assert PREFIX[0] == name.split(".")[0], name
    with open(os.path.join(bad, name), "wb") as f:
        for l in lines:
            f.write((l.encode() if isinstance(l, str) else l) + (b"\r\n" if crlf else b"\n"))

def gz_member(data):
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as g:
        g.write(data)
    return buf.getvalue()

PREFIX[0] = "not-json"
write("not-json.ndjson", [
    ev(1),
    '{"event_id":"evt-0002","event":"onboarding.step_viewed",}',
    "{'event_id':'evt-0003'}",
    '{"event_id":"evt-0004","event":"onboarding.step_viewed","user_id":"u-1"',
    '{"event_id":"evt-0005","n":NaN}',
    '{"event_id":"evt-0006","n":01}',
    "",
    '{"event_id":"evt-0007"} trailing',
    ev(8),
])
PREFIX[0] = "not-object"
write("not-object.ndjson", [ev(1), '["evt-0002","onboarding.step_viewed"]', '"just a string"', "42", "null", ev(6)])
def without(key, i):
    d = json.loads(ev(i)); del d[key]; return json.dumps(d, separators=(",", ":"))
PREFIX[0] = "missing-field"
write("missing-field.ndjson", [ev(1)] + [without(k, i + 2) for i, k in enumerate(["event_id", "event", "user_id", "ts", "flow"])])
def with_(i, **kv):
    d = json.loads(ev(i)); d.update(kv); return json.dumps(d, separators=(",", ":"))
PREFIX[0] = "wrong-type"
write("wrong-type.ndjson", [
    ev(1),
    with_(2, event_id=2),
    with_(3, user_id=None),
    with_(4, event=["onboarding.step_viewed"]),
    with_(5, flow={"id": "glp1"}),
    with_(6, step=3),
    with_(7, properties=["a"]),
    with_(8, context="ios"),
    with_(9, context={"app_version": 3.3, "platform": "ios", "flags": {}}),
    with_(10, context={"app_version": "3.3.0", "platform": "ios", "flags": ["trackingStyleQuestion"]}),
    with_(11, ts=1791030121),
])
PREFIX[0] = "bad-timestamp"
write("bad-timestamp.ndjson", [
    ev(1),
    with_(2, ts="2026-10-03T14:22:01"),
    with_(3, ts="2026-10-03"),
    with_(4, ts="2026-02-30T10:00:00Z"),
    with_(5, ts="2026-10-03T25:00:00Z"),
    with_(6, ts="yesterday"),
    with_(7, ts="2025-02-29T10:00:00Z"),
    with_(8, ts="2026-10-03T14:22:01.Z"),
    with_(9, ts="2026-10-03T14:22:01+0200"),
    with_(10, ts="2028-02-29T23:59:60.5-03:30"),
])
PREFIX[0] = "empty-id"
write("empty-id.ndjson", [ev(1), with_(2, event_id=""), with_(3, user_id=""), ev(4)])
PREFIX[0] = "invalid-utf8"
good = ev(1).encode()
write("invalid-utf8.ndjson", [
    good,
    ev(2).encode().replace(b'"u-1"', b'"u-\xff"'),
    ev(3).encode().replace(b'"u-1"', b'"u-\xc0\xaf"'),
    ev(4).encode().replace(b'"u-1"', b'"u-\xed\xa0\x80"'),
    ev(5).encode().replace(b'"u-1"', b'"u-\xe2\x82"'),
    ev(6, user="u-\u00e9\u4e2d\U0001F600").encode(),
])
PREFIX[0] = "long-line"
long_line = json.dumps({**json.loads(ev(2)), "properties": {"blob": "x" * (1 << 20)}}, separators=(",", ":"))
with open(os.path.join(bad, "long-line.ndjson.gz"), "wb") as f:
    f.write(gz_member((ev(1) + "\n" + long_line + "\n" + ev(3) + "\n").encode()))
PREFIX[0] = "gz"
members = [gz_member("".join(ev(i) + "\n" for i in range(b * 4 + 1, b * 4 + 5)).encode()) for b in range(3)]
with open(os.path.join(bad, "truncated.ndjson.gz"), "wb") as f:
    f.write(members[0] + members[1] + members[2][: len(members[2]) // 2])
corrupt = bytearray(members[1])
for k in range(20, 40):
    corrupt[k] ^= 0x5A
with open(os.path.join(bad, "corrupt.ndjson.gz"), "wb") as f:
    f.write(members[0] + bytes(corrupt) + members[2])

# A good file: re-sent copies (same bytes, and same body with other spacing/key order),
# a conflict (same event_id, different body), CRLF endings, an unprefixed name, an unknown
# event, escapes in fields, and a last line without a newline.
PREFIX[0] = "dup"
e5 = json.loads(ev(5, name="onboarding.step_completed", properties={"journeyStatus": "already_on_glp1"}))
lines = [
    ev(1, user="u-7", name="onboarding.started", step="signIn", ts="2026-10-03T08:00:00Z"),
    ev(2, user="u-7", step="signIn", ts="2026-10-03T08:00:00.500Z"),
    ev(3, user="u-7", name="sign_in_succeeded", step="signIn", ts="2026-10-03T08:00:20Z", properties={"provider": "apple"}),
    ev(1, user="u-7", name="onboarding.started", step="signIn", ts="2026-10-03T08:00:00Z"),
    json.dumps(dict(reversed(list(json.loads(ev(2, user="u-7", step="signIn", ts="2026-10-03T08:00:00.500Z")).items()))), indent=None),
    ev(2, user="u-8", step="signIn", ts="2026-10-03T08:00:00.500Z"),
    json.dumps(e5, separators=(",", ":")).replace('"u-1"', '"u-\\u0037"'),
    ev(6, user="u-7", name="onboarding.debug_tapped", step="signIn", ts="2026-10-03T08:00:30+02:00"),
    ev(3, user="u-7", name="sign_in_succeeded", step="signIn", ts="2026-10-03T08:00:20Z", properties={"provider": "apple"}),
]
with open(os.path.join(edge, "duplicates.ndjson"), "wb") as f:
    f.write(("\r\n".join(lines[:3]) + "\r\n" + "\n".join(lines[3:])).encode())
