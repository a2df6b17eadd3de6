/*
 * pyre_match.c - the matcher: CPython 3.11's SRE(match) and SRE(search)
 * (Modules/_sre/sre_lib.h) taken operator by operator, over the code
 * points of a UTF-8 text with byte offsets for positions.
 *
 * What the groups of a match are, after backtracking, is decided by
 * sre's bookkeeping rather than by any rule one could state more
 * simply: "lastmark" (the highest mark set; marks above it count as
 * unset), restored on every failed path, while the marks' values are
 * saved and restored only inside a repeat (BRANCH, REPEAT_ONE,
 * ASSERT_NOT) or around each iteration of a repeat (MAX_UNTIL). This
 * file keeps that bookkeeping as it is, so the groups come out as
 * Python's do.
 *
 * sre recurses through "contexts" on a heap stack of its own; so does
 * this: a frame per pending sub-match on one byte stack (capped at
 * PYRE_STACK_MAX), a handler per operator returning "next",
 * "call" (a frame was pushed) or a result, and a resume handler per
 * place where sre waits for a sub-match (its JUMP_* labels). A step
 * budget bounds the whole.
 */
#include "pyre_impl.h"

#include <stddef.h>
#include <string.h>

#define NONE PYRE__NONE
#define INF  PYRE__INF

/* Where a parent resumes when a sub-match ends (sre's JUMP_*). */
enum jump {
    J_NONE,
    J_BRANCH,
    J_REPEAT_ONE,
    J_MIN_REPEAT_ONE,
    J_REPEAT,
    J_MAX_UNTIL_1,
    J_MAX_UNTIL_2,
    J_MAX_UNTIL_3,
    J_MIN_UNTIL_1,
    J_MIN_UNTIL_2,
    J_MIN_UNTIL_3,
    J_ASSERT,
    J_ASSERT_NOT
};

/* What a handler tells the loop; errors are negative PYRE_E*. */
enum { R_NEXT = 1, R_CALL, R_OK, R_FAIL };

/* sre's match context. */
struct frame {
    size_t parent; /* offset of the frame waiting for this one */
    size_t pc;
    size_t ptr;
    size_t rep; /* the repeat this frame works on (u.rep) */
    long count;
    int lastmark;
    int toplevel;
    int jump; /* how the parent resumes */
};

/* sre's SRE_REPEAT: lives on the stack above its REPEAT's frame. */
struct rep {
    long count;
    size_t q; /* the REPEAT's operands: skip, min, max, then the item */
    size_t prev;
    size_t last_ptr; /* where the last iteration began: NONE at first */
};

struct pyre__vm {
    const struct pyre *re;
    const uint32_t *code;
    const unsigned char *s;
    size_t n;
    size_t start; /* where this match attempt began */
    size_t ptr;   /* sre's state->ptr: how frames pass positions */
    int must_advance;
    int lastmark;
    size_t repeat; /* the innermost repeat, or NONE */
    size_t *mark;  /* after small, in the same block */
    unsigned char *stack;
    size_t top, cap, cur;
    unsigned long long steps; /* the caller's budget, during a search */
    /* the stack until it outgrows this: most searches never allocate
     * one (size_t, for the frames' alignment) */
    size_t small[64];
};

#define FR(m, off)  ((struct frame *)(void *)((m)->stack + (off)))
#define REP(m, off) ((struct rep *)(void *)((m)->stack + (off)))

/* ---- classes ------------------------------------------------------------ */

static int in_ranges(const uint32_t *r, uint32_t n, uint32_t x)
{
    uint32_t lo = 0, hi = n;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (x < r[2 * mid])
            hi = mid;
        else if (x > r[2 * mid + 1])
            lo = mid + 1;
        else
            return 1;
    }
    return 0;
}

int pyre__set_lists(const uint32_t *s, uint32_t x)
{
    const uint32_t *r = s + PYRE__SET_HEAD, *raw = r + 2 * s[5];
    const uint32_t *ur = raw + s[6];
    uint32_t i, up;
    int hit = in_ranges(r, s[5], x) || pyre__cat(s[0] >> 8, x);

    for (i = 0; !hit && i < s[6]; i++)
        hit = raw[i] == x;
    up = s[7] ? pyre__upper(x) : x;
    for (i = 0; !hit && i < s[7]; i++)
        hit = (ur[2 * i] <= x && x <= ur[2 * i + 1]) ||
              (ur[2 * i] <= up && up <= ur[2 * i + 1]);
    return hit != (int)(s[0] & PYRE__SET_NEGATE);
}

int pyre__in_set(const struct pyre *re, uint32_t k, uint32_t ch)
{
    const uint32_t *s = re->sets + k;
    uint32_t x = (s[0] & PYRE__SET_LOWER) ? pyre__lower(ch) : ch;

    if (x < 128)
        return (int)((s[1 + x / 32] >> (x % 32)) & 1);
    return pyre__set_lists(s, x);
}

