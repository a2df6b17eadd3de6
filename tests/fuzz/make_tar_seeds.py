#!/usr/bin/env python3
"""Write tests/fuzz/seeds/tar/: seeds for fuzz_tar (tests/fuzz/fuzz_tar.c).

Usage: make_tar_seeds.py BUNDLE.tar.gz OUTDIR

BUNDLE is a small bundle made by graveyard publish (a 5-question study:
tests/page/make_study.py DIR --n 5, then graveyard publish DIR --out X).
The first byte of each seed is fuzz_tar's mode: 0x00, the rest is a gzip
stream read as it is; 0x01, the rest is a tar archive the harness gzips.
Written: the bundle as it is; its archive cut after the entries of 8 KiB
or less (publish's own headers, whole); and hostile archives, one refusal
each: a name with "..", an absolute name, a symbolic link, a hard link, a
device, a pax extended header, a GNU long name, a size past the cap, a size
in base-256, a bad checksum, a ustar prefix, two top folders, a file cut
short, an empty archive, a folder with bytes, an odd character in a name.
"""
import gzip
import io
import os
import sys
import tarfile

BLOCK = 512


def header(name, size=0, typ=b"0", mode=0o644, prefix=b"", linkname=b"",
           size_field=None, checksum=None):
    h = bytearray(BLOCK)
    h[0:len(name)] = name
    h[100:108] = b"%07o\0" % mode
    h[108:116] = b"0000000\0"
    h[116:124] = b"0000000\0"
    h[124:136] = size_field if size_field is not None else b"%011o\0" % size
    h[136:148] = b"00000000000\0"
    h[156:157] = typ
    h[157:157 + len(linkname)] = linkname
    h[257:263] = b"ustar\0"
    h[263:265] = b"00"
    h[345:345 + len(prefix)] = prefix
    h[148:156] = b"        "
    s = sum(h) if checksum is None else checksum
    h[148:156] = b"%06o\0 " % s
    return bytes(h)


def body(p):
    return p + b"\0" * (-len(p) % BLOCK)


END = b"\0" * (2 * BLOCK)


def main():
    bundle, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    gz = open(bundle, "rb").read()
    seeds = {"bundle-5q.gz": b"\0" + gz}
    tar = gzip.decompress(gz)
    # publish's own archive, cut after its small entries
    kept, off = b"", 0
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        for m in t.getmembers():
            span = BLOCK + m.size + (-m.size % BLOCK)
            if m.size <= 8192:
                kept += tar[off:off + span]
            off += span
    seeds["bundle-5q-small.tar"] = b"\1" + kept + END
    top = header(b"bundle/", typ=b"5", mode=0o755)
    hostile = {
        "dotdot": header(b"bundle/../x", 2) + body(b"x\n"),
        "absolute": header(b"/etc/x", 2) + body(b"x\n"),
        "symlink": header(b"bundle/rows/link.jsonl", typ=b"2",
                          linkname=b"/etc/passwd"),
        "hardlink": header(b"bundle/rows/hard.jsonl", typ=b"1",
                           linkname=b"bundle/publish.json"),
        "device": header(b"bundle/dev", typ=b"3"),
        "pax": header(b"bundle/PaxHeader", 20, typ=b"x")
        + body(b"20 path=bundle/a/b\n"),
        "gnu-longname": header(b"././@LongLink", 8, typ=b"L") + body(b"bundle/\0"),
        "past-cap": header(b"bundle/huge.jsonl", 300 << 20),
        "base256": header(b"bundle/b256", size_field=b"\x80" + b"\0" * 8 + b"\x01\0\0"),
        "bad-checksum": header(b"bundle/x", 2, checksum=1) + body(b"x\n"),
        "prefix": header(b"x", 2, prefix=b"bundle") + body(b"x\n"),
        "two-tops": header(b"bundle/a", 1) + body(b"a") + header(b"other/b", 1)
        + body(b"b"),
        "cut-short": header(b"bundle/a", 4096) + b"abc",
        "folder-with-bytes": header(b"bundle/d/", 3, typ=b"5") + body(b"abc"),
        "odd-char": header(b"bundle/a b", 1) + body(b"a"),
        "top-file-only": header(b"bundle", 1) + body(b"a"),
    }
    for k, v in hostile.items():
        seeds["hostile-" + k + ".tar"] = b"\1" + top + v + END
    seeds["empty.tar"] = b"\1" + END
    seeds["not-gzip"] = b"\0" + b"PK\3\4 not a gzip stream"
    for k, v in seeds.items():
        with open(os.path.join(out, k), "wb") as f:
            f.write(v)


if __name__ == "__main__":
    main()
