/*
 * harness.c - the Python that runs a candidate and its tests inside the
 * sandbox (docs/sandbox.md, "The harness"), compiled into the binary so
 * that no file on disk can change what runs; its sha256 goes in the
 * manifest.
 *
 * It reads the program from its stdin (a memfd, pool.c's frame: "GYH1",
 * a nonce, the count of tests, then code, setup and each test as LENGTH
 * and bytes), closes it, moves its result channel (fd 3, a memfd) to a
 * descriptor of its own and closes 3, then compiles the code (bytes, so
 * that code that is not UTF-8 is the compiler's SyntaxError; SyntaxError
 * and ValueError: syntax_error), exec's it in a fresh globals dict (an
 * exception at top level: error with its type), runs setup, then each
 * test on its own in that namespace: AssertionError fails the test,
 * another exception errs; every test runs so that passed of total is
 * counted, and the first test not passed decides the outcome, its
 * traceback's last lines going to stderr. MemoryError is killed
 * "memory", OSError EFBIG "file_size", OSError EAGAIN (fork, thread) and
 * "can't start new thread" "processes". A process the candidate forked
 * ends where the candidate's code ends: only the harness's own process
 * writes the one result line, which carries the nonce the candidate
 * never sees in its input. It imports nothing (json and traceback cost
 * more than python3's start-up): the line and the traceback are written
 * by hand.
 */
#include <string.h>

#include "sandbox.h"
#include "../base/hash.h"
#include "../../util/util.h"

