/*
 * cmd_init.c - graveyard init DIR: a folder of GGUF files made a ladder
 * config a person can read and edit, and the one command that runs it
 * (docs/init.md). The reading and ordering are input/ladderinit.h's; this
 * is the shell: flags, where the questions and the server are, the file.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../rundir/outfile.h"
#include "../../util/util.h"
#include "../base/cli.h"
#include "../input/config.h"
#include "../input/ladderinit.h"
#include "../input/longitem.h"
#include "../input/questions.h"
#include "commands.h"
#include "init.h"

/* The study's split, as shipped: beside the binary in a build (build/..
 * /data, or build/sanitize/../../data) or an install (bin/../share/
 * graveyard/data), or where GRAVEYARD_DATA says. */
#define SPLIT "gsm8k/heldout-250.jsonl"

static const char init_about[] =
    "Reads every GGUF file in DIR by its header (its type, bits per\n"
    "weight, general.name; a split's parts as one file), orders them\n"
    "into a ladder by bits per weight, takes the highest precision as\n"
    "the reference and sets other files of one type beside the chain\n"
    "as side rungs, then writes a ladder config with a \"_comment\" on\n"
    "each rung and prints the one command that runs it. The config's\n"
    "paths are read against its own folder (docs/config.md, \"Paths\").\n";

static const char init_after[] =
    "example: graveyard init ~/models/gemma --llama ~/llama.cpp\n"
    "Exit status: 0 written, 1 a write failed, 2 bad input (no GGUF, a\n"
    "file that is not one, a split with a part missing: one line names\n"
    "it). docs/init.md.\n";

/* The path (absolute) of a file shipped in data/ (name is its path
 * there: SPLIT, "toolcalls/items.jsonl"), or "" when none is found. */
static void find_shipped(const char *name, char *out, size_t size)
{
    char exe[PATH_MAX], cand[2 * PATH_MAX + 64], *slash, *real;
    const char *env = getenv("GRAVEYARD_DATA");
    ssize_t n;

    out[0] = '\0';
    if (env != NULL && env[0] != '\0') {
        snprintf(cand, sizeof(cand), "%s/%s", env, name);
        if ((real = realpath(cand, NULL)) != NULL) {
            snprintf(out, size, "%s", real);
            free(real);
        }
        return;
    }
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return;
    exe[n] = '\0';
    if ((slash = strrchr(exe, '/')) == NULL)
        return;
    *slash = '\0';
    {
        /* a build (build/graveyard, or build/sanitize/graveyard), an
         * install (bin/graveyard) */
        static const char *const rel[] = {"/../data/", "/../../data/",
                                          "/../share/graveyard/data/"};
        for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
            snprintf(cand, sizeof(cand), "%s%s%s", exe, rel[i], name);
            if ((real = realpath(cand, NULL)) != NULL) {
                snprintf(out, size, "%s", real);
                free(real);
                return;
            }
        }
    }
}

/* --questions FILE into out (absolute): FILE as given, or, when it is
 * not there and is named "data/NAME", the file shipped as NAME (the
 * built-in tool-call items: --questions data/toolcalls/items.jsonl from
 * any folder). -1, said, when neither is. */
static int find_questions(const char *file, char *out, size_t size)
{
    char *real = realpath(file, NULL);
    int e = errno;

    if (real != NULL) {
        snprintf(out, size, "%s", real);
        free(real);
        return 0;
    }
    out[0] = '\0';
    if (e == ENOENT && strncmp(file, "data/", 5) == 0)
        find_shipped(file + 5, out, size);
    if (out[0] != '\0')
        return 0;
    cli_error("init", "cannot read questions '%s': %s", file, strerror(e));
    return -1;
}

/* The task a question file asks for: "tool-call" when its first item is
 * a tool item or a line of BFCL's (docs/toolcalls.md), "code" when it is
 * a code item (HumanEval's or MBPP's, docs/code.md), else NULL (the
 * config's default). */
static const char *questions_task(const char *path)
{
    struct questions qs;
    char msg[600];

    if (questions_load_texts(path, 1, GRADER_REF_CODE, &qs, msg,
                             sizeof(msg)) == 0) {
        questions_release(&qs);
        return "code";
    }
    if (questions_load_texts(path, 1, GRADER_REF_CALLS, &qs, msg,
                             sizeof(msg)) != 0)
        return NULL;
    questions_release(&qs);
    return "tool-call";
}