/* ---- characters and anchors --------------------------------------------- */

/* The operator at op on the character at p: its length, or 0. */
static size_t char_at(const struct pyre__vm *m, size_t p, const uint32_t *op)
{
    size_t len;

    uint32_t ch;

    if (p >= m->n)
        return 0;
    if (m->s[p] < 0x80) /* ASCII: pyre__decode's answer at once */
        ch = m->s[p], len = 1;
    else
        ch = pyre__decode(m->s, m->n, p, &len);
    return pyre__char_ok(m->re, op, ch) ? len : 0;
}

/* pyre_cancel_on's flag, one a thread: the grader runs on a pool */
static _Thread_local const atomic_int *cancel_flag;

void pyre_cancel_on(const atomic_int *flag)
{
    cancel_flag = flag;
}

static int spend(struct pyre__vm *m, unsigned long long k)
{
    if (m->steps < k) {
        m->steps = 0;
        return PYRE_ELIMIT;
    }
    /* a look at the stop each time the count crosses a 2^20 boundary:
     * a branch a step, a load about every 10 ms */
    if (((m->steps ^ (m->steps - k)) >> 20) != 0 && cancel_flag != NULL &&
        atomic_load_explicit(cancel_flag, memory_order_relaxed) != 0)
        return PYRE_ELIMIT; /* the steps left say how soon it was */
    m->steps -= k;
    return 0;
}

/* SRE(count): how many times (up to maxcount) the one-character item
 * at code[item] matches from ptr; *end where they stop. */
static int count(struct pyre__vm *m, size_t item, size_t ptr,
                 uint32_t maxcount, size_t *end, long *got)
{
    const uint32_t *op = m->code + item;
    const unsigned char *s = m->s;
    long c = 0;
    size_t len, lim = m->n;

    /* a class that does not lower: its ASCII bitmap, byte by byte, up to
     * a byte it does not hold or a non-ASCII one (then the loop below) */
    if (op[0] == GRADER__OP_IN && !(m->re->sets[op[1]] & PYRE__SET_LOWER)) {
        const uint32_t *bits = m->re->sets + op[1] + 1;
        if (maxcount != INF && maxcount < lim - ptr)
            lim = ptr + maxcount;
        while (ptr < lim && s[ptr] < 0x80 &&
               ((bits[s[ptr] / 32] >> (s[ptr] % 32)) & 1)) {
            ptr++;
            c++;
        }
    }
    while (ptr < m->n && (maxcount == INF || c < (long)maxcount) &&
           (len = char_at(m, ptr, op)) > 0) {
        ptr += len;
        c++;
    }
    *end = ptr;
    *got = c;
    return spend(m, (unsigned long long)c);
}

static int word_at(const struct pyre__vm *m, size_t p)
{
    size_t len;

    return pyre__word(pyre__decode(m->s, m->n, p, &len));
}

/* SRE(at). \b and \B never hold in an empty text (sre's quirk). */
static int at(const struct pyre__vm *m, size_t p, uint32_t code)
{
    int that, this;

    switch (code) {
    case GRADER__AT_BEGINNING:
    case GRADER__AT_BEGINNING_STRING:
        return p == 0;
    case GRADER__AT_BEGINNING_LINE:
        return p == 0 || m->s[p - 1] == '\n';
    case GRADER__AT_END:
        return p == m->n || (p + 1 == m->n && m->s[p] == '\n');
    case GRADER__AT_END_LINE:
        return p == m->n || m->s[p] == '\n';
    case GRADER__AT_END_STRING:
        return p == m->n;
    }
    if (m->n == 0)
        return 0;
    that = p > 0 ? word_at(m, pyre__prev(m->s, p)) : 0;
    this = p < m->n ? word_at(m, p) : 0;
    return code == GRADER__AT_BOUNDARY ? this != that : this == that;
}

/* ---- the stack ---------------------------------------------------------- */

static int grow_stack(struct pyre__vm *m, size_t need)
{
    size_t cap = m->cap ? m->cap : 4096;
    unsigned char *p;

    if (need > PYRE_STACK_MAX)
        return PYRE_ELIMIT;
    while (cap < need)
        cap *= 2;
    if (cap > PYRE_STACK_MAX)
        cap = PYRE_STACK_MAX;
    if (m->stack == (unsigned char *)m->small) {
        if ((p = pyre__malloc(cap)) != NULL)
            memcpy(p, m->stack, m->top);
    } else {
        p = pyre__realloc(m->stack, cap);
    }
    if (p == NULL)
        return PYRE_ENOMEM;
    m->stack = p;
    m->cap = cap;
    return 0;
}

/* Room for bytes more on the stack: the common case inline. */
static inline int reserve(struct pyre__vm *m, size_t bytes)
{
    return m->top + bytes <= m->cap ? 0 : grow_stack(m, m->top + bytes);
}

