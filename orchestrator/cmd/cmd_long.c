/*
 * cmd_long.c - graveyard long: long-context items made here (haystack.h),
 * each fitted to each length in a llama-server's own tokens, written as a
 * question file of recipes (input/longitem.h) that any ladder then asks
 * (docs/longctx.md, "Making a question file"); and the same for a
 * config's "lengths", in a server of the ladder's own files started here
 * (long.h: the ladder calls it before its first rung).
 */
#include "long.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../haystack/haystack.h"
#include "../../rundir/files.h"
#include "../../rundir/outfile.h"
#include "../../rundir/rundir.h"
#include "../../util/util.h"
#include "../base/cli.h"
#include "../input/longitem.h"
#include "../run/runplan.h"
#include "../server/tokenize.h"
#include "commands.h"

#define LONG_MAX_LENGTHS CONFIG_MAX_LENGTHS /* the grader's too */
#define COUNT_TIMEOUT_MS 120000 /* one /tokenize of a 2^24-token prompt */
#define COUNT_CTX                                                             \
    2048                   /* the counting server's -c: /tokenize             \
                              needs no context */
#define LONG_LINE_MAX 4096 /* a recipe's line, with its answers */

static const char long_about[] =
    "Makes long-context items in the shape of RULER (needles in a\n"
    "haystack of filler made here, variable tracking, common and frequent\n"
    "words: no download), each fitted to each length in the tokens of the\n"
    "llama-server at --tokenize (its POST /tokenize: the model's own\n"
    "tokenizer, so 16K is 16K tokens of that model), and writes them as a\n"
    "question file of recipes: kind, seed, index, fill, the tokens counted,\n"
    "the needle's depth and the answers. The prompt is never written: a\n"
    "ladder makes it again from its recipe. Run a ladder on the file with\n"
    "the task 'ruler' (\"task\": \"ruler\" in its config).\n"
    "\n"
    "With --config, a ladder config's \"lengths\" and \"long\" say what is\n"
    "made, and a server of the ladder's smallest model file is started\n"
    "here to count (-c 2048, -ngl 0, --no-warmup; its log in the run\n"
    "folder's logs/long.tokenizer.log), then stopped. 'graveyard ladder'\n"
    "does this itself before its first rung.\n";

static const char long_after[] =
    "example: llama-server -m model.gguf -c 512 --port 8090 &\n"
    "         graveyard long --tokenize http://127.0.0.1:8090 --lengths "
    "4K,16K \\\n"
    "             --kinds niah-single,vt --items 30 --out long.jsonl\n"
    "Any rung's server will do: the rungs of one ladder share a tokenizer.\n"
    "example: graveyard long --config long-ladder.json   # \"lengths\": "
    "[...]\n"
    "Exit status: 0 written; 1 the server could not count; 2 bad input (a\n"
    "length of 0, an unknown kind, an item that does not fit its length:\n"
    "one line names it; nothing written). docs/longctx.md.\n";

struct long_args {
    const char *tokenize, *lengths, *kinds, *out, *config, *llama;
    long items, seed; /* 0 and -1: not given */
    int force;
};

/* What is made: the lengths, the kinds, how many of each, the seed. */
struct long_spec {
    long lengths[LONG_MAX_LENGTHS];
    size_t nlen;
    int want[HAYSTACK_NKINDS];
    long items;
    long long seed;
};

/* Where one is in s's items, in the one order the file holds them:
 * length, then kind, then index (make_all writes it, file_matches reads
 * it back). */
struct cursor {
    size_t li;
    int k;
    long i;
    int started;
};

/* The next item of s into c: 1, or 0 past the last. */
static int next_item(const struct long_spec *s, struct cursor *c)
{
    if (!c->started) {
        c->started = 1;
        c->li = 0;
        c->k = 0;
        c->i = -1;
    }
    while (c->li < s->nlen) {
        if (s->want[c->k] && ++c->i < s->items)
            return 1;
        c->i = -1;
        if (++c->k == HAYSTACK_NKINDS) {
            c->k = 0;
            c->li++;
        }
    }
    return 0;
}

