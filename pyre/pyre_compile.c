/*
 * pyre_compile.c - the tree pyre_parse.c makes into the program
 * pyre_match.c runs, as CPython 3.11's Lib/re/_compiler.py does it, its
 * classes under IGNORECASE included: a class holding a cased character
 * tests the lower case of the text's character against the lower cases
 * of its own, plus re._casefix's extra pairs (s and long s, the Greek
 * symbol forms...); a literal does the same on its own.
 */
#include "pyre_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Words of program and classes together: far past any real pattern. */
#define PROGRAM_MAX (1u << 22)

/* ---- the compiler ------------------------------------------------------- */

struct compiler {
    const struct pyre__tree *T;
    uint32_t *code;
    size_t n, cap;
    uint32_t *sets;
    size_t ns, capsets;
    /* the class being built: ranges, raw literals, upper-tested ranges */
    uint32_t *iv, *raw, *ur;
    size_t niv, capiv, nraw, capraw, nur, capur;
};

static int grow(uint32_t **w, size_t *cap, size_t need)
{
    size_t c = *cap ? *cap : 64;
    uint32_t *p;

    if (need <= *cap)
        return 0;
    if (need > PROGRAM_MAX)
        return PYRE_ELIMIT;
    while (c < need)
        c *= 2;
    p = pyre__reallocarray(*w, c, sizeof(**w));
    if (p == NULL)
        return PYRE_ENOMEM;
    *w = p;
    *cap = c;
    return 0;
}

static int emit(struct compiler *C, uint32_t w)
{
    int rc = grow(&C->code, &C->cap, C->n + 1);

    if (rc != 0)
        return rc;
    C->code[C->n++] = w;
    return 0;
}

static int emit2(struct compiler *C, uint32_t op, uint32_t arg)
{
    int rc = emit(C, op);

    return rc != 0 ? rc : emit(C, arg);
}

static int push2(uint32_t **w, size_t *n, size_t *cap, uint32_t a, uint32_t b)
{
    int rc = grow(w, cap, *n + 2);

    if (rc != 0)
        return rc;
    (*w)[(*n)++] = a;
    (*w)[(*n)++] = b;
    return 0;
}

static int iv_add(struct compiler *C, uint32_t lo, uint32_t hi)
{
    return push2(&C->iv, &C->niv, &C->capiv, lo, hi);
}

/* lo and the characters re._casefix pairs with it. */
static int iv_add_folded(struct compiler *C, uint32_t lo)
{
    uint32_t f[2];
    size_t i, n = pyre__fixes(lo, f);
    int rc = iv_add(C, lo, lo);

    for (i = 0; rc == 0 && i < n; i++)
        rc = iv_add(C, f[i], f[i]);
    return rc;
}

/* A range under IGNORECASE (_optimize_charset with a fixup): the lower
 * case of each BMP character in it (lower() is idempotent and the text's
 * character is lowered before the test, so the range itself stands for
 * the characters lower() leaves alone), their re._casefix pairs, and past
 * the BMP sre's RANGE_UNI_IGNORE. Sets *cased when it holds a cased
 * character. */
static int fold_range(struct compiler *C, uint32_t a, uint32_t b, int *cased)
{
    const uint32_t(*pairs)[2];
    uint32_t top = b < 0xffff ? b : 0xffff, key, f[2];
    size_t i, j, n;
    int rc = 0;

    if (a <= top) {
        rc = iv_add(C, a, top);
        n = pyre__lower_in(a, top, &pairs);
        for (i = 0; rc == 0 && i < n; i++)
            rc = iv_add_folded(C, pairs[i][1]);
        for (i = 0; rc == 0 && (key = pyre__fix_key(i)) != 0; i++) {
            size_t nf = key >= a && key <= top ? pyre__fixes(key, f) : 0;
            for (j = 0; rc == 0 && j < nf; j++)
                rc = iv_add(C, f[j], f[j]);
        }
        if (pyre__cased_in(a, top))
            *cased = 1;
    }
    if (rc == 0 && b > 0xffff) {
        rc = push2(&C->ur, &C->nur, &C->capur, a, b);
        *cased = 1;
    }
    return rc;
}