/* DO_JUMP: a frame for the sub-match at pc, starting at m->ptr. */
static int call(struct pyre__vm *m, size_t pc, int toplevel, int jump)
{
    struct frame *f;
    int rc = reserve(m, sizeof(*f));

    if (rc != 0)
        return rc;
    f = FR(m, m->top);
    f->parent = m->cur;
    f->pc = pc;
    f->ptr = m->ptr;
    f->rep = NONE;
    f->count = 0;
    f->lastmark = -1;
    f->toplevel = toplevel;
    f->jump = jump;
    m->cur = m->top;
    m->top += sizeof(*f);
    return R_CALL;
}

static int push_word(struct pyre__vm *m, size_t w)
{
    int rc = reserve(m, sizeof(w));

    if (rc != 0)
        return rc;
    memcpy(m->stack + m->top, &w, sizeof(w));
    m->top += sizeof(w);
    return 0;
}

static size_t pop_word(struct pyre__vm *m)
{
    size_t w;

    m->top -= sizeof(w);
    memcpy(&w, m->stack + m->top, sizeof(w));
    return w;
}

/* MARK_PUSH: the marks up to lastmark. */
static int mark_push(struct pyre__vm *m, int lastmark)
{
    size_t bytes = (size_t)(lastmark + 1) * sizeof(*m->mark);
    int rc;

    if (lastmark < 0)
        return 0;
    if ((rc = reserve(m, bytes)) != 0)
        return rc;
    memcpy(m->stack + m->top, m->mark, bytes);
    m->top += bytes;
    return 0;
}

/* MARK_POP (keep 0), MARK_POP_KEEP (keep 1). */
static void mark_pop(struct pyre__vm *m, int lastmark, int keep)
{
    size_t bytes = (size_t)(lastmark + 1) * sizeof(*m->mark);

    if (lastmark < 0)
        return;
    memcpy(m->mark, m->stack + m->top - bytes, bytes);
    if (!keep)
        m->top -= bytes;
}

static void mark_discard(struct pyre__vm *m, int lastmark)
{
    if (lastmark >= 0)
        m->top -= (size_t)(lastmark + 1) * sizeof(*m->mark);
}

static void set_mark(struct pyre__vm *m, uint32_t i, size_t ptr)
{
    if ((int)i > m->lastmark) {
        int j;
        for (j = m->lastmark + 1; j < (int)i; j++)
            m->mark[j] = NONE;
        m->lastmark = (int)i;
    }
    m->mark[i] = ptr;
}

/* ---- operators that wait for sub-matches -------------------------------- */

/*
 * run_tail: where a BRANCH is down to its last alternative, or a
 * REPEAT_ONE to its last count, outside any REPEAT, the frame runs what
 * is left itself instead of waiting on a frame of its own for it. What it
 * would do when that fails is restore lastmark and fail (no marks to
 * restore outside a REPEAT); every frame that goes on matching after a
 * failure below it restores lastmark first, so the restore cannot be
 * seen. The REPEAT_ONE's give-back step is not spent.
 */

/* The sub-match a BRANCH or a REPEAT_ONE waited for returned ret: the
 * marks pushed for it dropped when it matched, else restored (MARK_POP_KEEP)
 * with lastmark (LASTMARK_RESTORE), as sre does at those JUMP_* labels. */
static int sub_matched(struct pyre__vm *m, const struct frame *f, int ret)
{
    if (m->repeat != NONE) {
        if (ret)
            mark_discard(m, f->lastmark);
        else
            mark_pop(m, f->lastmark, 1);
    }
    if (!ret)
        m->lastmark = f->lastmark;
    return ret;
}

/* BRANCH: try the alternatives from f->pc (a skip word) on. */
static int branch_next(struct pyre__vm *m)
{
    struct frame *f = FR(m, m->cur);
    const uint32_t *code = m->code;
    size_t alt;

    for (alt = f->pc; code[alt] != 0; alt += code[alt]) {
        uint32_t first = code[alt + 1];
        if ((first == GRADER__OP_LIT || first == GRADER__OP_IN) &&
            char_at(m, f->ptr, code + alt + 1) == 0)
            continue; /* sre's shortcut: it would fail at once */
        m->ptr = f->ptr;
        if (code[alt + code[alt]] == 0 && m->repeat == NONE) {
            f->pc = alt + 1; /* the last one: see run_tail */
            return R_NEXT;
        }
        f->pc = alt;
        return call(m, alt + 1, f->toplevel, J_BRANCH);
    }
    if (m->repeat != NONE)
        mark_discard(m, f->lastmark);
    return R_FAIL;
}

static int op_branch(struct pyre__vm *m)
{
    struct frame *f = FR(m, m->cur);
    int rc;

    f->lastmark = m->lastmark;
    f->pc++;
    if (m->repeat != NONE && (rc = mark_push(m, f->lastmark)) != 0)
        return rc;
    return branch_next(m);
}

