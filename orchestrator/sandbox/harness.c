/*
 * harness.c - the Python that runs a candidate and its tests inside the
 * sandbox (docs/sandbox.md, "The harness"), compiled into the binary so
 * that no file on disk can change what runs; its sha256 goes in the
 * manifest.
 *
 * It reads the program as one JSON object from its stdin (a memfd:
 * {"nonce", "code", "setup", "tests"}), closes it, moves its result
 * channel (fd 3, a memfd) to a descriptor of its own and closes 3, then
 * compiles the code (SyntaxError and ValueError: syntax_error), exec's it
 * in a fresh globals dict (an exception at top level: error with its
 * type), runs setup, then each test on its own in that namespace:
 * AssertionError fails the test, another exception errs; every test runs
 * so that passed of total is counted, and the first test not passed
 * decides the outcome, its traceback's last lines going to stderr.
 * MemoryError is killed "memory", OSError EFBIG "file_size", OSError
 * EAGAIN (fork, thread) and "can't start new thread" "processes". The
 * one result line carries the nonce it was given, which the candidate
 * never sees in its input.
 */
#include <string.h>

#include "sandbox.h"
#include "../base/hash.h"

static const char harness[] =
    "import sys, os, json, errno, traceback\n"
    "def _graveyard_harness():\n"
    "    write, dumps, read = os.write, json.dumps, os.read\n"
    "    getpid, _exit, me = os.getpid, os._exit, os.getpid()\n"
    "    fmt = traceback.format_exception\n"
    "    chunks = []\n"
    "    while True:\n"
    "        b = read(0, 65536)\n"
    "        if not b:\n"
    "            break\n"
    "        chunks.append(b)\n"
    "    os.close(0)\n"
    "    os.open(\"/dev/null\", os.O_RDONLY)\n"
    "    prog = json.loads(b\"\".join(chunks))\n"
    "    chunks = None\n"
    "    nonce = prog.pop(\"nonce\")\n"
    "    rfd = os.dup(3)\n"
    "    os.close(3)\n"
    "    os.set_inheritable(rfd, False)\n"
    "    res = {\"outcome\": \"passed\", \"passed\": 0, \"total\": "
    "len(prog[\"tests\"]),\n"
    "           \"exception\": \"\", \"limit\": \"\", \"failed_test\": -1}\n"
    "\n"
    "    def kind(e):\n"
    "        if isinstance(e, MemoryError):\n"
    "            return \"killed\", \"memory\"\n"
    "        if isinstance(e, OSError) and e.errno == errno.EFBIG:\n"
    "            return \"killed\", \"file_size\"\n"
    "        if isinstance(e, OSError) and e.errno == errno.EAGAIN:\n"
    "            return \"killed\", \"processes\"\n"
    "        if isinstance(e, RuntimeError) and \"new thread\" in str(e):\n"
    "            return \"killed\", \"processes\"\n"
    "        if isinstance(e, AssertionError):\n"
    "            return \"failed\", \"\"\n"
    "        return \"error\", \"\"\n"
    "\n"
    "    def first(outcome, e, limit, test):\n"
    "        if res[\"failed_test\"] >= 0 or res[\"outcome\"] != \"passed\":\n"
    "            return\n"
    "        res[\"outcome\"] = outcome\n"
    "        res[\"exception\"] = \"\" if outcome in (\"failed\", \"killed\") "
    "else type(e).__name__\n"
    "        res[\"limit\"] = limit\n"
    "        res[\"failed_test\"] = test\n"
    "        tb = fmt(type(e), e, e.__traceback__.tb_next if e.__traceback__ "
    "else None)\n"
    "        try:\n"
    "            sys.stdout.flush()\n"
    "            sys.stderr.write(\"\".join(tb[-12:]))\n"
    "            sys.stderr.flush()\n"
    "        except BaseException:\n"
    "            pass\n"
    "\n"
    "    def mine():\n"
    "        # a process the candidate forked ends here, silently: only the\n"
    "        # harness's own process grades and writes the result\n"
    "        if getpid() != me:\n"
    "            try:\n"
    "                sys.stdout.flush()\n"
    "                sys.stderr.flush()\n"
    "            finally:\n"
    "                _exit(0)\n"
    "\n"
    "    def run(src, name, g):\n"
    "        try:\n"
    "            exec(compile(src, name, \"exec\"), g)\n"
    "            return None\n"
    "        except BaseException as e:\n"
    "            return e\n"
    "        finally:\n"
    "            mine()\n"
    "\n"
    "    g = {\"__name__\": \"__main__\", \"__builtins__\": __builtins__}\n"
    "    try:\n"
    "        code = compile(prog[\"code\"], \"<candidate>\", \"exec\")\n"
    "    except (SyntaxError, ValueError) as e:\n"
    "        first(\"syntax_error\", e, \"\", 0 if res[\"total\"] else -1)\n"
    "        code = None\n"
    "    if code is not None:\n"
    "        e = None\n"
    "        try:\n"
    "            exec(code, g)\n"
    "        except BaseException as x:\n"
    "            e = x\n"
    "        mine()\n"
    "        if e is None and prog.get(\"setup\"):\n"
    "            e = run(prog[\"setup\"], \"<setup>\", g)\n"
    "        if e is not None:\n"
    "            o, lim = kind(e)\n"
    "            first(\"error\" if o == \"failed\" else o, e, lim, 0 if "
    "res[\"total\"] else -1)\n"
    "        else:\n"
    "            for i, t in enumerate(prog[\"tests\"]):\n"
    "                e = run(t, \"<test %d>\" % i, g)\n"
    "                if e is None:\n"
    "                    res[\"passed\"] += 1\n"
    "                    continue\n"
    "                o, lim = kind(e)\n"
    "                first(o, e, lim, i)\n"
    "    try:\n"
    "        sys.stdout.flush()\n"
    "        sys.stderr.flush()\n"
    "    except BaseException:\n"
    "        pass\n"
    "    res[\"nonce\"] = nonce\n"
    "    line = (dumps(res) + \"\\n\").encode()\n"
    "    while line:\n"
    "        line = line[write(rfd, line):]\n"
    "_graveyard_harness()\n";

const char *sandbox_harness(void)
{
    return harness;
}

const char *sandbox_harness_sha256(void)
{
    static char hex[65];

    if (hex[0] == '\0')
        hash_bytes(harness, strlen(harness), hex);
    return hex;
}