static int fold_item(struct compiler *C, const struct pyre__item *it,
                     int *cased)
{
    if (it->kind == GRADER__I_RANGE)
        return fold_range(C, it->lo, it->hi, cased);
    if (it->lo > 0xffff) {
        /* past the BMP sre keeps the literal as written (not lowered) and
         * tests the text's lower case against it */
        int rc = grow(&C->raw, &C->capraw, C->nraw + 1);
        *cased = 1;
        if (rc == 0)
            C->raw[C->nraw++] = it->lo;
        return rc;
    }
    if (pyre__cased_in(it->lo, it->lo))
        *cased = 1;
    return iv_add_folded(C, pyre__lower(it->lo));
}

static int iv_cmp(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;

    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Sort the ranges and merge those that touch. */
static void iv_merge(struct compiler *C)
{
    size_t i, out = 0, n = C->niv / 2;

    if (n == 0)
        return;
    qsort(C->iv, n, 2 * sizeof(*C->iv), iv_cmp);
    for (i = 1; i < n; i++) {
        uint32_t *last = &C->iv[2 * out], *r = &C->iv[2 * i];
        if (r[0] <= last[1] || r[0] - 1 == last[1]) {
            if (r[1] > last[1])
                last[1] = r[1];
        } else {
            out++;
            C->iv[2 * out] = r[0];
            C->iv[2 * out + 1] = r[1];
        }
    }
    C->niv = 2 * (out + 1);
}

/* Write the class being built to the pool: *k its offset. */
static int set_write(struct compiler *C, int negate, int lower, unsigned cats,
                     uint32_t *k)
{
    size_t need, at = C->ns;
    uint32_t *s, x;
    int rc;

    iv_merge(C);
    need = PYRE__SET_HEAD + C->niv + C->nraw + C->nur;
    if ((rc = grow(&C->sets, &C->capsets, C->ns + need)) != 0)
        return rc;
    s = C->sets + at;
    memset(s, 0, PYRE__SET_HEAD * sizeof(*s));
    s[0] = (negate ? PYRE__SET_NEGATE : 0) | (lower ? PYRE__SET_LOWER : 0) |
           (uint32_t)cats << 8;
    s[5] = (uint32_t)(C->niv / 2);
    s[6] = (uint32_t)C->nraw;
    s[7] = (uint32_t)(C->nur / 2);
    /* a list never grown is NULL, which memcpy may not take even for 0 */
    if (C->niv)
        memcpy(s + PYRE__SET_HEAD, C->iv, C->niv * sizeof(*s));
    if (C->nraw)
        memcpy(s + PYRE__SET_HEAD + C->niv, C->raw, C->nraw * sizeof(*s));
    if (C->nur)
        memcpy(s + PYRE__SET_HEAD + C->niv + C->nraw, C->ur,
               C->nur * sizeof(*s));
    for (x = 0; x < 128; x++)
        if (pyre__set_lists(s, x))
            s[1 + x / 32] |= 1u << (x % 32);
    C->ns += need;
    *k = (uint32_t)at;
    return 0;
}

/* A class (IN): sre's IN, or IN_UNI_IGNORE when IGNORECASE is on and the
 * class holds a cased character. */
static int compile_set(struct compiler *C, const struct pyre__node *n,
                       unsigned flags)
{
    const struct pyre__item *items = C->T->items + n->a;
    unsigned cats = 0;
    int cased = 0, rc = 0;
    uint32_t i, k;

    C->niv = C->nraw = C->nur = 0;
    for (i = 0; rc == 0 && i < n->b; i++) {
        if (items[i].kind == GRADER__I_CAT)
            cats |= items[i].lo;
        else if (flags & PYRE_IGNORECASE)
            rc = fold_item(C, &items[i], &cased);
        else
            rc = iv_add(C, items[i].lo, items[i].hi);
    }
    if (rc == 0)
        rc = set_write(C, n->flag, cased, cats, &k);
    return rc != 0 ? rc : emit2(C, GRADER__OP_IN, k);
}

/* A literal: under IGNORECASE a cased one matches by its lower case, or
 * by a class when re._casefix pairs it with others. */
static int compile_lit(struct compiler *C, uint32_t c, int negate,
                       unsigned flags)
{
    uint32_t lo, f[2], k;
    int rc;

    if (!(flags & PYRE_IGNORECASE) || !pyre__cased_in(c, c))
        return emit2(C, negate ? GRADER__OP_NLIT : GRADER__OP_LIT, c);
    lo = pyre__lower(c);
    if (pyre__fixes(lo, f) == 0)
        return emit2(C, negate ? GRADER__OP_NLIT_I : GRADER__OP_LIT_I, lo);
    C->niv = C->nraw = C->nur = 0;
    if ((rc = iv_add_folded(C, lo)) != 0 ||
        (rc = set_write(C, negate, 1, 0, &k)) != 0)
        return rc;
    return emit2(C, GRADER__OP_IN, k);
}

static int compile_seq(struct compiler *C, uint32_t k, unsigned flags);

/* _simple: one character-wide item, so the repeat can be sre's
 * REPEAT_ONE (count, then give back) rather than REPEAT ... UNTIL. */
static int is_simple(const struct pyre__tree *T, uint32_t k)
{
    const struct pyre__node *n = k == PYRE__NIL ? NULL : &T->nodes[k];

    if (n == NULL || n->next != PYRE__NIL)
        return 0;
    if (n->kind == GRADER__N_SUB)
        return n->a == 0 && is_simple(T, n->head);
    return n->kind == GRADER__N_LIT || n->kind == GRADER__N_NLIT ||
           n->kind == GRADER__N_ANY || n->kind == GRADER__N_IN;
}

static int compile_repeat(struct compiler *C, const struct pyre__node *n,
                          unsigned flags)
{
    int simple = is_simple(C->T, n->head), rc;
    uint32_t op =
        simple ? (n->flag ? GRADER__OP_MIN_REPEAT_ONE : GRADER__OP_REPEAT_ONE)
               : GRADER__OP_REPEAT;
    size_t skip;

    if ((rc = emit(C, op)) != 0)
        return rc;
    skip = C->n;
    if ((rc = emit(C, 0)) || (rc = emit2(C, n->a, n->b)) ||
        (rc = compile_seq(C, n->head, flags)))
        return rc;
    if (simple && (rc = emit(C, GRADER__OP_SUCCESS)) != 0)
        return rc;
    C->code[skip] = (uint32_t)(C->n - skip);
    if (!simple)
        return emit(C, n->flag ? GRADER__OP_MIN_UNTIL : GRADER__OP_MAX_UNTIL);
    return 0;
}

static int compile_branch(struct compiler *C, uint32_t alt, unsigned flags)
{
    size_t skip, link = 0, p;
    int rc = emit(C, GRADER__OP_BRANCH);

    for (; rc == 0 && alt != PYRE__NIL; alt = C->T->nodes[alt].next) {
        skip = C->n;
        if ((rc = emit(C, 0)) ||
            (rc = compile_seq(C, C->T->nodes[alt].head, flags)) ||
            (rc = emit2(C, GRADER__OP_JUMP, (uint32_t)link)))
            return rc;
        link = C->n; /* the JUMP operands chain until the end is known */
        C->code[skip] = (uint32_t)(C->n - skip);
    }
    if (rc != 0 || (rc = emit(C, GRADER__OP_FAILURE)) != 0)
        return rc;
    while (link != 0) {
        p = link - 1;
        link = C->code[p];
        C->code[p] = (uint32_t)(C->n - p);
    }
    return 0;
}

static int compile_group(struct compiler *C, const struct pyre__node *n,
                         unsigned flags)
{
    unsigned inner = (flags | n->add) & ~(unsigned)n->del;
    int rc = 0;

    if (n->a != 0)
        rc = emit2(C, GRADER__OP_MARK, 2 * (n->a - 1));
    if (rc == 0)
        rc = compile_seq(C, n->head, inner);
    if (rc == 0 && n->a != 0)
        rc = emit2(C, GRADER__OP_MARK, 2 * (n->a - 1) + 1);
    return rc;
}

static int compile_assert(struct compiler *C, const struct pyre__node *n,
                          unsigned flags)
{
    size_t skip;
    int rc = emit(C, n->kind == GRADER__N_ASSERT ? GRADER__OP_ASSERT
                                                 : GRADER__OP_ASSERT_NOT);

    skip = C->n;
    if (rc || (rc = emit2(C, 0, 0)) || (rc = compile_seq(C, n->head, flags)) ||
        (rc = emit(C, GRADER__OP_SUCCESS)))
        return rc;
    C->code[skip] = (uint32_t)(C->n - skip);
    return 0;
}

static uint32_t at_code(uint32_t at, unsigned flags)
{
    if (flags & PYRE_MULTILINE) {
        if (at == GRADER__AT_BEGINNING)
            return GRADER__AT_BEGINNING_LINE;
        if (at == GRADER__AT_END)
            return GRADER__AT_END_LINE;
    }
    return at;
}

static int compile_seq(struct compiler *C, uint32_t k, unsigned flags)
{
    int rc = 0;

    for (; rc == 0 && k != PYRE__NIL; k = C->T->nodes[k].next) {
        const struct pyre__node *n = &C->T->nodes[k];
        switch (n->kind) {
        case GRADER__N_LIT:
        case GRADER__N_NLIT:
            rc = compile_lit(C, n->a, n->kind == GRADER__N_NLIT, flags);
            break;
        case GRADER__N_IN:
            rc = compile_set(C, n, flags);
            break;
        case GRADER__N_ANY:
            rc = emit(C, (flags & PYRE_DOTALL) ? GRADER__OP_ANY_ALL
                                               : GRADER__OP_ANY);
            break;
        case GRADER__N_AT:
            rc = emit2(C, GRADER__OP_AT, at_code(n->a, flags));
            break;
        case GRADER__N_REPEAT:
            rc = compile_repeat(C, n, flags);
            break;
        case GRADER__N_SUB:
            rc = compile_group(C, n, flags);
            break;
        case GRADER__N_BRANCH:
            rc = compile_branch(C, n->head, flags);
            break;
        default:
            rc = compile_assert(C, n, flags);
        }
    }
    return rc;
}

/* ---- the prefilter ------------------------------------------------------ */

/* Whether the one-character operator at op can take a code point past
 * ASCII: a class says so by its lists, unless it lowers the text's
 * character first, when a non-ASCII one that lowers into ASCII (U+212A
 * KELVIN SIGN to 'k', U+0130 to 'i') may pass too. */
static int op_high(const struct pyre *re, const uint32_t *op)
{
    const uint32_t(*pairs)[2];
    const uint32_t *s = re->sets + op[1];
    size_t i, n;
    uint32_t r;

    switch (op[0]) {
    case GRADER__OP_LIT:
        return op[1] >= 0x80;
    case GRADER__OP_LIT_I:
        if (op[1] >= 0x80)
            return 1;
        break;
    case GRADER__OP_IN:
        if ((s[0] & PYRE__SET_NEGATE) || (s[0] >> 8) != 0 || s[6] || s[7])
            return 1;
        for (r = 0; r < s[5]; r++)
            if (s[PYRE__SET_HEAD + 2 * r + 1] >= 0x80)
                return 1;
        if (!(s[0] & PYRE__SET_LOWER))
            return 0;
        break;
    default: /* NLIT, NLIT_I, ANY, ANY_ALL */
        return 1;
    }
    n = pyre__lower_in(0x80, UINT32_MAX, &pairs);
    for (i = 0; i < n; i++)
        if (pairs[i][1] < 0x80 && pyre__char_ok(re, op, pairs[i][0]))
            return 1;
    return 0;
}

/* The bytes the one-character operator at op can start a match with. */
static void first_char(const struct pyre *re, const uint32_t *op,
                       unsigned char *set)
{
    uint32_t x;

    for (x = 0; x < 0x80; x++)
        if (pyre__char_ok(re, op, x))
            set[x] = 1;
    if (op_high(re, op))
        memset(set + 0x80, 1, 0x80);
}

/* Add to set the first characters of the program from pc on, up to the
 * end of its sequence (SUCCESS, FAILURE, a branch's JUMP, an UNTIL):
 * 1 when it can get there taking none. Anchors, marks and lookaheads take
 * none; a repeat with min 0 or an empty body may be passed over. With
 * follow, a branch's JUMP is followed to what comes after the branch, so
 * the sequence is the rest of the whole match. */
static int first_seq(const struct pyre *re, size_t pc, unsigned char *set,
                     int follow)
{
    const uint32_t *code = re->code;
    size_t q, alt;
    int empty;

    for (;;) {
        q = pc + 1;
        switch (code[pc]) {
        case GRADER__OP_MARK:
        case GRADER__OP_AT:
            pc += 2;
            break;
        case GRADER__OP_ASSERT:
        case GRADER__OP_ASSERT_NOT:
            pc = q + code[q];
            break;
        case GRADER__OP_BRANCH:
            empty = 0;
            for (alt = q; code[alt] != 0; alt += code[alt])
                empty |= first_seq(re, alt + 1, set, follow);
            if (!empty || follow) /* followed: each went to the end */
                return empty;
            pc = alt + 1;
            break;
        case GRADER__OP_JUMP:
            if (!follow)
                return 1;
            pc = q + code[q];
            break;
        case GRADER__OP_REPEAT:
        case GRADER__OP_REPEAT_ONE:
        case GRADER__OP_MIN_REPEAT_ONE:
            empty = first_seq(re, q + 3, set, 0);
            if (!empty && code[q + 1] != 0)
                return 0;
            /* REPEAT's tail is past its UNTIL */
            pc = q + code[q] + (code[pc] == GRADER__OP_REPEAT);
            break;
        case GRADER__OP_SUCCESS:
        case GRADER__OP_FAILURE:
        case GRADER__OP_MAX_UNTIL:
        case GRADER__OP_MIN_UNTIL:
            return 1;
        default:
            first_char(re, code + pc, set);
            return 0;
        }
    }
}

/* ---- linear programs ---------------------------------------------------- */

/*
 * Whether giving back can never help the REPEAT_ONE at pc: after its
 * most counts the rest of the match either cannot fail (marks and jumps
 * to SUCCESS), or must take a character first and none it could take is
 * one the item takes. Each count given back leaves the rest to start on
 * a character the item took, so it fails there: the first try is the
 * only one that can succeed, as with a possessive repeat.
 */
static int gives_back_in_vain(const struct pyre *re, size_t pc)
{
    const uint32_t *code = re->code;
    size_t q = pc + 1, tail = q + code[q], b;
    unsigned char item[256], rest[256];

    for (b = tail; code[b] == GRADER__OP_MARK || code[b] == GRADER__OP_JUMP;)
        b += code[b] == GRADER__OP_MARK ? 2 : 1 + code[b + 1];
    if (code[b] == GRADER__OP_SUCCESS)
        return 1;
    memset(item, 0, sizeof(item));
    memset(rest, 0, sizeof(rest));
    first_char(re, code + q + 3, item);
    if (first_seq(re, tail, rest, 1))
        return 0; /* the rest may take nothing: it may hold anywhere */
    for (b = 0; b < 256; b++)
        if (item[b] && rest[b])
            return 0;
    return 1;
}

/* Whether the sequence at pc, to its SUCCESS (a branch's JUMP followed),
 * is linear (pyre_impl.h); in_branch: a BRANCH was passed already. */
static int linear_seq(const struct pyre *re, size_t pc, int in_branch)
{
    const uint32_t *code = re->code;
    size_t alt;

    for (;;) {
        switch (code[pc]) {
        case GRADER__OP_MARK:
        case GRADER__OP_AT:
        case GRADER__OP_LIT:
        case GRADER__OP_NLIT:
        case GRADER__OP_LIT_I:
        case GRADER__OP_NLIT_I:
        case GRADER__OP_IN:
            pc += 2;
            break;
        case GRADER__OP_ANY:
        case GRADER__OP_ANY_ALL:
            pc++;
            break;
        case GRADER__OP_JUMP:
            pc += 1 + code[pc + 1];
            break;
        case GRADER__OP_SUCCESS:
            return 1;
        case GRADER__OP_REPEAT_ONE:
            if (!gives_back_in_vain(re, pc))
                return 0;
            pc += 1 + code[pc + 1];
            break;
        case GRADER__OP_BRANCH:
            if (in_branch) /* a second one would have to be returned to */
                return 0;
            for (alt = pc + 1; code[alt] != 0; alt += code[alt])
                if (!linear_seq(re, alt + 1, 1))
                    return 0;
            return 1;
        default: /* lazy repeats, REPEAT, lookaheads, FAILURE */
            return 0;
        }
    }
}

/* re's prefilter (pyre_impl.h), from its program. */
static void first_fill(struct pyre *re)
{
    size_t b, count = 0, last = 0;

    re->first_kind = GRADER__FIRST_ALL;
    memset(re->first, 0, sizeof(re->first));
    if (first_seq(re, 0, re->first, 0))
        return; /* a match may be empty: every start may match */
    for (b = 0; b < 256; b++)
        if (re->first[b]) {
            count++;
            last = b;
        }
    if (count == 256)
        return;
    if (count == 1) {
        re->first_kind = GRADER__FIRST_BYTE;
        re->first_byte = (unsigned char)last;
    } else {
        re->first_kind = GRADER__FIRST_SET;
    }
}

/* ---- the entry point ---------------------------------------------------- */

/* SubPattern.getwidth()'s lower bound: the fewest characters a match of
 * the sequence at k takes (lookaheads and anchors none), saturated at
 * sre's MAXREPEAT - 1. */
static uint64_t min_width(const struct pyre__tree *T, uint32_t k)
{
    const uint64_t cap = UINT32_MAX - 1;
    uint64_t lo = 0, w, best;
    uint32_t alt;

    for (; k != PYRE__NIL; k = T->nodes[k].next) {
        const struct pyre__node *n = &T->nodes[k];
        switch (n->kind) {
        case GRADER__N_LIT:
        case GRADER__N_NLIT:
        case GRADER__N_ANY:
        case GRADER__N_IN:
            w = 1;
            break;
        case GRADER__N_SUB:
            w = min_width(T, n->head);
            break;
        case GRADER__N_REPEAT:
            w = min_width(T, n->head) * n->a; /* both below 2^32 */
            break;
        case GRADER__N_BRANCH:
            best = cap;
            for (alt = n->head; alt != PYRE__NIL; alt = T->nodes[alt].next)
                if ((w = min_width(T, T->nodes[alt].head)) < best)
                    best = w;
            w = best;
            break;
        default:
            w = 0;
        }
        lo = lo + w < cap ? lo + w : cap;
    }
    return lo;
}

static int finish(struct compiler *C, size_t groups, struct pyre **out)
{
    struct pyre *re = pyre__calloc(1, sizeof(*re));

    if (re == NULL)
        return PYRE_ENOMEM;
    re->code = C->code;
    re->ncode = C->n;
    re->sets = C->sets;
    re->nsets = C->ns;
    re->groups = groups;
    re->minwidth = (uint32_t)min_width(C->T, C->T->root);
    C->code = C->sets = NULL;
    first_fill(re);
    re->linear = linear_seq(re, 0, 0);
    *out = re;
    return 0;
}

int pyre_compile(const char *pat, size_t len, unsigned flags,
                 struct pyre **out, char *msg, size_t msgsize)
{
    struct pyre__tree T;
    struct compiler C;
    int rc;

    *out = NULL;
    memset(&C, 0, sizeof(C));
    rc = pyre__parse(pat, len, flags, &T, msg, msgsize);
    if (rc != 0)
        return rc;
    C.T = &T;
    rc = compile_seq(&C, T.root, T.flags);
    if (rc == 0)
        rc = emit(&C, GRADER__OP_SUCCESS);
    if (rc == PYRE_ELIMIT) {
        if (msgsize)
            snprintf(msg, msgsize,
                     "patterns this large are not supported "
                     "at position 0");
        rc = PYRE_EARG;
    }
    if (rc == 0)
        rc = finish(&C, T.groups, out);
    pyre__tree_release(&T);
    pyre__dealloc(C.code);
    pyre__dealloc(C.sets);
    pyre__dealloc(C.iv);
    pyre__dealloc(C.raw);
    pyre__dealloc(C.ur);
    return rc;
}

void pyre_free(struct pyre *re)
{
    if (re == NULL)
        return;
    pyre__dealloc(re->code);
    pyre__dealloc(re->sets);
    pyre__dealloc(re);
}

size_t pyre_groups(const struct pyre *re)
{
    return re->groups;
}