/* one string a line: C99 promises string literals of 4,095 bytes only */
static const char *const harness_lines[] = {
    "import sys, os\n",
    "def _graveyard_harness():\n",
    "    write, read, getpid, _exit = os.write, os.read, os.getpid, "
    "os._exit\n",
    "    me = getpid()\n",
    "    chunks = []\n",
    "    while True:\n",
    "        b = read(0, 1 << 20)\n",
    "        if not b:\n",
    "            break\n",
    "        chunks.append(b)\n",
    "    os.close(0)\n",
    "    os.open(\"/dev/null\", os.O_RDONLY)\n",
    "    data = b\"\".join(chunks)\n",
    "    chunks = None\n",
    "    # GYH1\\n NONCE\\n NTESTS\\n, then code, setup and each test as "
    "LEN\\n BYTES\n",
    "    head, nonce, count, rest = data.split(b\"\\n\", 3)\n",
    "    if head != b\"GYH1\":\n",
    "        _exit(3)\n",
    "    pos = 0\n",
    "    fields = []\n",
    "    for _ in range(int(count) + 2):\n",
    "        nl = rest.index(b\"\\n\", pos)\n",
    "        n = int(rest[pos:nl])\n",
    "        fields.append(rest[nl + 1:nl + 1 + n])\n",
    "        pos = nl + 1 + n\n",
    "    data = rest = None\n",
    "    code, setup, tests = fields[0], fields[1], fields[2:]\n",
    "    rfd = os.dup(3)\n",
    "    os.close(3)\n",
    "    res = {\"outcome\": \"passed\", \"passed\": 0, \"total\": "
    "len(tests),\n",
    "           \"exception\": \"\", \"limit\": \"\", \"failed_test\": -1}\n",
    "\n",
    "    def kind(e):\n",
    "        if isinstance(e, MemoryError):\n",
    "            return \"killed\", \"memory\"\n",
    "        if isinstance(e, OSError) and e.errno == 27:  # EFBIG\n",
    "            return \"killed\", \"file_size\"\n",
    "        if isinstance(e, OSError) and e.errno == 11:  # EAGAIN\n",
    "            return \"killed\", \"processes\"\n",
    "        if isinstance(e, RuntimeError) and \"new thread\" in str(e):\n",
    "            return \"killed\", \"processes\"\n",
    "        if isinstance(e, AssertionError):\n",
    "            return \"failed\", \"\"\n",
    "        return \"error\", \"\"\n",
    "\n",
    "    def first(outcome, e, limit, test):\n",
    "        if res[\"outcome\"] != \"passed\":\n",
    "            return\n",
    "        res[\"outcome\"] = outcome\n",
    "        if outcome not in (\"failed\", \"killed\"):\n",
    "            res[\"exception\"] = type(e).__name__[:60]\n",
    "        res[\"limit\"] = limit\n",
    "        res[\"failed_test\"] = test\n",
    "        try:\n",
    "            sys.stdout.flush()\n",
    "            sys.stderr.write(\"\".join(trace(e)))\n",
    "            sys.stderr.flush()\n",
    "        except BaseException:\n",
    "            pass\n",
    "\n",
    "    def trace(e):\n",
    "        # a traceback's last lines, without importing traceback (its\n",
    "        # imports cost a failing candidate more than python's "
    "start-up)\n",
    "        srcs = {\"<candidate>\": code, \"<setup>\": setup}\n",
    "        for i, t in enumerate(tests):\n",
    "            srcs[\"<test %d>\" % i] = t\n",
    "        frames = []\n",
    "        tb = e.__traceback__\n",
    "        tb = tb.tb_next if tb is not None else None  # the harness's "
    "frame\n",
    "        while tb is not None:\n",
    "            frames.append(tb)\n",
    "            tb = tb.tb_next\n",
    "            if len(frames) > 8:\n",
    "                del frames[0]\n",
    "        lines = [\"Traceback (most recent call last):\\n\"] if frames "
    "else []\n",
    "        for tb in frames:\n",
    "            c = tb.tb_frame.f_code\n",
    "            lines.append('  File \"%s\", line %d, in %s\\n' % "
    "(c.co_filename, tb.tb_lineno, c.co_name))\n",
    "            s = srcs.get(c.co_filename)\n",
    "            if s is not None:\n",
    "                ls = s.split(b\"\\n\")\n",
    "                if 0 < tb.tb_lineno <= len(ls):\n",
    "                    lines.append(\"    %s\\n\" % ls[tb.tb_lineno - "
    "1].decode(\"utf-8\", \"replace\").strip())\n",
    "        if isinstance(e, SyntaxError):\n",
    "            lines.append('  File \"%s\", line %s\\n    %s\\n' % "
    "(e.filename, e.lineno, (e.text or \"\").strip()))\n",
    "            msg = e.msg\n",
    "        else:\n",
    "            try:\n",
    "                msg = str(e)\n",
    "            except BaseException:\n",
    "                msg = \"(its message could not be shown)\"\n",
    "        lines.append(\"%s%s\\n\" % (type(e).__name__, \": \" + "
    "msg[:1000] if msg else \"\"))\n",
    "        return lines\n",
    "\n",
    "    def mine():\n",
    "        # a process the candidate forked ends here, silently: only the\n",
    "        # harness's own process grades and writes the result\n",
    "        if getpid() != me:\n",
    "            try:\n",
    "                sys.stdout.flush()\n",
    "                sys.stderr.flush()\n",
    "            finally:\n",
    "                _exit(0)\n",
    "\n",
    "    def run(src, name, g):\n",
    "        try:\n",
    "            exec(compile(src, name, \"exec\", dont_inherit=True), g)\n",
    "            return None\n",
    "        except BaseException as e:\n",
    "            return e\n",
    "        finally:\n",
    "            mine()\n",
    "\n",
    "    g = {\"__name__\": \"__main__\", \"__builtins__\": __builtins__}\n",
    "    try:\n",
    "        obj = compile(code, \"<candidate>\", \"exec\", "
    "dont_inherit=True)\n",
    "    except (SyntaxError, ValueError) as e:\n",
    "        first(\"syntax_error\", e, \"\", 0 if tests else -1)\n",
    "        obj = None\n",
    "    if obj is not None:\n",
    "        e = None\n",
    "        try:\n",
    "            exec(obj, g)\n",
    "        except BaseException as x:\n",
    "            e = x\n",
    "        mine()\n",
    "        if e is None and setup:\n",
    "            e = run(setup, \"<setup>\", g)\n",
    "        if e is not None:\n",
    "            o, lim = kind(e)\n",
    "            first(\"error\" if o == \"failed\" else o, e, lim, 0 if "
    "tests else -1)\n",
    "        else:\n",
    "            for i, t in enumerate(tests):\n",
    "                e = run(t, \"<test %d>\" % i, g)\n",
    "                if e is None:\n",
    "                    res[\"passed\"] += 1\n",
    "                    continue\n",
    "                o, lim = kind(e)\n",
    "                first(o, e, lim, i)\n",
    "    try:\n",
    "        sys.stdout.flush()\n",
    "        sys.stderr.flush()\n",
    "    except BaseException:\n",
    "        pass\n",
    "\n",
    "    def js(s):\n",
    "        out = []\n",
    "        for c in s:\n",
    "            o = ord(c)\n",
    "            if 32 <= o < 127 and c != '\"' and c != \"\\\\\":\n",
    "                out.append(c)\n",
    "            elif o > 0xFFFF:\n",
    "                o -= 0x10000\n",
    "                out.append(\"\\\\u%04x\\\\u%04x\" % (0xD800 + (o >> 10), "
    "0xDC00 + (o & 0x3FF)))\n",
    "            else:\n",
    "                out.append(\"\\\\u%04x\" % o)\n",
    "        return '\"' + \"\".join(out) + '\"'\n",
    "\n",
    "    line = \"{%s}\\n\" % \", \".join(\n",
    "        '\"%s\": %s' % (k, js(v) if isinstance(v, str) else int(v))\n",
    "        for k, v in list(res.items()) + [(\"nonce\", "
    "nonce.decode(\"ascii\"))])\n",
    "    line = line.encode(\"ascii\")\n",
    "    while line:\n",
    "        line = line[write(rfd, line):]\n",
    "_graveyard_harness()\n",
};

const char *sandbox_harness(void)
{
    static char *text; /* made once, kept for the process's life */
    size_t n = 0, i, k;

    if (text != NULL)
        return text;
    for (i = 0; i < sizeof(harness_lines) / sizeof(harness_lines[0]); i++)
        n += strlen(harness_lines[i]);
    text = xrealloc(NULL, n + 1);
    for (n = 0, i = 0; i < sizeof(harness_lines) / sizeof(harness_lines[0]);
         i++) {
        k = strlen(harness_lines[i]);
        memcpy(text + n, harness_lines[i], k);
        n += k;
    }
    text[n] = '\0';
    return text;
}

const char *sandbox_harness_sha256(void)
{
    static char hex[65];

    if (hex[0] == '\0')
        hash_bytes(sandbox_harness(), strlen(sandbox_harness()), hex);
    return hex;
}