/* An item's id: "KIND-INDEX@LENGTH", one question at each length. */
static void item_id(char *id, size_t size, enum haystack_kind k,
                    unsigned long index, long length)
{
    snprintf(id, size, "%s-%lu@%ld", haystack_kind_name(k), index, length);
}

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
static int one_item(struct counter *c, enum haystack_kind k, long long seed,
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
    item_id(id, sizeof(id), k, index, length);
    if ((rec = longitem_record(id, &li)) == NULL ||
        (line = json_dumps(rec, JSON_COMPACT | JSON_PRESERVE_ORDER)) == NULL)
        util_oom("a long item");
    json_decref(rec);
    buf_puts(out, line);
    buf_puts(out, "\n");
    free(line);
    return 0;
}

/* Every item of s into out, counted by t (at where, for people). */
static int make_all(const struct long_spec *s, struct tokenizer *t,
                    const char *where, struct buf *out)
{
    struct counter c = {t, ""};
    struct haystack_prompt p;
    struct cursor at = {0};
    int rc = 0, tty = isatty(2);
    unsigned long made = 0, total = 0;

    for (int k = 0; k < HAYSTACK_NKINDS; k++)
        total += s->want[k] ? (unsigned long)s->items * s->nlen : 0;
    memset(&p, 0, sizeof(p));
    while (rc == 0 && next_item(s, &at)) {
        rc = one_item(&c, (enum haystack_kind)at.k, s->seed, (uint32_t)at.i,
                      s->lengths[at.li], &p, out);
        made++;
        if (tty && rc == 0)
            fprintf(stderr, "\rlong: %lu of %lu items, %ld tokens ", made,
                    total, s->lengths[at.li]);
    }
    if (tty)
        fputc('\n', stderr);
    if (rc == 0)
        fprintf(stderr, "long: %lu items, %lu counts in %.1f s at %s\n", made,
                tokenize_calls(t), tokenize_seconds(t), where);
    haystack_prompt_release(&p);
    return rc;
}

/* s made, counted by t, written to path. */
static int make_write(const struct long_spec *s, struct tokenizer *t,
                      const char *where, const char *path)
{
    struct buf out = {0};
    char msg[4400];
    int rc;

    buf_init(&out, (size_t)1 << 30);
    if ((rc = make_all(s, t, where, &out)) == 0 &&
        outfile_write(path, out.p, out.len, msg, sizeof(msg)) != 0) {
        cli_error("long", "%s", msg);
        rc = EXIT_FAILED;
    }
    buf_release(&out);
    return rc;
}

/* A config's "lengths" and "long" as a spec. */
static void spec_of_config(const struct config *c, struct long_spec *s)
{
    memset(s, 0, sizeof(*s));
    memcpy(s->lengths, c->lengths, c->nlengths * sizeof(*c->lengths));
    s->nlen = c->nlengths;
    for (int k = 0; k < HAYSTACK_NKINDS; k++)
        s->want[k] = (c->long_kinds >> k) & 1u;
    s->items = c->long_items;
    s->seed = c->long_seed;
}

/* The rung whose server counts: the smallest file of the ladder there
 * now (the quickest to load; the rungs share one tokenizer), or NULL
 * when none is a file of ours. */
static const struct config_rung *counting_rung(const struct config *c)
{
    const struct config_rung *best = NULL;
    off_t size = 0;
    struct stat st;

    for (size_t i = 0; i < c->nrungs; i++) {
        const struct config_rung *r = &c->rungs[i];
        if (r->endpoint != NULL || stat(r->model, &st) != 0 ||
            !S_ISREG(st.st_mode))
            continue;
        if (best == NULL || st.st_size < size) {
            best = r;
            size = st.st_size;
        }
    }
    return best;
}

/* Each rung of c that starts a server of ours, with its settings: the
 * longest length must fit its context and the model's trained one,
 * before any server starts (longitem.h). 0, or EXIT_USAGE said. */
