/*
 * cmd_long.c - graveyard long: long-context items made here (haystack.h),
 * each fitted to each length in a llama-server's own tokens, written as a
 * question file of recipes (input/longitem.h) that any ladder then asks
 * (docs/longctx.md, "Making a question file").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../haystack/haystack.h"
#include "../../rundir/files.h"
#include "../../rundir/outfile.h"
#include "../../util/util.h"
#include "../base/cli.h"
#include "../input/longitem.h"
#include "../server/tokenize.h"
#include "commands.h"

#define LONG_MAX_LENGTHS 16 /* the grader's GRADER_MAX_LENGTHS */
#define LONG_ITEMS_MAX   10000
#define COUNT_TIMEOUT_MS 120000 /* one /tokenize of a 2^24-token prompt */

static const char long_about[] =
    "Makes long-context items in the shape of RULER (needles in a\n"
    "haystack of filler made here, variable tracking, common and frequent\n"
    "words: no download), each fitted to each length in the tokens of the\n"
    "llama-server at --tokenize (its POST /tokenize: the model's own\n"
    "tokenizer, so 16K is 16K tokens of that model), and writes them as a\n"
    "question file of recipes: kind, seed, index, fill, the tokens counted,\n"
    "the needle's depth and the answers. The prompt is never written: a\n"
    "ladder makes it again from its recipe. Run a ladder on the file with\n"
    "the task 'ruler' (\"task\": \"ruler\" in its config).\n";

static const char long_after[] =
    "example: llama-server -m model.gguf -c 512 --port 8090 &\n"
    "         graveyard long --tokenize http://127.0.0.1:8090 --lengths "
    "4K,16K \\\n"
    "             --kinds niah-single,vt --items 30 --out long.jsonl\n"
    "Any rung's server will do: the rungs of one ladder share a tokenizer.\n"
    "Exit status: 0 written; 1 the server could not count; 2 bad input (a\n"
    "length of 0, an unknown kind, an item that does not fit its length:\n"
    "one line names it; nothing written). docs/longctx.md.\n";

struct long_args {
    const char *tokenize, *lengths, *kinds, *out;
    long items, seed;
    int force;
};

/* The counter haystack_fit calls: the server's count, or -1 with the
 * reason kept. */
struct counter {
    struct tokenizer *t;
    char msg[600];
};

static long count_cb(void *ctx, const char *text, size_t len)
{
    struct counter *c = ctx;
    long n;

    return tokenize_count(c->t, text, len, &n, c->msg, sizeof(c->msg)) == 0
               ? n
               : -1;
}

/* The kinds asked: "all", or a list of names. 0, or EXIT_USAGE said. */
static int kinds_of(const char *list, int *want)
{
    const char *p = list, *e;
    char name[64];
    enum haystack_kind k;

    memset(want, 0, sizeof(int) * HAYSTACK_NKINDS);
    if (strcmp(list, "all") == 0) {
        for (int i = 0; i < HAYSTACK_NKINDS; i++)
            want[i] = 1;
        return 0;
    }
    do {
        size_t len;
        e = strchr(p, ',');
        len = e ? (size_t)(e - p) : strlen(p);
        snprintf(name, sizeof(name), "%.*s", (int)(len < 63 ? len : 63), p);
        if (len >= sizeof(name) || haystack_kind_parse(name, &k) != 0) {
            cli_error("long",
                      "--kinds: no kind '%s' (all, or some of: niah-single, "
                      "niah-multikey, niah-multivalue, niah-multiquery, vt, "
                      "cwe, fwe)",
                      name);
            return EXIT_USAGE;
        }
        want[k] = 1;
        p = e ? e + 1 : NULL;
    } while (p != NULL);
    return 0;
}

/* One item at one length: fitted, its record appended to out. 0, or the
 * exit status after one line. */
static int one_item(struct counter *c, enum haystack_kind k, long seed,
                    uint32_t index, long length, struct haystack_prompt *p,
                    struct buf *out)
{
    struct haystack_item it;
    struct haystack_fit fit;
    struct longitem li;
    char msg[700], id[96];
    json_t *rec;
    char *line;
    int rc;

    if (haystack_item_make(k, (uint64_t)seed, index, &it) != 0)
        util_oom("a long item");
    rc = haystack_fit(&it, length, count_cb, c, p, &fit, msg, sizeof(msg));
    if (rc == HAYSTACK_ECOUNT) {
        cli_error("long", "%s", c->msg);
        return EXIT_FAILED;
    }
    if (rc != 0) {
        cli_error("long", "%s%s", msg,
                  rc == HAYSTACK_ESHORT
                      ? " (a needle longer than the length: give a longer "
                        "length or leave this kind out)"
                      : "");
        return rc == HAYSTACK_ENOMEM ? EXIT_FAILED : EXIT_USAGE;
    }
    li = (struct longitem){(int)k, seed,       index,   fit.fill,
                           length, fit.tokens, it.depth};
    snprintf(id, sizeof(id), "%s-%u@%ld", haystack_kind_name(k), index,
             length);
    if ((rec = longitem_record(id, &li)) == NULL ||
        (line = json_dumps(rec, JSON_COMPACT | JSON_PRESERVE_ORDER)) == NULL)
        util_oom("a long item");
    json_decref(rec);
    buf_puts(out, line);
    buf_puts(out, "\n");
    free(line);
    return 0;
}

