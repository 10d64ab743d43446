#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora under fuzz/corpus/ (all but journey/, which the
journey harness writes itself: see scripts/fuzz --seeds). Deterministic: re-running gives
the same bytes. Kept small (a few KiB a target): libFuzzer grows its own corpus from these."""
import glob, gzip, io, os, shutil, struct, zlib

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..")
corpus = os.path.join(here, "corpus")
samples = os.path.join(root, "sample-data")


def target(name):
    d = os.path.join(corpus, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def put(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def sample_lines(count_per_flow=3):
    """The first lines of each flow's first sample file, and every line of the small bad files."""
    lines = []
    for flow in ["baby-basics", "glp1", "screentime-rewards", "shieldai", "trendy"]:
        first = sorted(glob.glob(os.path.join(samples, flow, "*.ndjson.gz")))[0]
        lines += gzip.decompress(open(first, "rb").read()).split(b"\n")[:count_per_flow]
    for path in sorted(glob.glob(os.path.join(samples, "bad", "*.ndjson"))) + [os.path.join(samples, "edge", "duplicates.ndjson")]:
        lines += open(path, "rb").read().split(b"\n")
    return [l.rstrip(b"\r") for l in lines if l]


def deflate_raw(data, level=6):
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def member(data, level=6, extra=None, name=None, comment=None, hcrc=False, mtime=0):
    """One gzip member with the optional header fields of RFC 1952, made by hand."""
    flags = (4 if extra is not None else 0) | (8 if name is not None else 0) | (16 if comment is not None else 0) | (2 if hcrc else 0)
    header = b"\x1f\x8b\x08" + bytes([flags]) + struct.pack("<I", mtime) + b"\x00\x03"
    if extra is not None:
        header += struct.pack("<H", len(extra)) + extra
    if name is not None:
        header += name + b"\x00"
    if comment is not None:
        header += comment + b"\x00"
    if hcrc:
        header += struct.pack("<H", zlib.crc32(header) & 0xFFFF)
    return header + deflate_raw(data, level) + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


def main():
    lines = sample_lines()
    text = b"\n".join(lines[:6]) + b"\n"

    d = target("gzip")
    for path in ["glp1/events-2026-10-09.ndjson.gz", "trendy/events-2026-10-06.ndjson.gz",
                 "bad/truncated.ndjson.gz", "bad/corrupt.ndjson.gz"]:
        shutil.copy(os.path.join(samples, path), os.path.join(d, path.replace("/", "-")))
    put(d, "plain.ndjson", text)
    put(d, "python-gzip.gz", gzip.compress(text, mtime=0))
    put(d, "stored.gz", member(text, level=0))
    put(d, "headers.gz", member(text, extra=b"AB\x02\x00hi", name=b"events.ndjson", comment=b"made by hand", hcrc=True))
    put(d, "fhcrc-only.gz", member(text, hcrc=True))
    put(d, "empty-members.gz", member(b"") + member(text[:40]) + member(b"") + member(text[40:]) + member(b""))
    put(d, "split-mid-line.gz", member(text[:57], level=1) + member(text[57:], level=9))
    put(d, "bgzf-like.gz", member(text, extra=b"BC\x02\x00\x00\x00") + member(b"", extra=b"BC\x02\x00\x1b\x00"))
    put(d, "trailing-zeros.gz", member(text) + b"\x00" * 8)
    put(d, "trailing-junk.gz", member(text) + b"junk")
    put(d, "zlib-not-gzip.gz", zlib.compress(text))
    put(d, "bom-crlf.gz", member(b"\xef\xbb\xbf" + text.replace(b"\n", b"\r\n")))

    d = target("lines")
    # The first byte picks the line limit and the reader's chunk (see the harness).
    put(d, "sample", b"\x00" + text)
    put(d, "crlf-small-limit", b"\x1b" + text.replace(b"\n", b"\r\n"))
    put(d, "no-final-newline", b"\x3c" + text.rstrip(b"\n"))
    put(d, "long-lines", b"\x04" + b"a" * 300 + b"\r\n" + b"b" * 17 + b"\r" + b"\n\n\r\n" + b"c" * 101)
    put(d, "bom", b"\x12\xef\xbb\xbf" + text[:200])
    put(d, "duplicates", b"\x2d" + open(os.path.join(samples, "edge", "duplicates.ndjson"), "rb").read())

    for name in ["decoder", "decoder-diff"]:
        d = target(name)
        for i, line in enumerate(lines):
            put(d, f"line-{i:03d}", line)
        put(d, "surrogates", b'{"event_id":"e\\ud83d","event":"a.b","user_id":"u\\ud83d\\ude00","ts":"2026-10-01T00:00:00Z","flow":"f"}')
        put(d, "deep", b'{"properties":' + b"[" * 600 + b"]" * 600 + b"}")
        put(d, "numbers", b'{"properties":{"a":1e400,"b":-0,"c":123456789012345678901234567890,"d":1.5E-7}}')
        put(d, "duplicate-keys", b'{"user_id":"a","user_id":"b","event_id":"x","event_id":""}')

    d = target("flows")
    for path in sorted(glob.glob(os.path.join(root, "schemas", "flows", "*.json"))):
        shutil.copy(path, os.path.join(d, os.path.basename(path)))

    d = target("rowbinary")
    # First byte: how many reads follow (mod 32); then the reads (mod 7); then the answer.
    def varstr(s):
        return bytes([len(s)]) + s
    put(d, "strings", bytes([3, 5, 6, 4]) + varstr(b"u-0001") + b"\x00" + varstr(b"glp1") + varstr(b""))
    put(d, "numbers", bytes([4, 0, 1, 2, 3]) + bytes(range(1, 22)))
    put(d, "row", bytes([6, 5, 5, 3, 6, 2, 1]) + varstr(b"e-1") + varstr(b"u-1") + struct.pack("<q", -5) + b"\x01"
        + struct.pack("<Q", 2**63) + struct.pack("<I", 7))
    put(d, "long-varint", bytes([1, 4]) + b"\xff" * 11 + b"\x01")


main()