static int resume_branch(struct pyre__vm *m, int ret)
{
    struct frame *f = FR(m, m->cur);

    if (sub_matched(m, f, ret))
        return R_OK;
    f->pc += m->code[f->pc];
    return branch_next(m);
}

/* REPEAT_ONE: the tail at each count from the most down to min. */
static int repeat_one_next(struct pyre__vm *m)
{
    struct frame *f = FR(m, m->cur);
    size_t q = f->pc + 1, tail = q + m->code[q], len;
    long min = (long)m->code[q + 1];
    int rc;

    if (m->code[tail] == GRADER__OP_LIT) {
        /* the tail starts with a literal: skip the counts where it
         * cannot */
        while (f->count >= min &&
               (f->ptr >= m->n ||
                pyre__decode(m->s, m->n, f->ptr, &len) != m->code[tail + 1])) {
            if ((rc = spend(m, 1)) != 0)
                return rc;
            f->ptr = pyre__prev(m->s, f->ptr);
            f->count--;
        }
    }
    if (f->count < min) {
        if (m->repeat != NONE)
            mark_discard(m, f->lastmark);
        return R_FAIL;
    }
    m->ptr = f->ptr;
    if (f->count == min && m->repeat == NONE) {
        f->pc = tail; /* no count left to give back: see run_tail */
        return R_NEXT;
    }
    return call(m, tail, f->toplevel, J_REPEAT_ONE);
}

static int op_repeat_one(struct pyre__vm *m)
{
    struct frame *f = FR(m, m->cur);
    size_t q = f->pc + 1, tail = q + m->code[q], end;
    long got;
    int rc;

    m->ptr = f->ptr;
    if ((rc = count(m, q + 3, f->ptr, m->code[q + 2], &end, &got)) != 0)
        return rc;
    f->count = got;
    f->ptr = end;
    if (got < (long)m->code[q + 1])
        return R_FAIL;
    if (m->code[tail] == GRADER__OP_SUCCESS && f->ptr == m->n &&
        !(f->toplevel && m->must_advance && f->ptr == m->start)) {
        m->ptr = f->ptr; /* the tail is empty: done */
        return R_OK;
    }
    f->lastmark = m->lastmark;
    if (m->repeat != NONE && (rc = mark_push(m, f->lastmark)) != 0)
        return rc;
    return repeat_one_next(m);
}

static int resume_repeat_one(struct pyre__vm *m, int ret)
{
    struct frame *f = FR(m, m->cur);
    int rc;

    if (sub_matched(m, f, ret))
        return R_OK;
    if ((rc = spend(m, 1)) != 0)
        return rc;
    f->ptr = pyre__prev(m->s, f->ptr);
    f->count--;
    return repeat_one_next(m);
}

/* MIN_REPEAT_ONE: the tail at each count from min up. */
static int min_repeat_one_next(struct pyre__vm *m)
{
    struct frame *f = FR(m, m->cur);
    size_t q = f->pc + 1;
    uint32_t max = m->code[q + 2];

    if (max == INF || f->count <= (long)max) {
        m->ptr = f->ptr;
        return call(m, q + m->code[q], f->toplevel, J_MIN_REPEAT_ONE);
    }
    if (m->repeat != NONE)
        mark_discard(m, f->lastmark);
    return R_FAIL;
}

static int op_min_repeat_one(struct pyre__vm *m)
{
    struct frame *f = FR(m, m->cur);
    size_t q = f->pc + 1, tail = q + m->code[q], end;
    long got;
    int rc;

    m->ptr = f->ptr;
    f->count = 0;
    if (m->code[q + 1] != 0) {
        rc = count(m, q + 3, f->ptr, m->code[q + 1], &end, &got);
        if (rc != 0)
            return rc;
        if (got < (long)m->code[q + 1])
            return R_FAIL;
        f->count = got;
        f->ptr = end;
    }
    if (m->code[tail] == GRADER__OP_SUCCESS &&
        !(f->toplevel && m->must_advance && f->ptr == m->start)) {
        m->ptr = f->ptr;
        return R_OK;
    }
    f->lastmark = m->lastmark;
    if (m->repeat != NONE && (rc = mark_push(m, f->lastmark)) != 0)
        return rc;
    return min_repeat_one_next(m);
}

static int resume_min_repeat_one(struct pyre__vm *m, int ret)
{
    struct frame *f = FR(m, m->cur);
    size_t end;
    long got;
    int rc;

    if (sub_matched(m, f, ret))
        return R_OK;
    m->ptr = f->ptr;
    if ((rc = count(m, f->pc + 4, f->ptr, 1, &end, &got)) != 0)
        return rc;
    if (got == 0) {
        if (m->repeat != NONE)
            mark_discard(m, f->lastmark);
        return R_FAIL;
    }
    f->ptr = end;
    f->count++;
    return min_repeat_one_next(m);
}