static int check_rungs(const char *cfg, const struct config *c,
                       const char *llama)
{
    struct runplan p;
    const char *rope;
    char msg[1400], what[64];
    int rc = 0;

    snprintf(what, sizeof(what), "the longest of 'lengths'");
    for (size_t i = 0; i < c->nrungs && rc == 0; i++) {
        struct runplan_flags f;
        if (c->rungs[i].endpoint != NULL)
            continue;
        memset(&f, 0, sizeof(f));
        f.config = cfg;
        f.rung = c->rungs[i].name;
        f.llama = llama;
        f.serve_only = 1;
        if ((rc = runplan_build(&p, &f, NULL, 0)) == 0 &&
            longitem_context_for(p.o.rung, what, c->lengths[c->nlengths - 1],
                                 p.o.max_tokens, p.ctx_given, &p.o.ctx,
                                 p.o.model, p.o.server_args, p.o.n_server_args,
                                 &rope, msg, sizeof(msg)) != 0) {
            cli_error("long", "%s: %s", cfg, msg);
            rc = EXIT_USAGE;
        }
        runplan_release(&p);
    }
    return rc;
}

/* The counting server's log path, its folders made. 0, or the exit
 * status said. */
static int log_path(const char *rundir, struct buf *log)
{
    struct buf dir = {0};
    char msg[4400];
    int rc = 0;

    if (rundir_path_buf(&dir, rundir, RD_LOGS_DIR, NULL) != 0 ||
        rundir_path_buf(log, rundir, RD_LONG_LOG, NULL) != 0) {
        cli_error("long", "'%.200s...': the run folder's path is too long",
                  rundir);
        rc = EXIT_USAGE;
    } else if (files_mkdir(rundir, 1, msg, sizeof(msg)) != 0 ||
               files_mkdir(dir.p, 0, msg, sizeof(msg)) != 0) {
        cli_error("long", "%s", msg);
        rc = files_exit_code(errno);
    }
    buf_release(&dir);
    return rc;
}

/* A server of c's counting rung started, the items made and written to
 * out, the server stopped. */
static int make_served(const char *cfg, const struct config *c,
                       const char *llama, const struct long_spec *s,
                       const char *out)
{
    const struct config_rung *r = counting_rung(c);
    struct runplan p;
    struct runplan_flags f;
    struct tokenizer *t;
    struct buf log = {0};
    char msg[2400], where[600];
    int rc;

    if (r == NULL) {
        cli_error("long",
                  "%s: no rung's model file is here to count tokens with "
                  "(every rung a served model, or not built yet): make '%s' "
                  "with 'graveyard long --tokenize URL --out %s' and the "
                  "config's lengths, kinds, items and seed, and the ladder "
                  "takes it",
                  cfg, out, out);
        return EXIT_USAGE;
    }
    memset(&f, 0, sizeof(f));
    f.config = cfg;
    f.rung = r->name;
    f.llama = llama;
    f.serve_only = 1;
    if ((rc = runplan_build(&p, &f, NULL, 0)) != 0) {
        runplan_release(&p);
        return rc;
    }
    /* a server to count with: no context to speak of, on no GPU's memory,
     * and not warmed up (a warm-up reads every weight) */
    p.o.ctx = COUNT_CTX;
    p.o.ngl = 0;
    p.o.gpu = c->ngpus > 0 ? c->gpus[0] : NULL;
    if (p.o.n_server_args < sizeof(p.args) / sizeof(*p.args))
        p.args[p.o.n_server_args++] = "--no-warmup";
    if ((rc = log_path(c->run_dir, &log)) != 0)
        ; /* said */
    else if ((t = tokenize_serve(&p.o, log.p, COUNT_TIMEOUT_MS, msg,
                                 sizeof(msg))) == NULL) {
        cli_error("long", "rung %s: %s", r->name, msg);
        rc = EXIT_FAILED;
    } else {
        snprintf(where, sizeof(where), "a server of rung %s (%.500s)", r->name,
                 r->model);
        fprintf(stderr, "long: counting in %s\n", where);
        rc = make_write(s, t, where, out);
        tokenize_close(t);
    }
    buf_release(&log);
    runplan_release(&p);
    return rc;
}

/* f's next line is the record of item id at seed (longitem_read's
 * checks, its answers the item's own): 0, else -1. */
static int next_is(FILE *f, char **line, size_t *cap, const char *id,
                   long long seed)
{
    ssize_t got = getline(line, cap, f);
    struct longitem it;
    char ref[4200], why[300];
    json_t *o;
    int rc = -1;

    if (got < 0 || (size_t)got > LONG_LINE_MAX ||
        (o = json_loadb(*line, (size_t)got, 0, NULL)) == NULL)
        return -1;
    if (json_is_string(json_object_get(o, "id")) &&
        strcmp(json_string_value(json_object_get(o, "id")), id) == 0 &&
        longitem_read(o, &it, ref, sizeof(ref), why, sizeof(why)) == 0 &&
        it.seed == seed)
        rc = 0;
    json_decref(o);
    return rc;
}

