"""Make changed, hostile and contradicting bundles for
tests/integration/areas/publish.sh.
Usage: publish_tamper.py MODE IN.tar.gz OUT.tar.gz
  row       flip one answer's last line in rows/Q4_0.jsonl (line 10) and
            fix its SHA256SUMS line: only the figures can tell
  rowonly   the same row change, SHA256SUMS left as it was
  figure    one figure in report.json changed, its SHA256SUMS line fixed
  sums      one SHA256SUMS line changed
  dotdot    an entry named bundle/../x
  symlink   a symlink entry
  huge      an entry past the 256 MiB cap (zeros)
  bomb      (IN unused) a 2 MB gzip whose one entry's header declares
            2 GiB, followed by 2 GiB of zeros
  dupentry  bundle/rows/Q4_0.jsonl a second time, the same bytes
  dupsums   SHA256SUMS with its rows/Q4_0.jsonl line twice
  mansha    manifest.json's rungs.Q4_0.sha256 all zeros, SHA256SUMS fixed
  manmodel  manifest.json's rungs.Q4_0.model another file, SHA256SUMS fixed
  tsvsha    ladder.tsv's Q4_0 sha256 all zeros, SHA256SUMS fixed
  tsvpath   ladder.tsv's Q4_0 file /etc/hostname, SHA256SUMS fixed
  manrung   manifest.json's rung Q2_K left out, SHA256SUMS fixed
  manqs     manifest.json's questions.sha256 all zeros, SHA256SUMS fixed
  rowwrong  rows/Q4_0.jsonl: the row of test-N, the first one the rung got
            right, made wrong; SHA256SUMS fixed; prints its line and id
Every entry keeps the bundle's order (dupentry adds one); the gzip is
Python's."""
import hashlib
import io
import json
import struct
import sys
import tarfile
import zlib

mode, src, dst = sys.argv[1:4]


def bomb():
    size = 2 << 30
    ti = tarfile.TarInfo("bundle/rows/Q4_0.jsonl")
    ti.size = size
    head = tarfile.TarInfo("bundle/").tobuf(tarfile.USTAR_FORMAT)
    head = tarfile.TarInfo("bundle").tobuf(tarfile.USTAR_FORMAT)
    d = tarfile.TarInfo("bundle")
    d.type = tarfile.DIRTYPE
    d.mode = 0o755
    head = d.tobuf(tarfile.USTAR_FORMAT) + ti.tobuf(tarfile.USTAR_FORMAT)
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = c.compress(head) + c.flush(zlib.Z_FULL_FLUSH)
    mib = bytes(1 << 20)
    c2 = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = c2.compress(mib) + c2.flush(zlib.Z_FULL_FLUSH)
    crc = zlib.crc32(head)
    for _ in range(size >> 20):
        crc = zlib.crc32(mib, crc)
    total = len(head) + size
    with open(dst, "wb") as f:
        f.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03")
        f.write(first)
        for _ in range(size >> 20):
            f.write(chunk)
        f.write(b"\x03\x00")  # a final empty block
        f.write(struct.pack("<II", crc & 0xffffffff, total & 0xffffffff))


if mode == "bomb":
    bomb()
    sys.exit(0)

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


def edit_manifest(fn):
    n = "bundle/manifest.json"
    m = json.loads(files[n])
    fn(m)
    files[n] = json.dumps(m, indent=2, sort_keys=True).encode()
    fix_sums(n)


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


extra = []
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
elif mode == "dupentry":
    m = [m for m, _ in members if m.name == "bundle/rows/Q4_0.jsonl"][0]
    extra.append((m, files[m.name]))
elif mode == "dupsums":
    lines = files["bundle/SHA256SUMS"].decode().splitlines()
    i = [k for k, ln in enumerate(lines) if ln.endswith("  rows/Q4_0.jsonl")][0]
    lines.insert(i + 1, lines[i])
    files["bundle/SHA256SUMS"] = ("\n".join(lines) + "\n").encode()
elif mode == "mansha":
    edit_manifest(lambda m: m["rungs"]["Q4_0"].update(sha256="0" * 64))
elif mode == "manmodel":
    edit_manifest(lambda m: m["rungs"]["Q4_0"].update(model="other.gguf"))
elif mode == "manrung":
    edit_manifest(lambda m: m["rungs"].pop("Q2_K"))
elif mode == "manqs":
    edit_manifest(lambda m: m["questions"].update(sha256="0" * 64))
elif mode in ("tsvsha", "tsvpath"):
    n = "bundle/ladder.tsv"
    lines = files[n].decode().split("\n")
    for i, ln in enumerate(lines):
        f = ln.split("\t")
        if f[0] == "Q4_0" and mode == "tsvsha":
            f[3] = "0" * 64
        elif f[0] == "Q4_0":
            f[1] = "/etc/hostname"
        lines[i] = "\t".join(f)
    files[n] = "\n".join(lines).encode()
    fix_sums(n)
elif mode == "rowwrong":
    n = "bundle/rows/Q4_0.jsonl"
    lines = files[n].decode().split("\n")
    for i, ln in enumerate(lines):
        r = json.loads(ln)
        if r.get("right") is True:
            r["content"] = r["content"] + "\nAnswer: 987654321"
            r["right"] = False
            lines[i] = json.dumps(r, ensure_ascii=False, separators=(",", ":"))
            print("%d %s" % (i + 1, r["id"]))
            break
    files[n] = "\n".join(lines).encode()
    fix_sums(n)

with tarfile.open(dst, "w:gz", format=tarfile.USTAR_FORMAT,
                  compresslevel=1) as out:
    for m, data in members + extra:
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