/* REPEAT: a repeat context for the UNTIL at its end, which does the
 * work. */
static int op_repeat(struct pyre__vm *m)
{
    size_t q = FR(m, m->cur)->pc + 1, at;
    struct rep *r;
    int rc = reserve(m, sizeof(*r));

    if (rc != 0)
        return rc;
    at = m->top;
    m->top += sizeof(*r);
    r = REP(m, at);
    r->count = -1;
    r->q = q;
    r->prev = m->repeat;
    r->last_ptr = NONE;
    m->repeat = at;
    FR(m, m->cur)->rep = at;
    m->ptr = FR(m, m->cur)->ptr;
    return call(m, q + m->code[q], FR(m, m->cur)->toplevel, J_REPEAT);
}

static int resume_repeat(struct pyre__vm *m, int ret)
{
    struct frame *f = FR(m, m->cur);

    m->repeat = REP(m, f->rep)->prev;
    m->top = f->rep; /* the context is the top of the stack again */
    return ret ? R_OK : R_FAIL;
}

/* MAX_UNTIL: another iteration if it can (not after an empty one),
 * else the tail. */
static int max_until_tail(struct pyre__vm *m)
{
    struct frame *f = FR(m, m->cur);

    m->repeat = REP(m, f->rep)->prev;
    return call(m, f->pc + 1, f->toplevel, J_MAX_UNTIL_3);
}

static int op_max_until(struct pyre__vm *m)
{
    struct frame *f = FR(m, m->cur);
    struct rep *r;
    uint32_t max;
    int rc;

    if (m->repeat == NONE)
        return PYRE_EARG; /* cannot happen: the compiler pairs them */
    f->rep = m->repeat;
    r = REP(m, f->rep);
    m->ptr = f->ptr;
    f->count = r->count + 1;
    if (f->count < (long)m->code[r->q + 1]) {
        r->count = f->count; /* not enough iterations yet */
        return call(m, r->q + 3, f->toplevel, J_MAX_UNTIL_1);
    }
    max = m->code[r->q + 2];
    if ((max == INF || f->count < (long)max) && m->ptr != r->last_ptr) {
        size_t last = r->last_ptr; /* r moves if the stack does */
        r->count = f->count;
        f->lastmark = m->lastmark;
        if ((rc = mark_push(m, f->lastmark)) != 0 ||
            (rc = push_word(m, last)) != 0)
            return rc;
        f = FR(m, m->cur);
        r = REP(m, f->rep);
        r->last_ptr = m->ptr;
        return call(m, r->q + 3, f->toplevel, J_MAX_UNTIL_2);
    }
    return max_until_tail(m);
}

/* MAX_UNTIL_1 and MIN_UNTIL_1: an iteration below the minimum ended. */
static int resume_until_1(struct pyre__vm *m, int ret)
{
    struct frame *f = FR(m, m->cur);

    if (ret)
        return R_OK;
    REP(m, f->rep)->count = f->count - 1;
    m->ptr = f->ptr;
    return R_FAIL;
}

static int resume_max_until_2(struct pyre__vm *m, int ret)
{
    struct frame *f = FR(m, m->cur);
    struct rep *r = REP(m, f->rep);

    r->last_ptr = pop_word(m);
    if (ret) {
        mark_discard(m, f->lastmark);
        return R_OK;
    }
    mark_pop(m, f->lastmark, 0);
    m->lastmark = f->lastmark;
    r->count = f->count - 1;
    m->ptr = f->ptr;
    return max_until_tail(m);
}

static int resume_max_until_3(struct pyre__vm *m, int ret)
{
    struct frame *f = FR(m, m->cur);

    m->repeat = f->rep;
    if (ret)
        return R_OK;
    m->ptr = f->ptr;
    return R_FAIL;
}

/* MIN_UNTIL: the tail first, another iteration if it fails. */
static int op_min_until(struct pyre__vm *m)
{
    struct frame *f = FR(m, m->cur);
    struct rep *r;
    int rc;

    if (m->repeat == NONE)
        return PYRE_EARG;
    f->rep = m->repeat;
    r = REP(m, f->rep);
    m->ptr = f->ptr;
    f->count = r->count + 1;
    if (f->count < (long)m->code[r->q + 1]) {
        r->count = f->count;
        return call(m, r->q + 3, f->toplevel, J_MIN_UNTIL_1);
    }
    m->repeat = r->prev;
    f->lastmark = m->lastmark;
    if (m->repeat != NONE && (rc = mark_push(m, f->lastmark)) != 0)
        return rc;
    return call(m, FR(m, m->cur)->pc + 1, FR(m, m->cur)->toplevel,
                J_MIN_UNTIL_2);
}