/* Whether path holds s's items, in s's order (each line's id and seed),
 * and nothing else. 0, or EXIT_USAGE said (another spec made it, or it
 * is not a file), EXIT_FAILED (unreadable). */
static int file_matches(const char *cfg, const char *path,
                        const struct long_spec *s)
{
    char msg[4400], id[96], *line = NULL;
    size_t cap = 0, n = 0;
    FILE *f = files_fopen_read(path, 1, msg, sizeof(msg));
    struct cursor at = {0};
    int rc = 0;

    if (f == NULL) {
        cli_error("ladder", "%s", msg);
        return errno == EINVAL || errno == ELOOP ? EXIT_USAGE : EXIT_FAILED;
    }
    while (rc == 0 && next_item(s, &at)) {
        n++;
        item_id(id, sizeof(id), (enum haystack_kind)at.k, (unsigned long)at.i,
                s->lengths[at.li]);
        rc = next_is(f, &line, &cap, id, s->seed);
    }
    if (rc == 0 && getline(&line, &cap, f) >= 0)
        rc = -1, n++;
    free(line);
    fclose(f);
    if (rc == 0)
        return 0;
    cli_error("ladder",
              "%s: line %zu is not the item that %s's \"lengths\" and "
              "\"long\" ask for (the file was made for other lengths, kinds, "
              "items or seed): run the changed config into a new run folder, "
              "or remove the file to make it again",
              path, n, cfg);
    return EXIT_USAGE;
}

int long_for_ladder(const char *cfg, const struct config *c, const char *llama)
{
    struct long_spec s;
    struct stat st;
    int rc;

    if (c->nlengths == 0)
        return 0;
    spec_of_config(c, &s);
    if (lstat(c->questions, &st) == 0)
        return file_matches(cfg, c->questions, &s);
    if ((rc = check_rungs(cfg, c, llama)) != 0 ||
        (rc = make_served(cfg, c, llama, &s, c->questions)) != 0)
        return rc;
    fprintf(stderr, "long: wrote %s\n", c->questions);
    return 0;
}

/* graveyard long --config: the config's items, into --out or the run
 * folder's long.jsonl. */
static int config_long(const struct long_args *a)
{
    struct config_over over = {NULL, NULL, ""};
    struct config c;
    struct long_spec s;
    struct buf llama = {0};
    char msg[4400];
    const char *out;
    int rc;

    if (a->lengths || a->kinds || a->items || a->seed >= 0) {
        cli_error("long",
                  "%s with --config: the config's \"lengths\" and \"long\" "
                  "say what is made",
                  a->lengths ? "--lengths"
                  : a->kinds ? "--kinds"
                  : a->items ? "--items"
                             : "--seed");
        return EXIT_USAGE;
    }
    if (a->llama != NULL &&
        (over.binary = cli_llama_path(a->llama, &llama)) == NULL) {
        cli_error("long", "path too long: '%.200s...'", a->llama);
        return EXIT_USAGE;
    }
    if (config_load(a->config, &over, &c, msg, sizeof(msg)) != 0) {
        cli_error("long", "%s", msg);
        buf_release(&llama);
        return EXIT_USAGE;
    }
    out = a->out ? a->out : c.questions;
    if (c.nlengths == 0) {
        cli_error("long", "%s: no \"lengths\" (docs/longctx.md)", a->config);
        rc = EXIT_USAGE;
    } else if ((rc = cli_out_absent("long", out, a->force)) == 0) {
        spec_of_config(&c, &s);
        if (files_check_target(out, msg, sizeof(msg)) != 0) {
            cli_error("long", "%s", msg);
            rc = EXIT_USAGE;
        } else if ((rc = check_rungs(a->config, &c, a->llama)) == 0 &&
                   (rc = make_served(a->config, &c, a->llama, &s, out)) == 0)
            printf("wrote %s: its task is ruler (docs/longctx.md)\n", out);
    }
    config_release(&c);
    buf_release(&llama);
    return rc;
}