/* The folder's last name ("/models/gemma/" is "gemma"), usable as a rung
 * name is, into out; "ladder" when nothing usable is left. */
static void folder_name(const char *dir, char *out, size_t size)
{
    char copy[PATH_MAX], *p, *q;
    size_t n;

    snprintf(copy, sizeof(copy), "%s", dir);
    n = strlen(copy);
    while (n > 1 && copy[n - 1] == '/')
        copy[--n] = '\0';
    p = strrchr(copy, '/');
    p = p ? p + 1 : copy;
    for (q = p; *q; q++)
        if (!(*q >= 'a' && *q <= 'z') && !(*q >= 'A' && *q <= 'Z') &&
            !(*q >= '0' && *q <= '9') && *q != '.' && *q != '_' && *q != '-')
            *q = '_';
    snprintf(out, size, "%s", cli_rung_name_ok(p) ? p : "ladder");
}

/* c (taken) with "lengths" in the place of "questions": the ladder then
 * makes its long items itself (docs/longctx.md, "A ladder of lengths"). */
static json_t *with_lengths(json_t *c, const long *len, size_t n)
{
    json_t *out = json_object(), *list = json_array(), *v;
    const char *k;

    if (out == NULL || list == NULL)
        util_oom("the config");
    for (size_t i = 0; i < n; i++)
        if (json_array_append_new(list, json_integer(len[i])) != 0)
            util_oom("the config");
    json_object_foreach(c, k, v)
    {
        int rc = strcmp(k, "questions") == 0
                     ? json_object_set(out, "lengths", list)
                     : json_object_set(out, k, v);
        if (rc != 0)
            util_oom("the config");
    }
    json_decref(list);
    json_decref(c);
    /* below 2K, cwe's list alone does not fit (about 1,300 tokens), and a
     * coded word of fwe (about 10 tokens a step) cannot come within 1 %
     * of the length: both left out, said, rather than refused when the
     * ladder makes them */
    if (n > 0 && len[0] < 2048 &&
        json_object_set_new(
            out, "long",
            json_pack("{s:s,s:[s,s,s,s,s]}", "_comment",
                      "cwe and fwe left out: they do not fit under 2K tokens "
                      "(docs/longctx.md)",
                      "kinds", "niah-single", "niah-multikey",
                      "niah-multivalue", "niah-multiquery", "vt")) != 0)
        util_oom("the config");
    return out;
}

