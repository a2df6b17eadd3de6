#!/usr/bin/env python3
"""Checks of the fake llama-server's long-context side (issue 36), run by
tests/integration/areas/longctx-fake.sh against a fake it started:
/tokenize (shapes, counts, add_special, with_pieces, bad bodies), n_ctx in
/props and /slots, the exceed-context 400 (stream and not), the prompt's
count in usage and timings, the needles reply mode and the length cliff.

The tokenizer here is an independent port of the rule that
docs/fake-llama-server.md states ("/tokenize"), so a change to the fake's
counts that the page does not say fails here.

Usage: longctx_fake.py URL CHECK [ARG...]; prints each failure, exit 1 on
any, 0 when every check held.
"""
import json
import random
import sys
import urllib.error
import urllib.request

BOS, EOS = 1, 2
OVERHEAD_FIRST, OVERHEAD_MSG, OVERHEAD_GEN = 1, 4, 3
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
    return ok


# ---- the documented tokenizer, ported ------------------------------------

def _kind(b):
    if 48 <= b <= 57:
        return "digit"
    if 65 <= b <= 90 or 97 <= b <= 122 or b >= 128:
        return "letter"
    if b in (32, 9, 10, 11, 12, 13):
        return "space"
    return "other"


def _fnv(piece):
    h = 2166136261
    for b in piece:
        h ^= b
        h = (h * 16777619) & 0xFFFFFFFF
    return 3 + h % 32000


def tokenize(text, add_special=False, parse_special=True):
    """[(id, piece bytes)] by the page's rule."""
    s = text.encode("utf-8")
    out = [(BOS, b"<s>")] if add_special else []
    i, n = 0, len(s)

    def special(at):
        if not parse_special:
            return None
        for t, tid in ((b"<s>", BOS), (b"</s>", EOS)):
            if s.startswith(t, at):
                return t, tid
        return None

    while i < n:
        sp = special(i)
        if sp:
            out.append((sp[1], sp[0]))
            i += len(sp[0])
            continue
        start = i
        k = _kind(s[i])
        if k == "space":
            if (s[i] == 32 and i + 1 < n and _kind(s[i + 1]) != "space"
                    and not special(i + 1)):
                i += 1  # the space joins the next token
            else:
                while i < n and _kind(s[i]) == "space" and not special(i):
                    i += 1
                out.append((_fnv(s[start:i]), s[start:i]))
                continue
        k = _kind(s[i])
        cap = 6 if k == "letter" else 3 if k == "digit" else 1
        j = i
        while j < n and j - i < cap and _kind(s[j]) == k:
            j += 1
        out.append((_fnv(s[start:j]), s[start:j]))
        i = j
    return out


def chat_tokens(messages):
    return (OVERHEAD_FIRST + OVERHEAD_GEN +
            sum(OVERHEAD_MSG + len(tokenize(m["content"])) for m in messages))


# ---- HTTP -----------------------------------------------------------------

def post(url, body, raw=None):
    """(status, parsed JSON or None, text)."""
    data = raw if raw is not None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            status, text = r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode("utf-8", "replace")
    try:
        return status, json.loads(text), text
    except ValueError:
        return status, None, text


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, None


def chat(base, prompt, stream=True, max_tokens=64):
    """(status, content, last JSON with usage or timings, error body)."""
    body = {"messages": [{"role": "user", "content": prompt}],
            "stream": stream, "max_tokens": max_tokens, "temperature": 0}
    status, js, text = post(base + "/v1/chat/completions", body)
    if status != 200:
        return status, None, None, js if js is not None else text
    if js is not None:  # not a stream
        msg = js["choices"][0]["message"]
        return status, msg.get("content") or "", js, None
    content, last = "", None
    for line in text.split("\n"):
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        ev = json.loads(line[6:])
        for c in ev.get("choices", []):
            content += c.get("delta", {}).get("content") or ""
        if "timings" in ev or "usage" in ev:
            last = ev
    return status, content, last, None