/* graveyard long --tokenize URL: the flags' items, counted there. */
static int url_long(const struct long_args *a)
{
    struct long_spec s;
    struct tokenizer *t;
    char why[300], msg[4400];
    int rc;

    memset(&s, 0, sizeof(s));
    if (a->lengths == NULL || a->out == NULL) {
        cli_error("long", "%s is needed (see --help)",
                  a->lengths ? "--out FILE" : "--lengths LIST");
        return EXIT_USAGE;
    }
    if (a->llama != NULL) {
        cli_error("long", "--llama goes with --config");
        return EXIT_USAGE;
    }
    if (longitem_lengths(a->lengths, s.lengths, LONG_MAX_LENGTHS, &s.nlen, why,
                         sizeof(why)) != 0) {
        cli_error("long", "--lengths: %s", why);
        return EXIT_USAGE;
    }
    if ((rc = kinds_of(a->kinds ? a->kinds : "all", s.want)) != 0)
        return rc;
    s.items = a->items ? a->items : 30;
    s.seed = a->seed >= 0 ? a->seed : 1;
    if ((rc = cli_out_absent("long", a->out, a->force)) != 0)
        return rc;
    /* a link or a FIFO where FILE goes: said now, not after the counts */
    if (files_check_target(a->out, msg, sizeof(msg)) != 0) {
        cli_error("long", "%s", msg);
        return EXIT_USAGE;
    }
    if ((t = tokenize_open(a->tokenize, COUNT_TIMEOUT_MS, msg, sizeof(msg))) ==
        NULL) {
        cli_error("long", "--tokenize: %s", msg);
        return EXIT_USAGE;
    }
    rc = make_write(&s, t, a->tokenize, a->out);
    tokenize_close(t);
    if (rc == 0)
        printf("wrote %s: its task is ruler (docs/longctx.md)\n", a->out);
    return rc;
}

int cmd_long(int argc, char **argv)
{
    struct long_args a = {NULL, NULL, NULL, NULL, NULL, NULL, 0, -1, 0};
    size_t npos = 0;
    int rc;
    const struct cli_opt opts[] = {
        CLI_STRING("--tokenize", "URL", &a.tokenize,
                   "a running llama-server of the ladder's model "
                   "(http://127.0.0.1:PORT): lengths are counted by its "
                   "POST /tokenize"),
        CLI_STRING("--config", "CONFIG", &a.config,
                   "a ladder config with \"lengths\": its items, counted in a "
                   "server of its smallest model file started here, into its "
                   "run folder's long.jsonl (what 'graveyard ladder' does "
                   "first)"),
        CLI_STRING("--llama", "PATH", &a.llama,
                   "with --config: the llama-server (or llama.cpp folder) "
                   "over the config's"),
        CLI_STRING("--lengths", "LIST", &a.lengths,
                   "the lengths in tokens, comma-separated (4096,16K: K is "
                   "1024), each 1 to 16777216"),
        CLI_STRING("--out", "FILE", &a.out,
                   "the question file written (with --config: over the run "
                   "folder's long.jsonl)"),
        CLI_STRING("--kinds", "LIST", &a.kinds,
                   "all (default), or some of niah-single, niah-multikey, "
                   "niah-multivalue, niah-multiquery, vt, cwe, fwe"),
        CLI_LONG("--items", "N", &a.items, 1, LONGITEM_ITEMS_MAX,
                 "items of each kind at each length (default 30)"),
        CLI_LONG("--seed", "S", &a.seed, 0, LONGITEM_SEED_MAX,
                 "the seed every item is made from (default 1)"),
        CLI_SWITCH("--force", &a.force, "write over an existing FILE"),
        CLI_END};
    const struct cli_command cmd = {
        "long",
        "graveyard long --tokenize URL --lengths LIST --out FILE\n"
        "                [--kinds LIST] [--items N] [--seed S] [--force]\n"
        "graveyard long --config CONFIG [--llama PATH] [--out FILE] "
        "[--force]",
        long_about,
        long_after,
        opts,
        "",
        0,
        0};
    const char *pos[1];

    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
        return rc;
    if ((a.config == NULL) == (a.tokenize == NULL)) {
        cli_error("long", "give --tokenize URL or --config CONFIG%s",
                  a.config ? ", not both" : " (see --help)");
        return EXIT_USAGE;
    }
    return a.config ? config_long(&a) : url_long(&a);
}