static int write_config(const struct init_args *a, const struct init_plan *p,
                        const char *out, const char *questions,
                        const char *binary, const char *name,
                        const long *lengths, size_t nlen)
{
    char run_dir[200], msg[4400], *text;
    const char *task = questions[0] ? questions_task(questions) : NULL;
    json_t *c;
    int rc;

    snprintf(run_dir, sizeof(run_dir), "runs/%s", name);
    c = init_config(p, p->f[0].general[0] ? p->f[0].general : name, questions,
                    run_dir, binary, a->dir);
    if (c != NULL && nlen > 0)
        c = with_lengths(c, lengths, nlen);
    if (c != NULL && task != NULL &&
        json_object_set_new(c, "task", json_string(task)) != 0)
        util_oom("the config");
    text = c ? json_dumps(c, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(c);
    if (text == NULL)
        util_oom("the config");
    {
        size_t n = strlen(text);
        char *line = xrealloc(NULL, n + 2);
        memcpy(line, text, n);
        line[n] = '\n';
        line[n + 1] = '\0';
        rc = outfile_write(out, line, n + 1, msg, sizeof(msg));
        free(line);
    }
    free(text);
    if (rc != 0) {
        cli_error("init", "%s", msg);
        return EXIT_FAILED;
    }
    return EXIT_OK;
}

/* What the user will see: each rung in order, then the command. */
static void say(const struct init_plan *p, const char *out)
{
    size_t i;

    printf("wrote %s: %zu files, the reference %s\n", out, p->n,
           p->f[p->ref].name);
    for (i = 0; i < p->n; i++)
        printf("  %-16s %6.2f bpw  %s%s\n", p->f[i].name, p->f[i].bpw,
               p->f[i].path, p->f[i].side ? "  (side rung)" : "");
    printf("run it: graveyard ladder %s\n", out);
}

void init_default_out(const char *dir, char *out, size_t size)
{
    char name[80], *real = realpath(dir, NULL);

    folder_name(real != NULL ? real : dir, name, sizeof(name));
    free(real);
    snprintf(out, size, "%s.json", name);
}

int init_write(const struct init_args *a, char *written, size_t size)
{
    struct init_plan *p = xrealloc(NULL, sizeof(*p));
    char msg[4400], questions[PATH_MAX], binary[PATH_MAX], out[PATH_MAX],
        name[80], dir[PATH_MAX], why[300], *real;
    long lengths[CONFIG_MAX_LENGTHS];
    size_t nlen = 0;
    struct buf lb = {0};
    int rc = EXIT_USAGE;

    if ((real = realpath(a->dir, NULL)) == NULL) {
        cli_error("init", "cannot read folder '%s': %s", a->dir,
                  strerror(errno));
        free(p);
        return EXIT_USAGE;
    }
    snprintf(dir, sizeof(dir), "%s", real);
    free(real);
    folder_name(dir, name, sizeof(name));
    if (a->lengths != NULL &&
        (a->questions != NULL ||
         longitem_lengths(a->lengths, lengths, CONFIG_MAX_LENGTHS, &nlen, why,
                          sizeof(why)) != 0)) {
        cli_error("init", "%s%s",
                  a->questions ? "--lengths and --questions: long items are "
                                 "made for lengths; give one"
                               : "--lengths: ",
                  a->questions ? "" : why);
        goto out;
    }
    if (a->lengths != NULL)
        questions[0] = '\0'; /* not asked: the ladder makes them */
    else if (a->questions != NULL) {
        if (find_questions(a->questions, questions, sizeof(questions)) != 0)
            goto out;
    } else {
        find_shipped(SPLIT, questions, sizeof(questions));
        if (questions[0] == '\0') {
            cli_error("init",
                      "cannot find the shipped questions (" SPLIT
                      " beside graveyard, or in $GRAVEYARD_DATA): give "
                      "--questions FILE");
            goto out;
        }
    }
    if (a->llama != NULL) {
        const char *l = cli_llama_path(a->llama, &lb);
        if (l == NULL || (real = realpath(l, NULL)) == NULL) {
            cli_error("init", "--llama '%s': no llama-server there", a->llama);
            goto out;
        }
        snprintf(binary, sizeof(binary), "%s", real);
        free(real);
    } else
        snprintf(binary, sizeof(binary), "llama-server");
    if (a->out != NULL)
        snprintf(out, sizeof(out), "%s", a->out);
    else
        snprintf(out, sizeof(out), "%s.json", name);
    if (cli_out_absent("init", out, a->force) != 0)
        goto out;
    if (init_scan(dir, p, msg, sizeof(msg)) != 0 ||
        init_order(p, msg, sizeof(msg)) != 0) {
        cli_error("init", "%s", msg);
        goto out;
    }
    rc = write_config(a, p, out, questions, binary, name, lengths, nlen);
    if (rc == EXIT_OK)
        say(p, out);
    if (rc == EXIT_OK && written != NULL)
        snprintf(written, size, "%s", out);
out:
    buf_release(&lb);
    free(p);
    return rc;
}

int cmd_init(int argc, char **argv)
{
    const char *pos[1];
    struct init_args a = {0};
    size_t npos = 0;
    int rc;
    const struct cli_opt opts[] = {
        CLI_STRING("--llama", "PATH", &a.llama,
                   "the llama-server binary, or a llama.cpp folder "
                   "(build/bin/llama-server in it); default llama-server on "
                   "PATH"),
        CLI_STRING("--out", "CONFIG", &a.out,
                   "where the config goes (default DIRNAME.json "
                   "here)"),
        CLI_STRING("--questions", "FILE", &a.questions,
                   "the questions (default: the study's 250-question GSM8K "
                   "split shipped with graveyard; data/NAME, a file shipped "
                   "with it, e.g. data/toolcalls/items.jsonl)"),
        CLI_STRING("--lengths", "LIST", &a.lengths,
                   "long contexts instead: \"lengths\" (4K,16K: K is 1024) "
                   "in place of \"questions\", the ladder making its long "
                   "items (docs/longctx.md)"),
        CLI_SWITCH("--force", &a.force, "write over an existing CONFIG"),
        CLI_END};
    const struct cli_command cmd = {"init",
                                    "graveyard init DIR [--llama PATH] [--out "
                                    "CONFIG] [--questions FILE | --lengths "
                                    "LIST] [--force]",
                                    init_about,
                                    init_after,
                                    opts,
                                    "DIR",
                                    1,
                                    1};

    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
        return rc;
    a.dir = pos[0];
    return init_write(&a, NULL, 0);
}