# ---- long prompts ----------------------------------------------------------

WORDS = ("the garden river stone window morning quiet table letter road "
         "bright small house winter summer paper music light forest city "
         "evening little market bridge yellow number people country story "
         "remember wonderful together afternoon question a of to and in it "
         "was he she on at by the the a an his her old new near over").split()


def prose(rng, nwords):
    out, w = [], 0
    while w < nwords:
        k = rng.randint(6, 14)
        s = " ".join(rng.choice(WORDS) for _ in range(k))
        out.append(s[0].upper() + s[1:] + ".")
        w += k
    return out


def niah(nwords, key, value, depth=50, seed=1, kind="number"):
    """A RULER niah-single prompt (the wording of haystack_render.c)."""
    rng = random.Random(seed)
    sents = prose(rng, nwords)
    needle = "One of the special magic %ss for %s is: %s." % (kind, key, value)
    sents.insert(len(sents) * depth // 100, needle)
    return ("A special magic %s is hidden within the following text. Make "
            "sure to memorize it. I will quiz you about the %s afterwards.\n"
            % (kind, kind) + " ".join(sents) +
            "\nWhat is the special magic %s for %s mentioned in the provided "
            "text?" % (kind, key))


def niah_many(nwords, keys, values_per_key, asked, seed=2, kind="number"):
    rng = random.Random(seed)
    sents = prose(rng, nwords)
    needles = []
    for k in keys:
        for v in values_per_key[k]:
            needles.append("One of the special magic %ss for %s is: %s."
                           % (kind, k, v))
    for i, nd in enumerate(needles):
        sents.insert((i + 1) * len(sents) // (len(needles) + 1) + i, nd)
    if len(asked) == 1:
        q = asked[0]
    else:
        q = ", ".join(asked[:-1]) + ", and " + asked[-1]
    if sum(len(values_per_key[k]) for k in asked) == 1:
        head = ("A special magic %s is hidden within the following text. Make "
                "sure to memorize it. I will quiz you about the %s afterwards."
                "\n" % (kind, kind))
        ask = "What is the special magic %s for %s" % (kind, q)
    else:
        head = ("Some special magic %ss are hidden within the following text. "
                "Make sure to memorize it. I will quiz you about the %ss "
                "afterwards.\n" % (kind, kind))
        ask = "What are all the special magic %ss for %s" % (kind, q)
    return head + " ".join(sents) + "\n" + ask + " mentioned in the provided text?"


def vt(nwords, chain, value, decoy, seed=3):
    rng = random.Random(seed)
    sents = prose(rng, nwords)
    needles = ["VAR %s = %s" % (chain[0], value)]
    needles += ["VAR %s = VAR %s" % (chain[i], chain[i - 1])
                for i in range(1, len(chain))]
    needles.insert(2, "VAR %s = %s" % (decoy, int(value) + 7))
    for i, nd in enumerate(needles):
        sents.insert((i + 1) * len(sents) // (len(needles) + 1) + i, nd)
    return ("Memorize and track the chain(s) of variable assignment hidden in "
            "the following text.\n\n" + " ".join(sents) +
            "\nQuestion: Find all variables that are assigned the value %s in "
            "the text above." % value)


def cwe(common, rare, seed=4):
    rng = random.Random(seed)
    ids = [w for w in common for _ in range(30)] + \
        [w for w in rare for _ in range(3)]
    rng.shuffle(ids)
    lines = ["%d. %s" % (i + 1, w) for i, w in enumerate(ids)]
    return ("Below is a numbered list of words. In these words, some appear "
            "more often than others. Memorize the ones that appear most "
            "often.\n" + "\n".join(lines) +
            "\nQuestion: What are the 10 most common words in the above list?")


def fwe(top, n=400, seed=6):
    """RULER's fwe: a coded text whose rank k word is written n * 6 / pi^2
    / k^2 times, rank 1 the noise '...'; the 3 most frequent asked."""
    rng = random.Random(seed)
    ids, k = [], 1
    while True:
        c = int(n * 0.6079271018540267 / (k * k))
        if c == 0:
            break
        w = "..." if k == 1 else top[k - 2] if k <= 4 else "zq%04d" % k
        ids += [w] * c
        k += 1
    rng.shuffle(ids)
    return ("Read the following coded text and track the frequency of each "
            "coded word. Find the three most frequently appeared coded words. "
            + " ".join(ids) + "\nQuestion: Do not provide any explanation. "
            "Please ignore the dots '....'. What are the three most frequently "
            "appeared words in the above coded text?")


# ---- the checks ------------------------------------------------------------

def c_tokenize(base):
    u = base + "/tokenize"
    text = "Hello, world!  The 1234567 magic-numbers\n\nare: caf\u00e9 <s> x"
    want = tokenize(text)
    st, js, raw = post(u, {"content": text})
    if not check(st == 200 and isinstance(js, dict) and "tokens" in js,
                 "POST /tokenize: %s %s" % (st, raw[:200])):
        return
    got = js["tokens"]
    check(got == [t for t, _ in want],
          "tokens: %s, want %s" % (got, [t for t, _ in want]))
    st, js2, _ = post(u, {"content": text})
    check(js2 == js, "not stable: %s then %s" % (js, js2))
    st, js, _ = post(u, {"content": text, "add_special": True})
    check(js and js["tokens"][:1] == [BOS] and js["tokens"][1:] == got,
          "add_special: %s" % (js,))
    st, js, _ = post(u, {"content": text, "parse_special": False})
    check(js and js["tokens"] == [t for t, _ in tokenize(text, False, False)]
          and BOS not in js["tokens"], "parse_special false: %s" % (js,))
    st, js, _ = post(u, {"content": text, "with_pieces": True})
    pcs = js["tokens"] if js else None
    ok = isinstance(pcs, list) and all(
        isinstance(p, dict) and set(p) == {"id", "piece"} for p in pcs)
    if check(ok, "with_pieces: %s" % (js,)):
        check([p["id"] for p in pcs] == got, "with_pieces ids: %s" % pcs)
        joined = b"".join(p["piece"].encode() if isinstance(p["piece"], str)
                          else bytes(p["piece"]) for p in pcs)
        check(joined == text.encode(), "pieces join to %r" % joined)
    # a piece that is not whole UTF-8 comes as its bytes, as upstream
    st, js, _ = post(u, {"content": "a\u00e9\u00e9\u00e9\u00e9",
                         "with_pieces": True})
    check(js and isinstance(js["tokens"][0]["piece"], list),
          "a cut UTF-8 piece is not a byte list: %s" % (js,))
    # no content: an empty list, as upstream
    st, js, _ = post(u, {"add_special": True})
    check(st == 200 and js == {"tokens": []}, "no content: %s %s" % (st, js))
    # mixed content: ids kept, strings tokenized
    st, js, _ = post(u, {"content": [7, "ab", 9]})
    check(st == 200 and js and js["tokens"] == [7, _fnv(b"ab"), 9],
          "mixed content: %s %s" % (st, js))
    # a NUL is text like any other byte; a float id is cut to an int,
    # as nlohmann's get<int>; a body of null has no content
    st, js, _ = post(u, {"content": "a\u0000b"})
    check(st == 200 and js and js["tokens"] ==
          [t for t, _ in tokenize("a\u0000b")], "a NUL: %s %s" % (st, js))
    st, js, _ = post(u, {"content": [1.5, "x"]})
    check(st == 200 and js and js["tokens"] == [1, _fnv(b"x")],
          "a float id: %s %s" % (st, js))
    st, js, _ = post(u, None, raw=b"null")
    check(st == 200 and js == {"tokens": []}, "null body: %s %s" % (st, js))
    # bad bodies: the real server's 500 with nlohmann's message
    st, js, raw = post(u, None, raw=b"{not json")
    check(st == 500 and js and js["error"]["type"] == "server_error" and
          js["error"]["message"].startswith("[json.exception.parse_error"),
          "malformed body: %s %s" % (st, raw[:200]))
    st, js, raw = post(u, {"content": 5})
    check(st == 500 and js and js["error"]["code"] == 500 and
          js["error"]["message"].startswith("[json.exception.type_error"),
          "content a number: %s %s" % (st, raw[:200]))
    # about 4 bytes a token on prose; a 64K-token prompt is ~250 KB
    body = " ".join(prose(random.Random(9), 48000))
    st, js, _ = post(u, {"content": body})
    n = len(js["tokens"]) if js else 0
    check(n == len(tokenize(body)), "prose count %d, want %d"
          % (n, len(tokenize(body))))
    check(n > 0 and 3.8 <= len(body) / n <= 5.0,
          "%.2f bytes a token on prose (%d bytes, %d tokens)"
          % (len(body) / max(n, 1), len(body), n))


def c_tokenize_ik(base):
    """The ik fork's handler has no with_pieces: ids, whatever is asked."""
    text = "Hello, world!"
    st, js, _ = post(base + "/tokenize", {"content": text, "with_pieces": True})
    check(st == 200 and js and js["tokens"] == [t for t, _ in tokenize(text)],
          "ik with_pieces: %s %s" % (st, js))


def c_tokenize_off(base):
    st, js, raw = post(base + "/tokenize", {"content": "abc"})
    check(st == 404 and js and js["error"]["type"] == "not_found_error",
          "tokenize off: %s %s" % (st, raw[:200]))


def c_props(base, n, slot, ik):
    st, js = get(base + "/props")
    if not check(st == 200 and js, "GET /props: %s" % st):
        return
    dgs = js.get("default_generation_settings", {})
    check(dgs.get("n_ctx") == int(slot),
          "props default_generation_settings.n_ctx %s, want %s"
          % (dgs.get("n_ctx"), slot))
    if ik == "ik":
        check(js.get("n_ctx") == int(n), "ik props n_ctx %s, want %s"
              % (js.get("n_ctx"), n))
    else:
        check("n_ctx" not in js, "upstream props has a top-level n_ctx")
    st, js = get(base + "/slots")
    check(st == 200 and isinstance(js, list) and js and
          js[0].get("n_ctx") == int(slot) and js[0].get("id") == 0,
          "GET /slots: %s %s" % (st, js))


def c_exceed(base, n_ctx):
    n_ctx = int(n_ctx)
    prompt = " ".join(prose(random.Random(5), n_ctx))
    want = chat_tokens([{"content": prompt}])
    for stream in (True, False):
        st, _, _, err = chat(base, prompt, stream=stream)
        e = err.get("error", {}) if isinstance(err, dict) else {}
        check(st == 400 and e.get("type") == "exceed_context_size_error" and
              e.get("code") == 400 and e.get("n_prompt_tokens") == want and
              e.get("n_ctx") == n_ctx and e.get("message") ==
              "request (%d tokens) exceeds the available context size (%d "
              "tokens), try increasing it" % (want, n_ctx),
              "over n_ctx (stream %s): %s %s" % (stream, st, err))
    short = "What is two and two?"
    st, content, _, err = chat(base, short)
    check(st == 200, "a short prompt refused: %s %s" % (st, err))


def c_ik_shift(base, n_ctx, key, value):
    """ik: a prompt past n_ctx is cut from the front (context shift): a
    needle near the start is lost, the reply still 200."""
    prompt = niah(int(n_ctx), key, value, depth=2)
    st, content, last, err = chat(base, prompt)
    check(st == 200 and value not in (content or ""),
          "ik context shift: %s %r %s" % (st, content, err))
    t = (last or {}).get("timings", {})
    check(0 < t.get("prompt_n", 0) < int(n_ctx) and t.get("n_ctx") == int(n_ctx),
          "ik shifted timings: %s" % t)


def c_ik_noshift(base, n_ctx):
    prompt = " ".join(prose(random.Random(5), int(n_ctx)))
    st, _, _, err = chat(base, prompt)
    e = err.get("error", {}) if isinstance(err, dict) else {}
    check(st == 500 and e.get("type") == "server_error" and
          e.get("message") == "the request exceeds the available context "
          "size, try increasing it" and "n_prompt_tokens" not in e,
          "ik --no-context-shift: %s %s" % (st, err))


def c_usage(base, tps):
    tps = float(tps)
    ms = []
    for words in (50, 2000):
        prompt = " ".join(prose(random.Random(words), words))
        want = chat_tokens([{"content": prompt}])
        # the same count /tokenize gives the text, plus the template's
        _, js, _ = post(base + "/tokenize", {"content": prompt})
        check(js and want == len(js["tokens"]) + 8,
              "/tokenize + 8 is not the chat's count")
        for stream in (True, False):
            st, _, last, err = chat(base, prompt, stream=stream)
            if not check(st == 200 and last, "chat: %s %s" % (st, err)):
                continue
            u, t = last.get("usage", {}), last.get("timings", {})
            check(u.get("prompt_tokens") == want and t.get("prompt_n") == want,
                  "usage %s timings %s, want prompt %d (stream %s)"
                  % (u, t, want, stream))
            check(abs(t.get("prompt_ms", -1) - 1000.0 * want / tps) < 0.01,
                  "prompt_ms %s, want %.3f" % (t.get("prompt_ms"),
                                                1000.0 * want / tps))
            ms.append(t.get("prompt_ms", 0))
    check(len(ms) == 4 and ms[2] > ms[0] * 10, "prompt_ms does not grow: %s" % ms)


def c_needles(base):
    cases = [
        ("niah single", niah(3000, "dizzy-anchor", "4925381"), ["4925381"]),
        ("niah uuid", niah(800, "old-wave", "8f0a4c2e-1b7d-4e55-9a31-0c6b2d9e7f14",
                           kind="uuid"),
         ["8f0a4c2e-1b7d-4e55-9a31-0c6b2d9e7f14"]),
        ("niah multikey", niah_many(
            1500, ["red-fox", "tall-oak", "cold-sea", "dry-leaf"],
            {"red-fox": ["1111111"], "tall-oak": ["2222229"],
             "cold-sea": ["3333338"], "dry-leaf": ["4444447"]}, ["tall-oak"]),
         ["2222229"]),
        ("niah multivalue", niah_many(
            1500, ["wise-owl"], {"wise-owl": ["5150001", "5150002", "5150003",
                                              "5150004"]}, ["wise-owl"]),
         ["5150001", "5150002", "5150003", "5150004"]),
        ("niah multiquery", niah_many(
            1500, ["a-b", "c-d", "e-f", "g-h"],
            {"a-b": ["7000001"], "c-d": ["7000002"], "e-f": ["7000003"],
             "g-h": ["7000004"]}, ["g-h", "a-b", "e-f", "c-d"]),
         ["7000004", "7000001", "7000003", "7000002"]),
        ("vt", vt(1200, ["QWXYZ", "ABCDE", "MNOPQ", "RSTUV", "HIJKL"],
                  "48213", "ZZZZZ"),
         ["QWXYZ", "ABCDE", "MNOPQ", "RSTUV", "HIJKL"]),
        ("cwe", cwe(["alpha%d" % i for i in range(10)],
                    ["rare%03d" % i for i in range(200)]),
         ["alpha%d" % i for i in range(10)]),
        ("fwe", fwe(["bakoti", "mereld", "sunaph"]),
         ["bakoti", "mereld", "sunaph"]),
    ]
    for name, prompt, want in cases:
        st, content, _, err = chat(base, prompt, max_tokens=400)
        if not check(st == 200 and content is not None,
                     "%s: %s %s" % (name, st, err)):
            continue
        pos, ok = -1, True
        for w in want:  # every value, in the expected order
            p = content.find(w, pos + 1)
            ok = ok and p > pos
            pos = p
        if name == "cwe":  # tied counts: any order
            ok = all(w in content for w in want)
        check(ok, "%s: reply %r, want %s in this order" % (name, content, want))
        if name == "vt":
            check("ZZZZZ" not in content, "vt: the decoy in %r" % content)
        if name == "cwe":
            check("rare" not in content, "cwe: a rare word in %r" % content)
        if name == "fwe":
            check("..." not in content and "zq" not in content,
                  "fwe: the noise or a rank past 4 in %r" % content)
    # a prompt of no known shape: the rules' reply
    st, content, _, _ = chat(base, "Tom has 3 apples and gets 2 more.")
    check(content == "Answer: 5", "no shape: %r" % content)


def c_cliff(base, tokens, mode):
    tokens = int(tokens)
    below = niah(tokens // 8, "sunny-harbor", "8675309", depth=40)
    above = niah(tokens, "sunny-harbor", "8675309", depth=40)
    nb, na = chat_tokens([{"content": below}]), chat_tokens([{"content": above}])
    check(nb < tokens < na, "cliff test prompts %d and %d around %d"
          % (nb, na, tokens))
    st, content, _, err = chat(base, below)
    check(st == 200 and "8675309" in (content or ""),
          "below the cliff (%d tokens): %s %r %s" % (nb, st, content, err))
    st, content, last, err = chat(base, above, max_tokens=200)
    check(st == 200 and content is not None and "8675309" not in content,
          "above the cliff (%d tokens, %s): %s %r" % (na, mode, st, content))
    if mode == "wrong":
        check(content and content.strip() and
              any(ch.isdigit() for ch in content),
              "wrong: not a wrong value: %r" % content)
    elif mode == "gibberish":
        check(content and len(content.split()) >= 8 and
              not any(ch.isdigit() for ch in content),
              "gibberish: %r" % content)
    elif mode == "empty":
        check(content == "", "empty: %r" % content)
    t = (last or {}).get("timings", {})
    check(t.get("prompt_n") == na, "above: prompt_n %s, want %d"
          % (t.get("prompt_n"), na))
    # the rules' replies past the cliff: their digits wrong too
    pad = " ".join(prose(random.Random(7), tokens))
    st, content, _, _ = chat(base, pad + " Tom has 3 apples and gets 2 more.")
    if mode == "wrong":
        check(content == "Answer: 6", "a rule's reply past the cliff: %r"
              % content)


def c_cliff_none(base, tokens):
    """A model whose cliff is not for this server's K cache: right at
    any length."""
    above = niah(int(tokens), "sunny-harbor", "8675309", depth=40)
    st, content, _, err = chat(base, above)
    check(st == 200 and "8675309" in (content or ""),
          "no cliff for this cache: %s %r %s" % (st, content, err))


def c_depth(base, tokens, keep):
    tokens, keep = int(tokens), int(keep)
    for depth, survives in ((1, True), (50, False), (99, True)):
        p = niah(tokens, "blue-kettle", "2718281", depth=depth)
        st, content, _, err = chat(base, p)
        check(st == 200 and (("2718281" in (content or "")) == survives),
              "cliff_depth %d%%: needle at %d%%: %r (want %s)"
              % (keep, depth, content, "kept" if survives else "lost"))


def main():
    if len(sys.argv) < 3:
        print("usage: longctx_fake.py URL CHECK [ARG...]", file=sys.stderr)
        return 2
    base, name, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    fn = globals().get("c_" + name)
    if fn is None:
        print("longctx_fake.py: no check '%s'" % name, file=sys.stderr)
        return 2
    try:
        fn(base, *args)
    except Exception as e:  # a dead server, a shape not JSON
        failures.append("%s: %s: %s" % (name, type(e).__name__, e))
    for f in failures:
        print("%s: %s" % (name, f))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