static int make_all(const struct long_args *a, const long *lengths,
                    size_t nlen, const int *want, struct buf *out)
{
    struct counter c = {NULL, ""};
    struct haystack_prompt p;
    char msg[700];
    size_t li;
    int rc = 0, tty = isatty(2);
    unsigned long made = 0, total = 0;

    for (int k = 0; k < HAYSTACK_NKINDS; k++)
        total += want[k] ? (unsigned long)a->items * nlen : 0;
    if ((c.t = tokenize_open(a->tokenize, COUNT_TIMEOUT_MS, msg,
                             sizeof(msg))) == NULL) {
        cli_error("long", "--tokenize: %s", msg);
        return EXIT_USAGE;
    }
    memset(&p, 0, sizeof(p));
    for (li = 0; li < nlen && rc == 0; li++)
        for (int k = 0; k < HAYSTACK_NKINDS && rc == 0; k++)
            for (long i = 0; want[k] && i < a->items && rc == 0; i++) {
                rc = one_item(&c, (enum haystack_kind)k, a->seed, (uint32_t)i,
                              lengths[li], &p, out);
                made++;
                if (tty && rc == 0)
                    fprintf(stderr, "\rlong: %lu of %lu items, %ld tokens ",
                            made, total, lengths[li]);
            }
    if (tty)
        fputc('\n', stderr);
    if (rc == 0)
        fprintf(stderr, "long: %lu items, %lu counts in %.1f s at %s\n", made,
                tokenize_calls(c.t), tokenize_seconds(c.t), a->tokenize);
    haystack_prompt_release(&p);
    tokenize_close(c.t);
    return rc;
}

int cmd_long(int argc, char **argv)
{
    struct long_args a = {NULL, NULL, "all", NULL, 30, 1, 0};
    long lengths[LONG_MAX_LENGTHS];
    int want[HAYSTACK_NKINDS], rc;
    size_t nlen = 0, npos = 0;
    char why[300], msg[4400];
    struct buf out = {0};
    const struct cli_opt opts[] = {
        CLI_NEEDED("--tokenize", "URL", &a.tokenize,
                   "a running llama-server of the ladder's model "
                   "(http://127.0.0.1:PORT): lengths are counted by its "
                   "POST /tokenize"),
        CLI_NEEDED("--lengths", "LIST", &a.lengths,
                   "the lengths in tokens, comma-separated (4096,16K: K is "
                   "1024), each 1 to 16777216"),
        CLI_NEEDED("--out", "FILE", &a.out, "the question file written"),
        CLI_STRING("--kinds", "LIST", &a.kinds,
                   "all (default), or some of niah-single, niah-multikey, "
                   "niah-multivalue, niah-multiquery, vt, cwe, fwe"),
        CLI_LONG("--items", "N", &a.items, 1, LONG_ITEMS_MAX,
                 "items of each kind at each length (default 30)"),
        CLI_LONG("--seed", "S", &a.seed, 0, LONGITEM_SEED_MAX,
                 "the seed every item is made from (default 1)"),
        CLI_SWITCH("--force", &a.force, "write over an existing FILE"),
        CLI_END};
    const struct cli_command cmd = {
        "long",
        "graveyard long --tokenize URL --lengths LIST --out FILE\n"
        "                [--kinds LIST] [--items N] [--seed S] [--force]",
        long_about,
        long_after,
        opts,
        "",
        0,
        0};

    const char *pos[1];

    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
        return rc;
    if (longitem_lengths(a.lengths, lengths, LONG_MAX_LENGTHS, &nlen, why,
                         sizeof(why)) != 0) {
        cli_error("long", "--lengths: %s", why);
        return EXIT_USAGE;
    }
    if ((rc = kinds_of(a.kinds, want)) != 0)
        return rc;
    if ((rc = cli_out_absent("long", a.out, a.force)) != 0)
        return rc;
    /* a link or a FIFO where FILE goes: said now, not after the counts */
    if (files_check_target(a.out, msg, sizeof(msg)) != 0) {
        cli_error("long", "%s", msg);
        return EXIT_USAGE;
    }
    buf_init(&out, (size_t)1 << 30);
    if ((rc = make_all(&a, lengths, nlen, want, &out)) == 0 &&
        outfile_write(a.out, out.p, out.len, msg, sizeof(msg)) != 0) {
        cli_error("long", "%s", msg);
        rc = EXIT_FAILED;
    }
    if (rc == 0)
        printf("wrote %s: its task is ruler (docs/longctx.md)\n", a.out);
    buf_release(&out);
    return rc;
}