static int resume_min_until_2(struct pyre__vm *m, int ret)
{
    struct frame *f = FR(m, m->cur);
    size_t tail_repeat = m->repeat;
    struct rep *r = REP(m, f->rep);
    uint32_t max = m->code[r->q + 2];
    int rc;

    m->repeat = f->rep;
    if (ret) {
        if (tail_repeat != NONE)
            mark_discard(m, f->lastmark);
        return R_OK;
    }
    if (tail_repeat != NONE)
        mark_pop(m, f->lastmark, 0);
    m->lastmark = f->lastmark;
    m->ptr = f->ptr;
    if ((max != INF && f->count >= (long)max) || m->ptr == r->last_ptr)
        return R_FAIL;
    r->count = f->count;
    if ((rc = push_word(m, r->last_ptr)) != 0)
        return rc;
    f = FR(m, m->cur);
    r = REP(m, f->rep);
    r->last_ptr = m->ptr;
    return call(m, r->q + 3, f->toplevel, J_MIN_UNTIL_3);
}

static int resume_min_until_3(struct pyre__vm *m, int ret)
{
    struct frame *f = FR(m, m->cur);
    struct rep *r = REP(m, f->rep);

    r->last_ptr = pop_word(m);
    if (ret)
        return R_OK;
    r->count = f->count - 1;
    m->ptr = f->ptr;
    return R_FAIL;
}

/* ASSERT, ASSERT_NOT (lookahead only): the body at toplevel 0. */
static int op_assert(struct pyre__vm *m, uint32_t op)
{
    struct frame *f = FR(m, m->cur);
    size_t q = f->pc + 1;
    int rc;

    m->ptr = f->ptr;
    if (op == GRADER__OP_ASSERT)
        return call(m, q + 2, 0, J_ASSERT);
    f->lastmark = m->lastmark;
    if (m->repeat != NONE && (rc = mark_push(m, f->lastmark)) != 0)
        return rc;
    return call(m, q + 2, 0, J_ASSERT_NOT);
}

static int resume_assert(struct pyre__vm *m, int jump, int ret)
{
    struct frame *f = FR(m, m->cur);
    size_t q = f->pc + 1;

    if (jump == J_ASSERT) {
        if (!ret)
            return R_FAIL;
    } else {
        if (ret) {
            if (m->repeat != NONE)
                mark_discard(m, f->lastmark);
            return R_FAIL;
        }
        if (m->repeat != NONE)
            mark_pop(m, f->lastmark, 0);
        m->lastmark = f->lastmark;
    }
    f->pc = q + m->code[q];
    return R_NEXT;
}

static int resume(struct pyre__vm *m, int jump, int ret)
{
    switch (jump) {
    case J_BRANCH:
        return resume_branch(m, ret);
    case J_REPEAT_ONE:
        return resume_repeat_one(m, ret);
    case J_MIN_REPEAT_ONE:
        return resume_min_repeat_one(m, ret);
    case J_REPEAT:
        return resume_repeat(m, ret);
    case J_MAX_UNTIL_1:
    case J_MIN_UNTIL_1:
        return resume_until_1(m, ret);
    case J_MAX_UNTIL_2:
        return resume_max_until_2(m, ret);
    case J_MAX_UNTIL_3:
        return resume_max_until_3(m, ret);
    case J_MIN_UNTIL_2:
        return resume_min_until_2(m, ret);
    case J_MIN_UNTIL_3:
        return resume_min_until_3(m, ret);
    default:
        return resume_assert(m, jump, ret);
    }
}

/* ---- the loop ----------------------------------------------------------- */

/* A one-character operator, an anchor, a mark, a jump, or success:
 * what the current frame does without waiting. */
static inline int op_simple(struct pyre__vm *m, struct frame *f,
                            const uint32_t *op)
{
    size_t len;

    switch (op[0]) {
    case GRADER__OP_MARK:
        set_mark(m, op[1], f->ptr);
        f->pc += 2;
        return R_NEXT;
    case GRADER__OP_AT:
        if (!at(m, f->ptr, op[1]))
            return R_FAIL;
        f->pc += 2;
        return R_NEXT;
    case GRADER__OP_JUMP:
        f->pc += 1 + op[1];
        return R_NEXT;
    case GRADER__OP_SUCCESS:
        if (f->toplevel && m->must_advance && f->ptr == m->start)
            return R_FAIL; /* finditer: no empty match where the last ended */
        m->ptr = f->ptr;
        return R_OK;
    case GRADER__OP_FAILURE:
        return R_FAIL;
    }
    if ((len = char_at(m, f->ptr, op)) == 0)
        return R_FAIL;
    f->ptr += len;
    f->pc += (op[0] == GRADER__OP_ANY || op[0] == GRADER__OP_ANY_ALL) ? 1 : 2;
    return R_NEXT;
}

