"""Make changed and hostile bundles for tests/integration/round3/publish.sh.
Usage: publish_tamper.py MODE IN.tar.gz OUT.tar.gz
  row      flip one answer's last line in rows/Q4_0.jsonl (line 10) and
           fix its SHA256SUMS line: only the figures can tell
  rowonly  the same row change, SHA256SUMS left as it was
  figure   one figure in report.json changed, its SHA256SUMS line fixed
  sums     one SHA256SUMS line changed
  dotdot   an entry named bundle/../x
  symlink  a symlink entry
  huge     an entry past the 256 MiB cap (zeros)
Every entry keeps the bundle's order; the gzip is Python's."""
import hashlib
import io
import json
import sys
import tarfile

mode, src, dst = sys.argv[1:4]
with tarfile.open(src, "r:gz") as t:
    members = [(m, t.extractfile(m).read() if m.isfile() else None)
               for m in t.getmembers()]
files = {m.name: data for m, data in members if data is not None}


def fix_sums(name):
    lines = files["bundle/SHA256SUMS"].decode().splitlines()
    rel = name[len("bundle/"):]
    out = []
    for ln in lines:
        if ln.endswith("  " + rel):
            ln = hashlib.sha256(files[name]).hexdigest() + "  " + rel
        out.append(ln)
    files["bundle/SHA256SUMS"] = ("\n".join(out) + "\n").encode()


def edit_row():
    name = "bundle/rows/Q4_0.jsonl"
    lines = files[name].decode().split("\n")
    # the first row the rung got right: now it says another number
    for i, ln in enumerate(lines):
        r = json.loads(ln)
        if r.get("right") is True or (r.get("right") is None and ln):
            r["content"] = r["content"] + "\nAnswer: 987654321"
            lines[i] = json.dumps(r, ensure_ascii=False, separators=(",", ":"))
            print("edited %s line %d" % (name, i + 1))
            break
    files[name] = "\n".join(lines).encode()
    return name


if mode in ("row", "rowonly"):
    n = edit_row()
    if mode == "row":
        fix_sums(n)
elif mode == "figure":
    n = "bundle/report.json"
    s = files[n].decode()
    i = s.index('"accuracy": ', s.index('"rung": "Q4_0"'))
    j = s.index(",", i)
    files[n] = (s[:i] + '"accuracy": 0.999' + s[j:]).encode()
    fix_sums(n)
elif mode == "sums":
    lines = files["bundle/SHA256SUMS"].decode().splitlines()
    lines[3] = ("0" * 64) + lines[3][64:]
    files["bundle/SHA256SUMS"] = ("\n".join(lines) + "\n").encode()

with tarfile.open(dst, "w:gz", format=tarfile.USTAR_FORMAT,
                  compresslevel=1) as out:
    for m, data in members:
        if data is not None:
            data = files[m.name]
            m.size = len(data)
            out.addfile(m, io.BytesIO(data))
        else:
            out.addfile(m)
    if mode == "dotdot":
        ti = tarfile.TarInfo("bundle/../x")
        ti.size = 2
        out.addfile(ti, io.BytesIO(b"x\n"))
    elif mode == "symlink":
        ti = tarfile.TarInfo("bundle/rows/link.jsonl")
        ti.type = tarfile.SYMTYPE
        ti.linkname = "/etc/passwd"
        out.addfile(ti)
    elif mode == "huge":
        ti = tarfile.TarInfo("bundle/huge.jsonl")
        ti.size = (256 << 20) + 1

        class Zeros:
            def read(self, n=-1):
                return bytes(n if n >= 0 else 0)
        out.addfile(ti, Zeros())
