/*
 * ladderinit.c - a folder of GGUF files as a ladder (ladderinit.h).
 */
#include "ladderinit.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "../../util/util.h"
#include "../../weights/f16range.h"
#include "../../weights/recipe.h"
#include "../base/cli.h"

/* llama_ftype (llama.h) of both lineages: upstream's 0-40, ik_llama.cpp's
 * own from 135 (its _R4/_R8 repacked forms are named by their base). */
static const struct {
    long id;
    const char *name;
} ftypes[] = {
    {0, "F32"},       {1, "F16"},      {2, "Q4_0"},       {3, "Q4_1"},
    {7, "Q8_0"},      {8, "Q5_0"},     {9, "Q5_1"},       {10, "Q2_K"},
    {11, "Q3_K_S"},   {12, "Q3_K_M"},  {13, "Q3_K_L"},    {14, "Q4_K_S"},
    {15, "Q4_K_M"},   {16, "Q5_K_S"},  {17, "Q5_K_M"},    {18, "Q6_K"},
    {19, "IQ2_XXS"},  {20, "IQ2_XS"},  {21, "Q2_K_S"},    {22, "IQ3_XS"},
    {23, "IQ3_XXS"},  {24, "IQ1_S"},   {25, "IQ4_NL"},    {26, "IQ3_S"},
    {27, "IQ3_M"},    {28, "IQ2_S"},   {29, "IQ2_M"},     {30, "IQ4_XS"},
    {31, "IQ1_M"},    {32, "BF16"},    {33, "Q4_0_4_4"},  {34, "Q4_0_4_8"},
    {35, "Q4_0_8_8"}, {36, "TQ1_0"},   {37, "TQ2_0"},     {38, "MXFP4"},
    {39, "NVFP4"},    {40, "Q1_0"},    {41, "Q1_0_G128"}, {135, "Q6_0"},
    {136, "IQ1_BN"},  {137, "IQ2_BN"}, {138, "IQ2_K"},    {139, "IQ3_K"},
    {140, "IQ4_K"},   {141, "IQ5_K"},  {142, "IQ6_K"},    {145, "IQ4_KS"},
    {146, "IQ3_KL"},  {147, "IQ2_KS"}, {148, "IQ4_KSS"},  {149, "Q8_KV"},
    {150, "IQ5_KS"},  {151, "IQ2_KT"}, {152, "IQ3_KT"},   {153, "IQ4_KT"},
    {154, "IQ3_KS"},  {155, "IQ2_KL"}, {156, "IQ1_KT"},
};
#define NFTYPES (sizeof ftypes / sizeof *ftypes)

const char *init_ftype_name(long ftype)
{
    size_t i;

    for (i = 0; i < NFTYPES; i++)
        if (ftypes[i].id == ftype)
            return ftypes[i].name;
    return NULL;
}

/* The longest type word of ftypes[] in a file's name, as a word (what
 * stands either side is not a letter or a digit): "gemma-q4_k_m.gguf" is
 * Q4_K_M. "" when none. */
static void type_from_name(const char *base, char *out, size_t size)
{
    size_t i, best = 0, n = strlen(base), len;
    const char *p;

    out[0] = '\0';
    for (i = 0; i < NFTYPES; i++) {
        len = strlen(ftypes[i].name);
        for (p = base; (size_t)(p - base) + len <= n; p++) {
            if (strncasecmp(p, ftypes[i].name, len) != 0)
                continue;
            if ((p > base && isalnum((unsigned char)p[-1])) ||
                isalnum((unsigned char)p[len]))
                continue;
            if (len > best) {
                best = len;
                snprintf(out, size, "%s", ftypes[i].name);
            }
        }
    }
}

/* "name-00002-of-00003.gguf": part 2 of 3, or 0 when not a split's. */
static unsigned split_part(const char *base, unsigned *of)
{
    size_t n = strlen(base);
    unsigned a, b;
    char tail[32];

    /* -NNNNN-of-NNNNN.gguf is 20 bytes */
    if (n < 20 || strcmp(base + n - 5, ".gguf") != 0)
        return 0;
    if (sscanf(base + n - 20, "-%5u-of-%5u%31s", &a, &b, tail) != 3 ||
        strcmp(tail, ".gguf") != 0 || base[n - 20] != '-' || a == 0 ||
        b == 0 || a > b)
        return 0;
    *of = b;
    return a;
}

