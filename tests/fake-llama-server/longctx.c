/*
 * longctx.c - the fake llama-server's long-context side (longctx.h):
 * a cheap deterministic tokenizer of about 4 bytes a token on English
 * prose, POST /tokenize in upstream's shapes, the chat prompt's count,
 * the "needles" replies of a perfect reader of RULER's shapes, and the
 * length cliff past which answers die. docs/fake-llama-server.md, "Long
 * contexts", is the user's page.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "longctx.h"

/* ---- the tokenizer ------------------------------------------------------ */

enum { K_DIGIT, K_LETTER, K_SPACE, K_OTHER };

static int kind(unsigned char b)
{
    if (b >= '0' && b <= '9')
        return K_DIGIT;
    if ((b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') || b >= 0x80)
        return K_LETTER;
    if (b == ' ' || (b >= '\t' && b <= '\r'))
        return K_SPACE;
    return K_OTHER;
}

static unsigned piece_id(const char *p, size_t n)
{
    uint32_t h = 2166136261u;

    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 16777619u;
    }
    return 3u + h % FAKE_TOK_VOCAB;
}

/* The special token's length at text[i] (its id in *id), or 0. */
static size_t special_at(const char *t, size_t n, size_t i, int ps,
                         unsigned *id)
{
    if (!ps)
        return 0;
    if (n - i >= 3 && memcmp(t + i, "<s>", 3) == 0) {
        *id = FAKE_TOK_BOS;
        return 3;
    }
    if (n - i >= 4 && memcmp(t + i, "</s>", 4) == 0) {
        *id = FAKE_TOK_EOS;
        return 4;
    }
    return 0;
}

size_t fake_tok_next(const char *t, size_t n, size_t i, int ps, unsigned *id)
{
    size_t start = i, j, cap, sp;
    unsigned sid;
    int k;

    if ((sp = special_at(t, n, i, ps, id)) > 0)
        return sp;
    if (kind((unsigned char)t[i]) == K_SPACE) {
        if (t[i] == ' ' && i + 1 < n &&
            kind((unsigned char)t[i + 1]) != K_SPACE &&
            special_at(t, n, i + 1, ps, &sid) == 0) {
            i++; /* the space joins the next piece */
        } else {
            while (i < n && kind((unsigned char)t[i]) == K_SPACE)
                i++;
            *id = piece_id(t + start, i - start);
            return i - start;
        }
    }
    k = kind((unsigned char)t[i]);
    cap = k == K_LETTER ? 6 : k == K_DIGIT ? 3 : 1;
    for (j = i; j < n && j - i < cap && kind((unsigned char)t[j]) == k; j++)
        ;
    *id = piece_id(t + start, j - start);
    return j - start;
}

long fake_tok_count(const char *t, size_t n)
{
    size_t i = 0;
    unsigned id;
    long c = 0;

    while (i < n) {
        i += fake_tok_next(t, n, i, 1, &id);
        c++;
    }
    return c;
}

const char *fake_tok_skip(const char *t, size_t n, long skip)
{
    size_t i = 0;
    unsigned id;

    for (; skip > 0 && i < n; skip--)
        i += fake_tok_next(t, n, i, 1, &id);
    return t + i;
}

long fake_chat_tokens(json_t *messages)
{
    long c = FAKE_CHAT_FIRST + FAKE_CHAT_GEN;
    size_t i, k;
    json_t *m, *part;

    json_array_foreach(messages, i, m)
    {
        json_t *content = json_object_get(m, "content");
        c += FAKE_CHAT_PER;
        if (json_is_string(content))
            c += fake_tok_count(json_string_value(content),
                                json_string_length(content));
        json_array_foreach(content, k, part)
        {
            json_t *text = json_object_get(part, "text");
            if (json_is_string(text))
                c += fake_tok_count(json_string_value(text),
                                    json_string_length(text));
        }
    }
    return c;
}

/* ---- POST /tokenize ----------------------------------------------------- */

/* {"error": {"code": 500, "message", "type": "server_error"}}, as the
 * real server answers the exceptions of nlohmann's json (new). */
static char *server_error(unsigned *status, const char *message)
{
    json_t *e = json_pack("{s:{s:i,s:s,s:s}}", "error", "code", 500, "message",
                          message, "type", "server_error");
    char *s = json_dumps(e, JSON_COMPACT);

    json_decref(e);
    *status = 500;
    return s;
}

/* Append the tokens of text (n bytes) to out: ids, or {"id","piece"}
 * objects with pieces (a string, or its bytes where the piece is not
 * whole UTF-8, as upstream). */
static void tokens_of(json_t *out, const char *t, size_t n, int ps, int pieces)
{
    size_t i = 0, len, b;
    unsigned id;

    while (i < n) {
        json_t *p;
        len = fake_tok_next(t, n, i, ps, &id);
        if (!pieces) {
            json_array_append_new(out, json_integer(id));
            i += len;
            continue;
        }
        if ((p = json_stringn(t + i, len)) == NULL) {
            p = json_array();
            for (b = 0; b < len; b++)
                json_array_append_new(p,
                                      json_integer((unsigned char)t[i + b]));
        }
        json_array_append_new(
            out, json_pack("{s:i,s:o}", "id", (json_int_t)id, "piece", p));
        i += len;
    }
}

static const char *type_name(json_t *v)
{
    return json_is_object(v)    ? "object"
           : json_is_array(v)   ? "array"
           : json_is_string(v)  ? "string"
           : json_is_boolean(v) ? "boolean"
           : json_is_null(v)    ? "null"
                                : "number";
}

/* content's tokens into out: a string, or upstream's mixed array (ids
 * kept, strings tokenized, BOS before a first string); 0, or the type
 * error's message into msg and -1. */
static int content_tokens(json_t *out, json_t *content, int add, int ps,
                          int pieces, char *msg, size_t size)
{
    size_t i;
    json_t *v;

    if (json_is_string(content)) {
        if (add)
            json_array_append_new(out, pieces ? json_pack("{s:i,s:s}", "id",
                                                          FAKE_TOK_BOS,
                                                          "piece", "<s>")
                                              : json_integer(FAKE_TOK_BOS));
        tokens_of(out, json_string_value(content), json_string_length(content),
                  ps, pieces);
        return 0;
    }
    if (!json_is_array(content)) {
        snprintf(msg, size,
                 "[json.exception.type_error.302] type must be string, but "
                 "is %s",
                 type_name(content));
        return -1;
    }
    json_array_foreach(content, i, v)
    {
        if (json_is_string(v)) {
            if (content_tokens(out, v, add && i == 0, ps, pieces, msg, size) !=
                0)
                return -1;
        } else if (json_is_number(v)) { /* a real cut, as get<int> */
            json_int_t id = json_is_integer(v)
                                ? json_integer_value(v)
                                : (json_int_t)json_real_value(v);
            const char *piece = id == FAKE_TOK_BOS   ? "<s>"
                                : id == FAKE_TOK_EOS ? "</s>"
                                                     : "";
            json_array_append_new(
                out, pieces ? json_pack("{s:I,s:s}", "id", id, "piece", piece)
                            : json_integer(id));
        } else {
            snprintf(msg, size,
                     "[json.exception.type_error.302] type must be number, "
                     "but is %s",
                     type_name(v));
            return -1;
        }
    }
    return 0;
}

char *fake_tokenize(const char *body, size_t len, int ik, unsigned *status)
{
    json_error_t jerr;
    json_t *req =
               json_loadb(body, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr),
           *tokens, *content;
    char msg[300], *s;
    int add, ps, pieces;

    if (req == NULL) {
        snprintf(msg, sizeof msg,
                 "[json.exception.parse_error.101] parse error at line %d, "
                 "column %d: syntax error while parsing value - %s",
                 jerr.line, jerr.column, jerr.text);
        return server_error(status, msg);
    }
    content = json_object_get(req, "content");
    add = json_is_true(json_object_get(req, "add_special"));
    ps = !json_is_false(json_object_get(req, "parse_special"));
    pieces = !ik && json_is_true(json_object_get(req, "with_pieces"));
    tokens = json_array();
    if (content != NULL &&
        content_tokens(tokens, content, add, ps, pieces, msg, sizeof msg)) {
        json_decref(tokens);
        json_decref(req);
        return server_error(status, msg);
    }
    json_decref(req);
    req = json_pack("{s:o}", "tokens", tokens);
    s = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    *status = 200;
    return s;
}

/* ---- the needles: RULER's shapes, read as a perfect reader would ------- */

/* The words of the shapes the fake knows, in one place: RULER's
 * templates (NVIDIA/RULER scripts/data/synthetic/constants.py, lm-eval's
 * ruler tasks) as haystack/haystack_render.c writes them. */
static const struct {
    const char *niah_ask_end;      /* the question's end: keys before it */
    const char *niah_ask;          /* ... after " for " that follows this */
    const char *niah_needle;       /* a needle's start, */
    const char *niah_is;           /* and what parts its key from its value */
    const char *vt_ask, *vt_end;   /* the value asked between these */
    const char *vt_var;            /* an assignment's start */
    const char *cwe_ask, *cwe_end; /* how many words between these */
    const char *fwe_start, *fwe_end; /* the coded text after this, the
                                        question's end */
} W = {" mentioned in the provided text?",
       "special magic ",
       "One of the special magic ",
       " is: ",
       "Find all variables that are assigned the value ",
       " in the text above",
       "VAR ",
       "What are the ",
       " most common words in the above list?",
       "Find the three most frequently appeared coded words. ",
       " most frequently appeared words in the above coded text?"};

struct answer {
    size_t n;
    char val[FAKE_ANS_MAX][FAKE_VAL_MAX];
    size_t at[FAKE_ANS_MAX]; /* where each one's statement is */
    const char *sep;
};

static const char *last_of(const char *s, const char *what, const char *end)
{
    const char *hit = NULL, *p = s;

    while ((p = strstr(p, what)) != NULL && p < end) {
        hit = p;
        p++;
    }
    return hit;
}

static void add_value(struct answer *a, const char *v, size_t n, size_t at)
{
    if (a->n >= FAKE_ANS_MAX || n == 0 || n >= FAKE_VAL_MAX)
        return;
    memcpy(a->val[a->n], v, n);
    a->val[a->n][n] = '\0';
    a->at[a->n++] = at;
}

/* Every value of key's needles before end, in the prompt's order. */
static void niah_key(const char *prompt, const char *end, const char *key,
                     size_t klen, struct answer *a)
{
    char pat[FAKE_VAL_MAX * 2];
    const char *p = prompt, *v, *e;

    if (klen + strlen(W.niah_is) + 6 > sizeof pat)
        return;
    snprintf(pat, sizeof pat, " for %.*s%s", (int)klen, key, W.niah_is);
    while ((p = strstr(p, pat)) != NULL && p < end) {
        const char *start = last_of(prompt, W.niah_needle, p);
        if (start != NULL && p - start < 40) {
            v = p + strlen(pat);
            for (e = v;
                 *e && *e != '\n' &&
                 !(*e == '.' && (e[1] == ' ' || e[1] == '\n' || e[1] == '\0'));
                 e++)
                ;
            add_value(a, v, (size_t)(e - v), (size_t)(start - prompt));
        }
        p++;
    }
}

/* niah: "... special magic TYPE for K1, K2, and K3 mentioned in ...". */
static int niah(const char *prompt, struct answer *a)
{
    const char *end = last_of(prompt, W.niah_ask_end, prompt + strlen(prompt));
    const char *ask, *k, *stop;

    if (end == NULL || (ask = last_of(prompt, W.niah_ask, end)) == NULL ||
        (k = strstr(ask, " for ")) == NULL || k > end)
        return 0;
    a->sep = ", ";
    for (k += 5; k < end; k = stop) {
        size_t skip;
        stop = end;
        skip = 0;
        for (const char *s = k; s < end && skip == 0; s++) {
            static const char *const seps[] = {", and ", " and ", ", "};
            for (size_t j = 0; j < 3 && skip == 0; j++)
                if (strncmp(s, seps[j], strlen(seps[j])) == 0) {
                    stop = s;
                    skip = strlen(seps[j]);
                }
        }
        niah_key(prompt, ask, k, (size_t)(stop - k), a);
        stop += skip;
    }
    return a->n > 0;
}

static size_t name_len(const char *s)
{
    size_t n = 0;

    while (kind((unsigned char)s[n]) == K_LETTER ||
           kind((unsigned char)s[n]) == K_DIGIT || s[n] == '_')
        n++;
    return n;
}

/* vt: the variables the asked value reaches through "VAR X = VALUE" and
 * "VAR Y = VAR X", in the order of the chain. */
static int vt(const char *prompt, struct answer *a)
{
    const char *ask = strstr(prompt, W.vt_ask), *vend, *p;
    char value[FAKE_VAL_MAX];
    size_t vlen, before;

    if (ask == NULL || (vend = strstr(ask, W.vt_end)) == NULL)
        return 0;
    ask += strlen(W.vt_ask);
    vlen = (size_t)(vend - ask);
    if (vlen == 0 || vlen >= sizeof value)
        return 0;
    memcpy(value, ask, vlen);
    value[vlen] = '\0';
    a->sep = " ";
    do { /* until no assignment adds a variable */
        before = a->n;
        for (p = prompt; (p = strstr(p, W.vt_var)) != NULL && p < ask; p++) {
            const char *name = p + strlen(W.vt_var), *src;
            size_t n = name_len(name), i, sl;
            int hit = 0;
            if (n == 0 || strncmp(name + n, " = ", 3) != 0)
                continue;
            src = name + n + 3;
            for (i = 0; i < a->n; i++)
                if (strlen(a->val[i]) == n && !strncmp(a->val[i], name, n))
                    break;
            if (i < a->n)
                continue; /* taken */
            if (strncmp(src, W.vt_var, strlen(W.vt_var)) == 0) {
                src += strlen(W.vt_var);
                sl = name_len(src);
                for (i = 0; i < a->n && !hit; i++)
                    hit = strlen(a->val[i]) == sl &&
                          strncmp(a->val[i], src, sl) == 0;
            } else {
                hit = strncmp(src, value, vlen) == 0 &&
                      name_len(src + vlen) == 0;
            }
            if (hit)
                add_value(a, name, n, (size_t)(p - prompt));
        }
    } while (a->n > before && a->n < FAKE_ANS_MAX);
    return a->n > 0;
}

struct word {
    const char *w; /* in the prompt */
    size_t n, first;
    long count;
};

static int by_count(const void *x, const void *y)
{
    const struct word *a = x, *b = y;

    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* A tally of words: each counted where it was first seen. */
struct tally {
    struct word *words;
    size_t n, cap;
};

static void count_word(struct tally *t, const char *prompt, const char *w,
                       size_t n)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        if (t->words[i].n == n && memcmp(t->words[i].w, w, n) == 0)
            break;
    if (i == t->n && t->n < t->cap)
        t->words[t->n++] = (struct word){w, n, (size_t)(w - prompt), 0};
    if (i < t->n)
        t->words[i].count++;
}

/* The want words of t that occur most (ties: first seen first) into a. */
static int most(struct tally *t, long want, struct answer *a)
{
    qsort(t->words, t->n, sizeof(*t->words), by_count);
    a->sep = ", ";
    for (size_t i = 0; i < t->n && (long)i < want; i++)
        add_value(a, t->words[i].w, t->words[i].n, t->words[i].first);
    free(t->words);
    return a->n > 0;
}

/* How many words the question asks for: digits, or "three" and the like
 * (RULER's fwe); 0 for neither. */
static long how_many(const char *s)
{
    static const char *const names[] = {"one",  "two", "three", "four",
                                        "five", "six", "seven", "eight",
                                        "nine", "ten", NULL};

    if (*s >= '0' && *s <= '9')
        return strtol(s, NULL, 10);
    for (long i = 0; names[i]; i++)
        if (strncmp(s, names[i], strlen(names[i])) == 0 &&
            s[strlen(names[i])] == ' ')
            return i + 1;
    return 0;
}

/* cwe: the N words of "1. word" lines that occur most often. */
static int cwe(const char *prompt, struct answer *a)
{
    const char *ask = strstr(prompt, W.cwe_end), *p, *q;
    struct tally t = {NULL, 0, 1u << 16};
    long want;
    size_t n;

    if (ask == NULL || (q = last_of(prompt, W.cwe_ask, ask)) == NULL ||
        (want = how_many(q + strlen(W.cwe_ask))) <= 0 ||
        (t.words = calloc(t.cap, sizeof(*t.words))) == NULL)
        return 0;
    for (p = prompt; (p = strchr(p, '\n')) != NULL && p < q; p++) {
        const char *w = p + 1;
        while (*w >= '0' && *w <= '9')
            w++;
        if (w == p + 1 || w[0] != '.' || w[1] != ' ' ||
            (n = name_len(w + 2)) == 0)
            continue;
        count_word(&t, prompt, w + 2, n);
    }
    return most(&t, want, a);
}

/* fwe: the N most frequent words of the coded text (after the intro's
 * end, before the question), the dots' noise left out. */
static int fwe(const char *prompt, struct answer *a)
{
    const char *ask = strstr(prompt, W.fwe_end), *p, *q, *from;
    struct tally t = {NULL, 0, 1u << 16};
    long want;
    size_t n;

    if (ask == NULL || (q = last_of(prompt, W.cwe_ask, ask)) == NULL ||
        (want = how_many(q + strlen(W.cwe_ask))) <= 0 ||
        (from = strstr(prompt, W.fwe_start)) == NULL || from > q ||
        (t.words = calloc(t.cap, sizeof(*t.words))) == NULL)
        return 0;
    for (p = from + strlen(W.fwe_start); p < q; p += n ? n : 1) {
        n = name_len(p);
        /* a whole word: between spaces (or the text's ends) */
        if (n > 0 && (p[n] == ' ' || p[n] == '\n') &&
            (p[-1] == ' ' || p == from + strlen(W.fwe_start)))
            count_word(&t, prompt, p, n);
        if (p[n] == '\n')
            break; /* the coded text is one line */
    }
    return most(&t, want, a);
}

/* ---- the cliff ---------------------------------------------------------- */

/* The model's cliff for cache type ctk: the first of "cliff" (an object
 * or a list of them) whose "ctk" is ctk or absent; NULL when none. */
static json_t *cliff_for(json_t *model, const char *ctk)
{
    json_t *c = json_object_get(model, "cliff"), *e;
    size_t i;

    if (json_is_object(c))
        c = json_pack("[O]", c);
    else if (json_is_array(c))
        json_incref(c);
    else
        return NULL;
    json_array_foreach(c, i, e)
    {
        json_t *k = json_object_get(e, "ctk");
        if (json_is_object(e) &&
            (k == NULL ||
             (json_is_string(k) && strcmp(json_string_value(k), ctk) == 0))) {
            json_decref(c); /* e stays the model's */
            return e;
        }
    }
    json_decref(c);
    return NULL;
}

/* Every letter and digit moved one on (9 -> 0, z -> a): a wrong value of
 * the same shape; digits only when letters_too is 0. */
static void rotate(char *s, int letters_too)
{
    for (; *s; s++) {
        if (*s >= '0' && *s <= '9')
            *s = *s == '9' ? '0' : (char)(*s + 1);
        else if (letters_too && *s >= 'a' && *s <= 'z')
            *s = *s == 'z' ? 'a' : (char)(*s + 1);
        else if (letters_too && *s >= 'A' && *s <= 'Z')
            *s = *s == 'Z' ? 'A' : (char)(*s + 1);
    }
}

/* Confident nonsense, no digit in it, from a hash of the prompt (new). */
static char *gibberish(const char *prompt)
{
    static const char *const syl[] = {"ka",  "lo",  "mi", "ren", "to", "vesh",
                                      "qua", "dor", "li", "zan", "po", "ith"};
    uint32_t h = (uint32_t)piece_id(prompt, strlen(prompt));
    char *s = malloc(512);
    size_t n;

    if (s == NULL)
        return NULL;
    n = (size_t)snprintf(s, 512, "Certainly! The answer is clearly");
    for (int w = 0; w < 14; w++) {
        s[n++] = ' ';
        for (int k = 0; k < 2 + (int)(h % 2); k++) {
            const char *y = syl[(h >> 3) % 12];
            h = h * 1103515245u + 12345u;
            memcpy(s + n, y, strlen(y));
            n += strlen(y);
        }
    }
    memcpy(s + n, ".", 2);
    return s;
}

/* The values joined by a's separator, each past the cliff (when above)
 * rotated unless cliff_depth keeps its statement's depth (new). */
static char *joined(const struct answer *a, const char *prompt, int above,
                    long keep)
{
    size_t len = strlen(prompt), i, n = 0, size = 16;
    char *s, v[FAKE_VAL_MAX];

    for (i = 0; i < a->n; i++)
        size += strlen(a->val[i]) + strlen(a->sep);
    if ((s = malloc(size)) == NULL)
        return NULL;
    s[0] = '\0';
    for (i = 0; i < a->n; i++) {
        double depth = len ? 100.0 * (double)a->at[i] / (double)len : 0;
        memcpy(v, a->val[i], sizeof v);
        if (above && !(depth < (double)keep || depth > 100.0 - (double)keep))
            rotate(v, 1);
        n += (size_t)snprintf(s + n, size - n, "%s%s", i ? a->sep : "", v);
    }
    return s;
}

/* The reply past the cliff for the right one right (new), or NULL. */
static char *past_cliff(json_t *cliff, const char *prompt, const char *right,
                        const struct answer *a)
{
    const char *mode = json_string_value(json_object_get(cliff, "mode"));
    json_t *content = json_object_get(cliff, "content");
    json_t *keep = json_object_get(cliff, "cliff_depth");
    char *s;

    if (mode != NULL && strcmp(mode, "empty") == 0)
        return strdup("");
    if (mode != NULL && strcmp(mode, "gibberish") == 0)
        s = gibberish(prompt);
    else if (json_is_string(content))
        s = strdup(json_string_value(content));
    else if (a->n > 0)
        s = joined(a, prompt, 1,
                   json_is_integer(keep) ? (long)json_integer_value(keep) : 0);
    else if (right != NULL && (s = strdup(right)) != NULL)
        rotate(s, 0);
    else
        s = NULL;
    /* never the needle above the cliff (cliff_depth's kept ones aside) */
    for (size_t i = 0; s != NULL && !json_is_integer(keep) && i < a->n; i++)
        for (char *hit; (hit = strstr(s, a->val[i])) != NULL;)
            *hit = '#';
    return s;
}

char *fake_longctx_reply(json_t *model, const char *ctk, json_t *rule,
                         const char *prompt, long count)
{
    struct answer a = {0};
    json_t *cliff = cliff_for(model, ctk ? ctk : "f16");
    json_t *tokens = json_object_get(cliff, "tokens");
    const char *right = json_string_value(json_object_get(rule, "content"));
    char *mine = NULL, *s;

    if (json_is_true(json_object_get(model, "needles")) &&
        (niah(prompt, &a) || (memset(&a, 0, sizeof a), vt(prompt, &a)) ||
         (memset(&a, 0, sizeof a), cwe(prompt, &a)) ||
         (memset(&a, 0, sizeof a), fwe(prompt, &a))))
        right = mine = joined(&a, prompt, 0, 0);
    if (!json_is_integer(tokens) || count <= json_integer_value(tokens))
        return mine;
    s = past_cliff(cliff, prompt, right, &a);
    free(mine);
    return s;
}
