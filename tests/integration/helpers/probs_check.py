#!/usr/bin/env python3
"""Read a run folder's probs files by the layout in grader/probs.h, apart
from the C codec, for tests/integration/areas/probs.sh.

  probs_check.py records RUNDIR RUNG...
      every record whole (magic, length, FNV-1a check, no bytes left
      over), one record for each answered row (a row without "error"), none
      for an error row, no question twice; prints "RUNG records N rows N"
  probs_check.py kld RUNDIR REF RUNG...
      per rung, the mean top-N KLD(ref || rung) over the shared prefixes
      (positions 0..split, or all common ones) and the answers that split;
      checks each split is where the two replies' texts first differ (the
      fake's tokens are 4-byte pieces of the reply); prints
      "RUNG kld X split N"
  probs_check.py texts RUNDIR RUNG
      each record's chosen tokens' texts joined in order, then each
      alternative's text, a line a record (raw bytes): what a reader can
      rebuild of the answer from the probs file alone
Exit 1 with a line on the first problem.
"""
import json
import math
import struct
import sys


def fail(msg):
    print("probs_check: " + msg)
    sys.exit(1)


M64 = 0xFFFFFFFFFFFFFFFF


def mix(h, w):
    h = ((h ^ w) * 0xff51afd7ed558ccd) & M64
    return h ^ (h >> 32)


def check64(data):
    """The record's check, as grader/probs.c computes it."""
    n = len(data)
    lanes = [0x9e3779b97f4a7c15 ^ n, 0x6a09e667f3bcc908,
             0xbb67ae8584caa73b, 0x3c6ef372fe94f82b]
    i = 0
    while i + 32 <= n:
        for k in range(4):
            (w,) = struct.unpack_from("<Q", data, i + 8 * k)
            lanes[k] = mix(lanes[k], w)
        i += 32
    h = mix(mix(mix(lanes[0], lanes[1]), lanes[2]), lanes[3])
    while i + 8 <= n:
        (w,) = struct.unpack_from("<Q", data, i)
        h = mix(h, w)
        i += 8
    w = int.from_bytes(bytes(data[i:n]), "little")
    return mix(mix(h, w), 0xc4ceb9fe1a85ec53)


def entry(b, p, texts):
    tid, lp = struct.unpack_from("<If", b, p)
    return (tid, lp, texts.get(tid, b"")), p + 8


def records(path):
    b = open(path, "rb").read()
    p, out = 0, []
    while p < len(b):
        if b[p:p + 4] != b"GYP1" or len(b) - p < 8:
            fail("%s: no record at byte %d" % (path, p))
        (body,) = struct.unpack_from("<I", b, p + 4)
        end = p + 8 + body
        if end > len(b):
            fail("%s: a torn record at byte %d" % (path, p))
        (check,) = struct.unpack_from("<Q", b, end - 8)
        if check64(b[p + 8:end - 8]) != check:
            fail("%s: the check fails at byte %d" % (path, p))
        q = p + 8
        n = b[q]
        rid = b[q + 1:q + 1 + n].decode()
        q += 1 + n
        topn, flags = b[q], b[q + 1]
        (ntok, ntext) = struct.unpack_from("<II", b, q + 2)
        q += 10
        texts = {}
        for _ in range(ntext):
            (tid,) = struct.unpack_from("<I", b, q)
            n = b[q + 4]
            texts[tid] = bytes(b[q + 5:q + 5 + n])
            q += 5 + n
        toks = []
        for _ in range(ntok):
            k = b[q]
            q += 1
            chosen = None
            if k == 0xFF:
                chosen, q = entry(b, q, texts)
            top = []
            for _ in range(topn):
                e, q = entry(b, q, texts)
                top.append(e)
            if chosen is None:
                if k >= topn:
                    fail("%s: k %d past N %d in '%s'" % (path, k, topn, rid))
                chosen = top[k]
            toks.append((chosen, top))
        if q != end - 8:
            fail("%s: %d bytes left over in '%s'" % (path, end - 8 - q, rid))
        out.append({"id": rid, "topn": topn, "flags": flags, "toks": toks})
        p = end
    return out


def rows(rundir, rung):
    out = {}
    for line in open("%s/rows/%s.jsonl" % (rundir, rung)):
        r = json.loads(line)
        out[r["id"]] = r
    return out


def check_records(rundir, rung):
    recs = records("%s/rows/%s.probs" % (rundir, rung))
    rs = rows(rundir, rung)
    ids = [r["id"] for r in recs]
    if len(set(ids)) != len(ids):
        fail("%s: a question has two records" % rung)
    answered = {i for i, r in rs.items() if r.get("error") is None}
    if set(ids) != answered:
        fail("%s: records for %s, answered rows %s" %
             (rung, sorted(set(ids) - answered), sorted(answered - set(ids))))
    print("%s records %d rows %d" % (rung, len(recs), len(answered)))
    return {r["id"]: r for r in recs}


def kld(p, q):
    """Top-N KLD(P || Q) as grader/probs.h defines it."""
    qp = {e[0]: math.exp(e[1]) for e in q}
    both = [(math.exp(e[1]), qp[e[0]]) for e in p if e[0] in qp]
    po = max(0.0, 1 - sum(a for a, _ in both))
    qo = max(0.0, 1 - sum(b for _, b in both))
    d = sum(a * math.log(a / b) for a, b in both if a > 0)
    if po > 0:
        d += po * math.log(po / qo) if qo > 0 else float("inf")
    return d


def split_of(a, b):
    for i in range(min(len(a), len(b))):
        if a[i][0][0] != b[i][0][0]:
            return i
    return -1


def pieces(text):
    raw = text.encode()
    return [raw[i:i + 4] for i in range(0, len(raw), 4)]


def compare(rundir, ref, rung, refrecs):
    recs = check_records(rundir, rung)
    rrows, grows = rows(rundir, ref), rows(rundir, rung)
    total, n, splits = 0.0, 0, 0
    for qid, g in recs.items():
        if qid not in refrecs:
            continue
        a, b = refrecs[qid]["toks"], g["toks"]
        s = split_of(a, b)
        end = s + 1 if s >= 0 else min(len(a), len(b))
        for i in range(end):
            total += kld(a[i][1], b[i][1])
            n += 1
        splits += s >= 0
        ra, rb = rrows[qid], grows[qid]
        if not ra.get("reasoning_content") and not rb.get("reasoning_content"):
            pa, pb = pieces(ra.get("content") or ""), pieces(rb.get("content") or "")
            want = split_of([((x,),) for x in pa], [((x,),) for x in pb])
            if s != want:
                fail("%s '%s': split at %d, the texts differ at %d" %
                     (rung, qid, s, want))
    print("%s kld %.6f split %d" % (rung, total / n if n else 0.0, splits))


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("records", "kld", "texts"):
        fail("usage: probs_check.py records|kld|texts RUNDIR RUNG...")
    rundir = sys.argv[2]
    if sys.argv[1] == "texts":
        for rec in records("%s/rows/%s.probs" % (rundir, sys.argv[3])):
            line = b"".join(c[2] for c, _ in rec["toks"])
            for _, top in rec["toks"]:
                line += b" " + b" ".join(e[2] for e in top)
            sys.stdout.buffer.write(line.replace(b"\n", b" ") + b"\n")
        return
    if sys.argv[1] == "records":
        for rung in sys.argv[3:]:
            check_records(rundir, rung)
        return
    ref = sys.argv[3]
    refrecs = check_records(rundir, ref)
    for rung in sys.argv[4:]:
        compare(rundir, ref, rung, refrecs)


main()