/* A metadata value of the recipe, as a string, or NULL. */
static const char *meta(json_t *recipe, const char *key)
{
    return json_string_value(
        json_object_get(json_object_get(recipe, "metadata"), key));
}

/* One GGUF (a split's first part) read into f. */
static int read_one(const char *dir, const char *base, struct init_file *f,
                    char *msg, size_t msgsize)
{
    json_t *r = NULL;
    const char *ft, *gn, *named;
    struct stat st;
    unsigned of = 1, part;
    char *end;
    long id;

    memset(f, 0, sizeof(*f));
    if (snprintf(f->path, sizeof(f->path), "%s/%s", dir, base) >=
        (int)sizeof(f->path)) {
        snprintf(msg, msgsize, "%s/%s: path too long", dir, base);
        return -1;
    }
    if (lstat(f->path, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(msg, msgsize, "%s: not a regular file (a link, a folder?)",
                 f->path);
        return -1;
    }
    if (recipe_of(f->path, &r, msg, msgsize) != F16R_OK)
        return -1;
    f->bpw = json_number_value(json_object_get(r, "bpw"));
    if (json_integer_value(json_object_get(r, "tensors")) <= 0) {
        snprintf(msg, msgsize, "%s: a GGUF without tensors (a vocabulary?)",
                 f->path);
        json_decref(r);
        return -1;
    }
    ft = meta(r, "general.file_type");
    id = ft ? strtol(ft, &end, 10) : -1;
    named = ft && *end == '\0' ? init_ftype_name(id) : NULL;
    if (named != NULL)
        snprintf(f->type, sizeof(f->type), "%s", named);
    else
        type_from_name(base, f->type, sizeof(f->type));
    gn = meta(r, "general.name");
    if (gn != NULL)
        snprintf(f->general, sizeof(f->general), "%s", gn);
    json_decref(r);
    f->bytes = (uint64_t)st.st_size;
    f->parts = 1;
    part = split_part(base, &of);
    if (part == 1 && of > 1) { /* every other part there, sizes added */
        char other[4096];
        size_t stem = strlen(f->path) - 20;
        for (unsigned k = 2; k <= of; k++) {
            snprintf(other, sizeof(other), "%.*s-%05u-of-%05u.gguf", (int)stem,
                     f->path, k, of);
            if (lstat(other, &st) != 0 || !S_ISREG(st.st_mode)) {
                snprintf(msg, msgsize,
                         "%s: part %u of %u is missing (%s): a split GGUF "
                         "loads only whole",
                         f->path, k, of, other);
                return -1;
            }
            f->bytes += (uint64_t)st.st_size;
        }
        f->parts = of;
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int init_scan(const char *dir, struct init_plan *p, char *msg, size_t msgsize)
{
    char *names[1024];
    size_t n = 0, i;
    struct dirent *e;
    unsigned of;
    DIR *d = opendir(dir);
    int rc = 0;

    memset(p, 0, sizeof(*p));
    if (d == NULL) {
        snprintf(msg, msgsize, "cannot read folder '%s': %s", dir,
                 strerror(errno));
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcasecmp(e->d_name + len - 5, ".gguf") != 0 ||
            e->d_name[0] == '.')
            continue;
        if (split_part(e->d_name, &of) > 1)
            continue; /* read with its first part */
        if (n == sizeof(names) / sizeof(names[0])) {
            rc = -1;
            break;
        }
        names[n++] = xstrdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof(names[0]), by_name);
    if (rc != 0 || n > CONFIG_MAX_RUNGS)
        snprintf(msg, msgsize,
                 "%s: %zu GGUF files, more than a ladder's %d rungs: put "
                 "the ones to compare in a folder of their own",
                 dir, n, CONFIG_MAX_RUNGS);
    else if (n == 0)
        snprintf(msg, msgsize, "%s: no .gguf file in it", dir);
    for (i = 0; rc == 0 && n > 0 && n <= CONFIG_MAX_RUNGS && i < n; i++)
        if (read_one(dir, names[i], &p->f[p->n], msg, msgsize) != 0)
            rc = -1;
        else
            p->n++;
    if (n == 0 || n > CONFIG_MAX_RUNGS)
        rc = -1;
    for (i = 0; i < n; i++)
        free(names[i]);
    return rc;
}

/* Highest bits per weight first; then the larger file; then the path. */
static int by_bits(const void *a, const void *b)
{
    const struct init_file *x = a, *y = b;

    if (x->bpw != y->bpw)
        return x->bpw > y->bpw ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* The file's name without its folder, ".gguf" and a split's tail, cut
 * to size (a name only: nothing opens it). */
static void stem_of(const struct init_file *f, char *out, size_t size)
{
    const char *base = strrchr(f->path, '/');
    size_t n;

    base = base ? base + 1 : f->path;
    n = strlen(base);
    if (f->parts > 1 && n > 20)
        n -= 20;
    else if (n > 5)
        n -= 5;
    if (n >= size)
        n = size - 1;
    memcpy(out, base, n);
    out[n] = '\0';
}

/* s made a usable rung name: other bytes as '_', no leading '.' or '-',
 * at most 64 bytes; "" when nothing is left. */
static void usable(char *s)
{
    char *p;
    size_t n;

    for (p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
            *p = '_';
    while (*s == '.' || *s == '-' || *s == '_')
        memmove(s, s + 1, strlen(s));
    n = strlen(s);
    if (n > 64)
        s[64] = '\0';
}

/* The prefix every stem shares, cut back to a separator ('-', '_', '.'),
 * so that "gemma-q4_0" and "gemma-q8_0" share "gemma-". */
static size_t shared_prefix(char stems[][128], size_t n)
{
    size_t len = strlen(stems[0]), i, k;

    for (i = 1; i < n; i++) {
        for (k = 0; k < len && stems[i][k] == stems[0][k]; k++)
            ;
        len = k;
    }
    while (len > 0 && strchr("-_.", stems[0][len - 1]) == NULL)
        len--;
    return n > 1 ? len : 0;
}

/* Whether name is taken by another file before index upto. */
static int taken(const struct init_plan *p, size_t upto, const char *name)
{
    size_t i;

    for (i = 0; i < upto; i++)
        if (strcmp(p->f[i].name, name) == 0)
            return 1;
    return 0;
}

/* Files of f's type (type "" counts as its own). */
static size_t same_type(const struct init_plan *p, const struct init_file *f)
{
    size_t i, k = 0;

    for (i = 0; i < p->n; i++)
        k += f->type[0] && strcmp(p->f[i].type, f->type) == 0;
    return k;
}

/* Of p's files of type (two or more), one stays in the chain: the
 * reference itself when it is of that type, else the one whose
 * general.name is the reference's, else the first by path; the others
 * become side rungs. */
static void side_rungs(struct init_plan *p, const char *type)
{
    size_t keep = p->n, k;

    if (strcmp(type, p->f[0].type) == 0)
        keep = 0; /* the reference's own type: it is the one */
    for (k = 1; k < p->n && keep == p->n; k++)
        if (strcmp(p->f[k].type, type) == 0 && p->f[0].general[0] &&
            strcmp(p->f[k].general, p->f[0].general) == 0)
            keep = k;
    if (keep == p->n) /* none is the reference's: the first by path */
        for (k = 1; k < p->n; k++)
            if (strcmp(p->f[k].type, type) == 0 &&
                (keep == p->n || strcmp(p->f[k].path, p->f[keep].path) < 0))
                keep = k;
    for (k = 1; k < p->n; k++)
        if (strcmp(p->f[k].type, type) == 0 && k != keep)
            p->f[k].side = 1;
}

int init_order(struct init_plan *p, char *msg, size_t msgsize)
{
    char stems[CONFIG_MAX_RUNGS][128], name[128];
    size_t i, k, cut;

    qsort(p->f, p->n, sizeof(p->f[0]), by_bits);
    p->ref = 0;
    for (i = 0; i < p->n; i++)
        stem_of(&p->f[i], stems[i], sizeof(stems[i]));
    cut = shared_prefix(stems, p->n);
    for (i = 0; i < p->n; i++) {
        struct init_file *f = &p->f[i];
        if (f->type[0] && same_type(p, f) == 1)
            snprintf(name, sizeof(name), "%s", f->type);
        else
            snprintf(name, sizeof(name), "%s", stems[i] + cut);
        usable(name);
        if (name[0] == '\0' || !cli_rung_name_ok(name))
            snprintf(name, sizeof(name), "R%zu", i + 1);
        /* unique: a suffix -2, -3... */
        for (k = 2; taken(p, i, name) && k < 100; k++) {
            char base[61];
            snprintf(base, sizeof(base), "%s", name);
            snprintf(name, sizeof(name), "%s-%u", base, (unsigned)k);
        }
        if (taken(p, i, name) || !cli_rung_name_ok(name)) {
            snprintf(msg, msgsize, "%s: no usable rung name for it", f->path);
            return -1;
        }
        snprintf(f->name, sizeof(f->name), "%s", name);
    }
    /* of the files of one type, one in the chain: each type once, at
     * its first file */
    for (i = 1; i < p->n; i++) {
        int first = 1;
        if (p->f[i].type[0] == '\0' || same_type(p, &p->f[i]) < 2)
            continue;
        for (k = 1; k < i && first; k++)
            first = strcmp(p->f[k].type, p->f[i].type) != 0;
        if (first)
            side_rungs(p, p->f[i].type);
    }
    return 0;
}

/* "4.9 GB", "812 MB", "93 KB" */
static void human(uint64_t b, char *out, size_t size)
{
    if (b >= 1000000000ULL)
        snprintf(out, size, "%.1f GB", (double)b / 1e9);
    else if (b >= 1000000ULL)
        snprintf(out, size, "%.0f MB", (double)b / 1e6);
    else
        snprintf(out, size, "%.0f KB", (double)b / 1e3);
}

/*
 * Two files of one type (two publishers' Q4_K_M, imatrix variants, a
 * QAT Q4_0) are the duel a user has in mind: each side rung against the
 * file of its type that stays in the chain, A the chain's (docs/duel.md,
 * docs/init.md). A list of pairs, or NULL when no type has two files.
 */
static json_t *init_duels(const struct init_plan *p)
{
    json_t *duels = NULL;
    size_t i, k;

    for (i = 0; i < p->n; i++) {
        if (!p->f[i].side)
            continue;
        for (k = 0; k < p->n; k++)
            if (!p->f[k].side && strcmp(p->f[k].type, p->f[i].type) == 0)
                break;
        if (k == p->n)
            continue;
        if (duels == NULL)
            duels = json_array();
        json_array_append_new(duels,
                              json_pack("[ss]", p->f[k].name, p->f[i].name));
    }
    return duels;
}

json_t *init_config(const struct init_plan *p, const char *name,
                    const char *questions, const char *run_dir,
                    const char *binary, const char *from)
{
    json_t *c = json_object(), *rungs = json_array(), *sides = json_array();
    json_t *duels;
    char note[512], size[32], why[256];
    size_t i;

    snprintf(why, sizeof(why),
             "written by graveyard init from %.150s: %zu files ordered by "
             "bits per weight; edit freely (docs/config.md)",
             from, p->n);
    json_object_set_new(c, "_comment", json_string(why));
    json_object_set_new(c, "name", json_string(name));
    json_object_set_new(c, "questions", json_string(questions));
    json_object_set_new(c, "run_dir", json_string(run_dir));
    json_object_set_new(c, "reference", json_string(p->f[p->ref].name));
    for (i = 0; i < p->n; i++) {
        const struct init_file *f = &p->f[i];
        json_t *r = json_object();
        human(f->bytes, size, sizeof(size));
        snprintf(note, sizeof(note), "%s%s%.2f bits per weight, %s%s%s%s%s",
                 f->type[0] ? f->type : "", f->type[0] ? ", " : "", f->bpw,
                 size, f->parts > 1 ? " in parts" : "",
                 f->general[0] ? ", general.name " : "", f->general,
                 i == p->ref ? "; the reference: the highest precision"
                 : f->side   ? "; beside the chain: another file of its type"
                             : "");
        json_object_set_new(r, "name", json_string(f->name));
        json_object_set_new(r, "model", json_string(f->path));
        json_object_set_new(r, "_comment", json_string(note));
        json_array_append_new(f->side ? sides : rungs, r);
    }
    json_object_set_new(c, "rungs", rungs);
    if (json_array_size(sides) > 0)
        json_object_set_new(c, "side_rungs", sides);
    else
        json_decref(sides);
    if ((duels = init_duels(p)) != NULL)
        json_object_set_new(c, "duels", duels);
    json_object_set_new(c, "server", json_pack("{s:s}", "binary", binary));
    return c;
}