/* Run the current frame until it calls a sub-match or ends. */
static int dispatch(struct pyre__vm *m)
{
    for (;;) {
        struct frame *f = FR(m, m->cur);
        const uint32_t *op = m->code + f->pc;
        int rc;

        if ((rc = spend(m, 1)) != 0)
            return rc;
        switch (op[0]) {
        case GRADER__OP_BRANCH:
            return op_branch(m);
        case GRADER__OP_REPEAT_ONE:
            return op_repeat_one(m);
        case GRADER__OP_MIN_REPEAT_ONE:
            return op_min_repeat_one(m);
        case GRADER__OP_REPEAT:
            return op_repeat(m);
        case GRADER__OP_MAX_UNTIL:
            return op_max_until(m);
        case GRADER__OP_MIN_UNTIL:
            return op_min_until(m);
        case GRADER__OP_ASSERT:
        case GRADER__OP_ASSERT_NOT:
            return op_assert(m, op[0]);
        }
        if ((rc = op_simple(m, f, op)) != R_NEXT)
            return rc;
    }
}

/* SRE(match): the program at m->ptr; 1 matched (m->ptr its end), 0 not,
 * or an error. */
static int match(struct pyre__vm *m, int toplevel)
{
    int rc;

    m->top = 0;
    m->cur = NONE;
    rc = call(m, 0, toplevel, J_NONE);
    for (;;) {
        if (rc < 0)
            return rc;
        if (rc == R_CALL || rc == R_NEXT) {
            rc = dispatch(m);
            continue;
        }
        {
            struct frame *f = FR(m, m->cur);
            int jump = f->jump, ret = rc == R_OK;
            size_t parent = f->parent;
            m->top = m->cur;
            if (parent == NONE)
                return ret;
            m->cur = parent;
            rc = resume(m, jump, ret);
        }
    }
}

/* ---- linear programs ---------------------------------------------------- */

/* The next alternative of a BRANCH from *alt on that is worth trying at
 * ptr (sre's shortcut, as branch_next takes it): its first operator's pc,
 * *alt moved past it; NONE when none is left. */
static size_t next_alt(const struct pyre__vm *m, size_t *alt, size_t ptr)
{
    const uint32_t *code = m->code;

    for (; code[*alt] != 0; *alt += code[*alt]) {
        size_t pc = *alt + 1;
        if ((code[pc] == GRADER__OP_LIT || code[pc] == GRADER__OP_IN) &&
            char_at(m, ptr, code + pc) == 0)
            continue;
        *alt += code[*alt];
        return pc;
    }
    return NONE;
}

/*
 * SRE(match) of a linear program (pyre_impl.h), without frames: the
 * operators in order, each REPEAT_ONE at its most counts (giving back
 * would fail), and on a failure the BRANCH's next alternative from where
 * the BRANCH began, lastmark as it was there (LASTMARK_RESTORE; outside
 * a REPEAT the marks' values are not restored, and an alternative's marks
 * are all above that lastmark, so what a failed one set cannot be seen).
 * The same answer as match(), the same marks, fewer steps.
 */
static int linear_match(struct pyre__vm *m, int toplevel)
{
    /* the one frame's place and position, for op_simple */
    struct frame f = {.pc = 0, .ptr = m->ptr, .toplevel = toplevel};
    size_t alt = NONE, from = 0, end;
    int before = -1, rc;
    long got;

    for (;;) {
        const uint32_t *op = m->code + f.pc;
        if ((rc = spend(m, 1)) != 0)
            return rc;
        switch (op[0]) {
        case GRADER__OP_BRANCH:
            before = m->lastmark;
            from = f.ptr;
            alt = f.pc + 1;
            if ((f.pc = next_alt(m, &alt, from)) == NONE)
                return 0;
            continue;
        case GRADER__OP_REPEAT_ONE:
            if ((rc = count(m, f.pc + 4, f.ptr, op[3], &end, &got)) != 0)
                return rc;
            rc = R_FAIL;
            if (got < (long)op[2])
                break;
            f.ptr = end;
            f.pc += 1 + op[1];
            continue;
        default: /* MARK, AT, JUMP, a character, SUCCESS, FAILURE */
            rc = op_simple(m, &f, op);
        }
        if (rc == R_OK)
            return 1;
        if (rc == R_NEXT)
            continue;
        /* failed here: the BRANCH's next alternative, if there is one */
        if (alt == NONE)
            return 0;
        m->lastmark = before;
        f.ptr = from;
        if ((f.pc = next_alt(m, &alt, from)) == NONE)
            return 0;
    }
}

/* One start position (RESET_CAPTURE_GROUP, then SRE(match)). */
static int attempt(struct pyre__vm *m, size_t p, int toplevel)
{
    int rc = spend(m, 1);

    if (rc != 0)
        return rc;
    m->lastmark = -1;
    m->repeat = NONE;
    m->start = m->ptr = p;
    return m->re->linear ? linear_match(m, toplevel) : match(m, toplevel);
}

static void fill_spans(const struct pyre__vm *m, long *spans)
{
    size_t g;

    spans[0] = (long)m->start;
    spans[1] = (long)m->ptr;
    for (g = 0; g < m->re->groups; g++) {
        size_t j = 2 * g;
        int set = (int)j + 1 <= m->lastmark && m->mark[j] != NONE &&
                  m->mark[j + 1] != NONE;
        spans[2 * g + 2] = set ? (long)m->mark[j] : -1;
        spans[2 * g + 3] = set ? (long)m->mark[j + 1] : -1;
    }
}

/* sre's INFO check: where the last start worth trying is, minwidth - 1
 * characters before the end; 0 when fewer than minwidth characters are
 * left after from (then nothing can match, and sre does not try). */
static int last_start(struct pyre__vm *m, size_t from, size_t *end)
{
    uint32_t lo = m->re->minwidth, i;
    size_t q = m->n;

    for (i = 0; i + 1 < lo && q > from; i++)
        q = pyre__prev(m->s, q);
    *end = q;
    if (spend(m, i) != 0)
        return PYRE_ELIMIT;
    return lo == 0 || q > from;
}

/* The prefilter (pyre_impl.h): the first start at or after p, p a code
 * point's start, and at most end whose byte a match can begin with; NONE
 * when there is none. Only ASCII bytes are passed over (the set holds
 * every non-ASCII byte or none), each a code point of its own, so where
 * the scan stops is a code point's start too. */
static size_t next_start(const struct pyre__vm *m, size_t p, size_t end)
{
    const struct pyre *re = m->re;
    const unsigned char *s = m->s, *hit;
    size_t lim = end < m->n ? end + 1 : m->n;

    if (re->first_kind == GRADER__FIRST_BYTE) {
        hit = p < lim ? memchr(s + p, re->first_byte, lim - p) : NULL;
        return hit != NULL ? (size_t)(hit - s) : NONE;
    }
    while (p < lim && !re->first[s[p]])
        p++;
    return p < lim ? p : NONE;
}

static int search(struct pyre__vm *m, const unsigned char *s, size_t n,
                  size_t from, int must_advance, long *spans)
{
    size_t p = from, end, len;
    int rc, filter = m->re->first_kind != GRADER__FIRST_ALL;

    m->s = s;
    m->n = n;
    m->must_advance = must_advance;
    if (p > n || (rc = last_start(m, from, &end)) <= 0)
        return p > n ? 0 : rc;
    /* a start the prefilter passes over would fail at once: it costs
     * nothing */
    rc = filter && next_start(m, p, end) != p ? 0 : attempt(m, p, 1);
    m->must_advance = 0;
    /* anchored at the beginning: no other start can match */
    if (rc == 0 && m->code[0] == GRADER__OP_AT &&
        (m->code[1] == GRADER__AT_BEGINNING ||
         m->code[1] == GRADER__AT_BEGINNING_STRING))
        return 0;
    while (rc == 0 && p < end) {
        (void)pyre__decode(s, n, p, &len);
        p += len;
        if (filter && (p = next_start(m, p, end)) == NONE)
            break;
        rc = attempt(m, p, 0);
    }
    if (rc == 1)
        fill_spans(m, spans);
    return rc;
}

int pyre__search(struct pyre__vm *m, const unsigned char *s, size_t n,
                 size_t from, int must_advance, unsigned long long *budget,
                 long *spans)
{
    int rc;

    m->steps = *budget; /* a copy the steps come off, given back */
    rc = search(m, s, n, from, must_advance, spans);
    *budget = m->steps;
    return rc;
}

int pyre__may_start(const struct pyre *re, const unsigned char *s, size_t n,
                    size_t from)
{
    if (re->first_kind == GRADER__FIRST_ALL)
        return 1;
    if (from >= n) /* a match takes a character */
        return 0;
    if (re->first_kind == GRADER__FIRST_BYTE)
        return memchr(s + from, re->first_byte, n - from) != NULL;
    for (; from < n; from++)
        if (re->first[s[from]])
            return 1;
    return 0;
}

int pyre__vm_new(const struct pyre *re, struct pyre__vm **out)
{
    size_t marks = (2 * re->groups + 1) * sizeof(size_t);
    /* the matcher's state and its marks in one block; the small stack
     * needs no clearing */
    struct pyre__vm *m = pyre__malloc(sizeof(*m) + marks);

    *out = NULL;
    if (m == NULL)
        return PYRE_ENOMEM;
    memset(m, 0, offsetof(struct pyre__vm, small));
    m->mark = (size_t *)(void *)(m + 1);
    memset(m->mark, 0, marks);
    m->stack = (unsigned char *)m->small;
    m->cap = sizeof(m->small);
    m->re = re;
    m->code = re->code;
    *out = m;
    return 0;
}

void pyre__vm_free(struct pyre__vm *m)
{
    if (m == NULL)
        return;
    if (m->stack != (unsigned char *)m->small)
        pyre__dealloc(m->stack);
    pyre__dealloc(m);
}
