/*
 * Compiled core of the project's DRAT checker (blackhole.drat).
 *
 * check() and check_flat() run the same algorithm as drat/python_engine.py's Checker,
 * step for step and in the same order (the forward pass, then the backward core-first
 * checks: RUP, and RAT on the lemma's first literal when RUP fails), over flat int
 * arrays instead of Python lists, so the two engines count the same core lemmas, RUP
 * literals and RAT lemmas on every proof.  It may only ACCEPT: a lemma that is
 * neither RUP nor RAT (the proof may be wrong), a proof without a conflict, anything
 * it does not expect or cannot allocate, all end in HANDOVER, and the caller then
 * lets the Python checker give the verdict.
 *
 * parse_binary() and parse_text() read a well-formed DRAT proof into flat buffers
 * (int32 literals, int64 step offsets, a byte per step); on anything else they return
 * None and the Python parser reads the file and says what is wrong with it.
 *
 * Literals index per-literal arrays through a pointer to the middle of each
 * allocation (arr[-v] and arr[v] are both valid for 1 <= v <= n).  tv[l] is
 * the stamp of literal l (true iff tv[l] >= stamp; TOP is the top level), and
 * why[l] is 0 (an assumption), a literal t (binary formula clause (-t l)), or
 * c + K (clause c, K = n + 1).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ACCEPT = 0, HANDOVER = 1, TIMEOUT = 2, INTERRUPTED = 3 };

#define POLL_NS 50000000 /* how often the check looks at Python's signal handlers */

typedef struct {
    int32_t *a;
    uint32_t n, cap;
} Vec;

typedef struct {
    /* sizes */
    int32_t n, K, top, stamp;
    int32_t nf;       /* formula clauses */
    int32_t ncls;     /* clauses so far (formula + lemmas added) */
    int32_t maxcls;   /* room for this many clauses */
    /* per literal (pointers to the middle of the allocations) */
    int32_t *tv, *why, *pos;
    uint8_t *seen, *mark;
    Vec *imp, *wcore, *wnon;
    int32_t *tv_base, *why_base, *pos_base;
    uint8_t *seen_base, *mark_base;
    Vec *imp_base, *wcore_base, *wnon_base;
    /* trail */
    int32_t *trail;
    int32_t tlen;
    /* clauses: literals of clause c at lits[start[c]], len[c] of them, after c and
     * len[c] (lits[start[c] - 2], lits[start[c] - 1]); the watch lists hold start[c],
     * so that a visit reads the clause's cache line and nothing else */
    int32_t *lits;
    int64_t nlits, litcap;
    int64_t *start;
    int32_t *len;
    uint8_t *core, *active;
    /* deletion index: hash chains over clause literal sets */
    uint64_t *hash;
    int32_t *next, *bucket;
    uint64_t nbuckets;
    int32_t conf_lit;
    Vec touched, stack;
    /* RAT checks: each lemma's pivot (its first literal as written), the clauses
     * holding each literal (built at the first RAT check), a resolvent */
    int32_t *pivot;
    int64_t *occ_base, *occ_start; /* clause ids with literal l: occ[occ_start[l]..[l+1]) */
    int32_t *occ;
    Vec res, cands;
    /* the formula and proof as given */
    int32_t *flits;      /* formula literals */
    int64_t *fstart;     /* nf + 1 offsets */
    int32_t *plits;      /* proof literals */
    int64_t *pstart;     /* nsteps + 1 offsets */
    uint8_t *pdel;       /* step is a deletion */
    int32_t nsteps;
    int borrowed;        /* plits, pstart and pdel are a caller's buffers, not ours */
    /* forward-pass record, for the backward pass */
    int32_t *step_c, *step_t;
    int32_t nrec;
    /* deadline, and the signal handlers (polled without the GIL held between) */
    int has_deadline;
    int64_t deadline_ns; /* CLOCK_MONOTONIC */
    int64_t polled_ns;
    PyObject *stop;      /* a caller's bytearray, or NULL: its first byte set stops the check */
    PyThreadState *save;
    int32_t *units, *scratch;
    /* outcome */
    jmp_buf fail;
    int status;
    const char *note;
    int64_t core_lemmas, rup_literals, ignored_deletions, trivial, rat_lemmas;
} Ck;

/* Leave the check: HANDOVER (note says why) or TIMEOUT. */
static void bail(Ck *k, int status, const char *note)
{
    k->status = status;
    k->note = note;
    longjmp(k->fail, 1);
}

static void push(Ck *k, Vec *v, int32_t x)
{
    if (v->n == v->cap) {
        uint32_t cap = v->cap ? 2 * v->cap : 4;
        int32_t *a;
        if (v->cap >= (1u << 30))
            bail(k, HANDOVER, "a list grew too long");
        a = realloc(v->a, (size_t)cap * sizeof *a);
        if (!a)
            bail(k, HANDOVER, "out of memory");
        v->a = a;
        v->cap = cap;
    }
    v->a[v->n++] = x;
}

/* Remove the first x from v, keeping the order of the rest (as list.remove). */
static void drop(Ck *k, Vec *v, int32_t x)
{
    uint32_t i;
    for (i = 0; i < v->n; i++) {
        if (v->a[i] == x) {
            memmove(v->a + i, v->a + i + 1, (size_t)(v->n - i - 1) * sizeof *v->a);
            v->n--;
            return;
        }
    }
    bail(k, HANDOVER, "internal: a watch to remove is missing");
}

static void *zalloc(Ck *k, size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size);
    if (!p)
        bail(k, HANDOVER, "out of memory");
    return p;
}

static int64_t now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/* Stop at the deadline; now and then, run Python's signal handlers (Ctrl-C) and read
 * the caller's stop flag, both with the GIL held. */
static void poll(Ck *k)
{
    int64_t now = now_ns();
    if (k->has_deadline && now > k->deadline_ns)
        bail(k, TIMEOUT, "deadline");
    if (now - k->polled_ns > POLL_NS) {
        int raised, stopped;
        k->polled_ns = now;
        PyEval_RestoreThread(k->save);
        raised = PyErr_CheckSignals();
        stopped = k->stop && PyByteArray_GET_SIZE(k->stop) > 0
                  && PyByteArray_AS_STRING(k->stop)[0];
        k->save = PyEval_SaveThread();
        if (raised)
            bail(k, INTERRUPTED, "interrupted");
        if (stopped)
            bail(k, TIMEOUT, "stopped");
    }
}

#define CL(k, c) ((k)->lits + (k)->start[c])

/* ------------------------------------------------------------------ propagation */

/* Propagate trail[q:] to fixpoint, core first (as Checker._propagate): 0, or the
 * conflict, a clause code c + K or the true literal t of a binary formula clause
 * (-t conf_lit) whose other literal is false. */
static int32_t propagate(Ck *k, int32_t q)
{
    int32_t *tv = k->tv, *why = k->why, *trail = k->trail;
    int32_t *lits = k->lits;
    int32_t s = k->stamp, K = k->K;
    int32_t qn = q;
    for (;;) {
        int32_t fl;
        Vec *watch, *ws;
        int32_t *wa;
        uint32_t i, j, end;
        if (q < k->tlen) {
            int32_t t = trail[q++];
            Vec *im = &k->imp[t];
            uint32_t m;
            for (m = 0; m < im->n; m++) {
                int32_t o = im->a[m];
                if (tv[o] < s) {
                    if (tv[-o] >= s) {
                        k->conf_lit = o;
                        return t;
                    }
                    tv[o] = s;
                    why[o] = t;
                    trail[k->tlen++] = o;
                }
            }
            fl = -t;
            watch = k->wcore;
        } else if (qn < k->tlen) {
            fl = -trail[qn++];
            watch = k->wnon;
        } else {
            return 0;
        }
        ws = &watch[fl];
        if (!ws->n)
            continue;
        wa = ws->a;
        end = ws->n;
        i = j = 0;
        while (i < end) {
            int32_t w = wa[i++]; /* where the clause's literals start */
            int32_t *cl = lits + w;
            int32_t c = cl[-2], size = cl[-1], other = cl[0], m;
            int moved = 0;
            if (other == fl) {
                other = cl[1];
                cl[0] = other;
                cl[1] = fl;
            } else if (cl[1] != fl) {
                bail(k, HANDOVER, "internal: a clause is watched on a literal it does not watch");
            }
            if (tv[other] >= s) {
                wa[j++] = w;
                continue;
            }
            for (m = 2; m < size; m++) {
                int32_t lit = cl[m];
                if (tv[-lit] < s) {
                    cl[1] = lit;
                    cl[m] = fl;
                    push(k, &watch[lit], w); /* lit != fl: never the list walked */
                    moved = 1;
                    break;
                }
            }
            if (moved)
                continue;
            wa[j++] = w;
            if (tv[-other] >= s) {
                memmove(wa + j, wa + i, (size_t)(end - i) * sizeof *wa);
                ws->n = j + (end - i);
                return c + K;
            }
            tv[other] = s;
            why[other] = c + K;
            trail[k->tlen++] = other;
        }
        ws->n = j;
    }
}

static void assign(Ck *k, int32_t lit, int32_t code)
{
    k->tv[lit] = k->stamp;
    k->why[lit] = code;
    k->trail[k->tlen++] = lit;
}

static void truncate_trail(Ck *k, int32_t to)
{
    int32_t i;
    for (i = to; i < k->tlen; i++) {
        int32_t lit = k->trail[i];
        k->tv[lit] = 0;
        k->seen[lit] = 0;
    }
    k->tlen = to;
}

/* ------------------------------------------------------------------ watches */

/* Adds (push) or removes (drop) clause c's two watches: a binary formula clause as two
 * implications, any other clause in the core or non-core watch lists. */
static void rewatch(Ck *k, int32_t c, void (*op)(Ck *, Vec *, int32_t))
{
    int32_t *cl = CL(k, c);
    if (c < k->nf && k->len[c] == 2) {
        op(k, &k->imp[-cl[0]], cl[1]);
        op(k, &k->imp[-cl[1]], cl[0]);
    } else {
        Vec *w = k->core[c] ? k->wcore : k->wnon;
        op(k, &w[cl[0]], (int32_t)k->start[c]);
        op(k, &w[cl[1]], (int32_t)k->start[c]);
    }
}

static void watch_clause(Ck *k, int32_t c) { rewatch(k, c, push); }

static void unwatch_clause(Ck *k, int32_t c) { rewatch(k, c, drop); }

/* Watch clause c (length >= 2) with its non-false literals first; return how many
 * there are (at most 2).  In the backward pass (pos set) a missing watch is the
 * false literal assigned last (as Checker._attach). */
static int attach(Ck *k, int32_t c, int backward)
{
    int32_t *cl = CL(k, c), size = k->len[c], i, t, s = k->stamp;
    int found = 0;
    for (i = 0; i < size; i++) {
        if (k->tv[-cl[i]] < s) {
            t = cl[found];
            cl[found] = cl[i];
            cl[i] = t;
            if (++found == 2)
                break;
        }
    }
    if (found < 2 && backward) {
        int slot;
        for (slot = found; slot < 2; slot++) {
            int32_t best = slot, best_pos = -1;
            for (i = slot; i < size; i++) {
                int32_t p = k->pos[-cl[i]];
                if (p < 0)
                    bail(k, HANDOVER, "internal: a false literal is off the trail");
                if (p > best_pos) {
                    best = i;
                    best_pos = p;
                }
            }
            t = cl[slot];
            cl[slot] = cl[best];
            cl[best] = t;
        }
    }
    watch_clause(k, c);
    return found;
}

static void mark_core(Ck *k, int32_t c)
{
    k->core[c] = 1;
    if (k->len[c] >= 2 && k->active[c]) {
        int32_t *cl = CL(k, c);
        int32_t w = (int32_t)k->start[c];
        drop(k, &k->wnon[cl[0]], w);
        drop(k, &k->wnon[cl[1]], w);
        push(k, &k->wcore[cl[0]], w);
        push(k, &k->wcore[cl[1]], w);
    }
}

static int is_reason(Ck *k, int32_t c)
{
    int32_t *cl = CL(k, c), *tv = k->tv, *why = k->why, top = k->top;
    if (c < k->nf && k->len[c] == 2) {
        int32_t a = cl[0], b = cl[1];
        return (tv[a] == top && why[a] == -b) || (tv[b] == top && why[b] == -a);
    }
    return tv[cl[0]] == top && why[cl[0]] == c + k->K;
}

/* ------------------------------------------------------------------ analysis */

static void see(Ck *k, int32_t lit, int also_touched)
{
    if (!k->seen[lit]) {
        k->seen[lit] = 1;
        push(k, &k->stack, lit);
        if (also_touched)
            push(k, &k->touched, lit);
    }
}

/* Mark as core every lemma behind the conflict conf (or 0) and the true literal
 * start (or 0), as Checker._analyze. */
static void analyze(Ck *k, int32_t conf, int32_t start)
{
    int32_t n = k->n, K = k->K;
    uint32_t m;
    k->stack.n = 0;
    if (start)
        see(k, start, 0);
    if (conf > n) {
        int32_t c = conf - K, *cl = CL(k, c), i;
        if (!k->core[c])
            mark_core(k, c);
        for (i = 0; i < k->len[c]; i++)
            see(k, -cl[i], 0);
    } else if (conf) {
        see(k, conf, 0);
        see(k, -k->conf_lit, 0);
    }
    for (m = 0; m < k->stack.n; m++)
        push(k, &k->touched, k->stack.a[m]);
    while (k->stack.n) {
        int32_t t = k->stack.a[--k->stack.n];
        int32_t w = k->why[t];
        if (w > n) {
            int32_t c = w - K, *cl = CL(k, c), i;
            if (!k->core[c])
                mark_core(k, c);
            for (i = 0; i < k->len[c]; i++)
                if (cl[i] != t)
                    see(k, -cl[i], 1);
        } else if (w) {
            see(k, w, 1);
        }
    }
}

/* Is the clause cl (size literals) implied by unit propagation on the active
 * clauses? (Checker._rup) */
static int rup(Ck *k, const int32_t *cl, int32_t size)
{
    int32_t s = k->stamp, base = k->tlen, i;
    int32_t *tv = k->tv, conf = 0;
    uint32_t m;
    int early = 0;
    for (i = 0; i < size; i++) {
        int32_t lit = cl[i];
        if (tv[lit] >= s) {
            analyze(k, 0, lit);
            conf = -1;
            early = 1;
            break;
        }
        if (tv[-lit] < s) {
            tv[-lit] = s;
            k->why[-lit] = 0;
            k->trail[k->tlen++] = -lit;
        }
    }
    if (!early) {
        conf = propagate(k, base);
        if (conf)
            analyze(k, conf, 0);
    }
    k->rup_literals += k->tlen - base;
    k->tlen = base;
    k->stamp = s + 1;
    if (k->stamp == k->top) {
        int32_t v;
        for (v = -k->n; v <= k->n; v++)
            if (tv[v] != k->top)
                tv[v] = 0;
        k->stamp = 1;
    }
    for (m = 0; m < k->touched.n; m++) {
        int32_t lit = k->touched.a[m];
        if (tv[lit] != k->top)
            k->seen[lit] = 0;
    }
    k->touched.n = 0;
    return conf != 0;
}

/* The clauses holding each literal, every clause so far in order of id (their
 * literal sets never change, only the order of their literals): built once, at the
 * first RAT check. */
static void build_occurrences(Ck *k)
{
    int64_t total = (int64_t)2 * k->n + 1, sum = 0, *at;
    int32_t c, i, l;
    k->occ_base = zalloc(k, (size_t)total + 1, sizeof(int64_t));
    k->occ_start = k->occ_base + k->n;
    for (c = 0; c < k->ncls; c++)
        for (i = 0; i < k->len[c]; i++)
            k->occ_start[CL(k, c)[i] + 1]++;
    for (l = -k->n + 1; l <= k->n + 1; l++) /* the count of l - 1 at l: to offsets */
        k->occ_start[l] += k->occ_start[l - 1];
    sum = k->occ_start[k->n + 1];
    k->occ = zalloc(k, (size_t)sum, sizeof(int32_t));
    at = zalloc(k, (size_t)total, sizeof(int64_t));
    at += k->n;
    for (l = -k->n; l <= k->n; l++)
        at[l] = k->occ_start[l];
    for (c = 0; c < k->ncls; c++)
        for (i = 0; i < k->len[c]; i++)
            k->occ[at[CL(k, c)[i]]++] = c;
    free(at - k->n);
}

/* RAT on the pivot (Checker._rat): every resolvent of lemma c with an active clause
 * d < c holding -pivot is RUP (tautologies skipped), in order of d; then those
 * clauses that are lemmas are core. */
static int rat(Ck *k, int32_t c, int32_t pivot)
{
    int32_t neg = -pivot, *cl = CL(k, c), size = k->len[c], i;
    int64_t m;
    uint32_t j;
    if (!k->occ)
        build_occurrences(k);
    k->cands.n = 0;
    for (m = k->occ_start[neg]; m < k->occ_start[neg + 1]; m++) {
        int32_t d = k->occ[m];
        if (d >= c)
            break;
        if (k->active[d])
            push(k, &k->cands, d);
    }
    for (j = 0; j < k->cands.n; j++) {
        int32_t d = k->cands.a[j], *dl = CL(k, d), tautology = 0;
        k->res.n = 0;
        for (i = 0; i < size; i++)
            push(k, &k->res, cl[i]);
        for (i = 0; i < k->len[d]; i++)
            if (dl[i] != neg)
                push(k, &k->res, dl[i]);
        for (m = 0; m < k->res.n; m++)
            k->mark[k->res.a[m]] = 1;
        for (m = 0; m < k->res.n && !tautology; m++)
            tautology = k->mark[-k->res.a[m]];
        for (m = 0; m < k->res.n; m++)
            k->mark[k->res.a[m]] = 0;
        if (tautology)
            continue;
        poll(k);
        if (!rup(k, k->res.a, (int32_t)k->res.n))
            return 0;
    }
    for (j = 0; j < k->cands.n; j++) {
        int32_t d = k->cands.a[j];
        if (d >= k->nf && !k->core[d])
            mark_core(k, d);
    }
    return 1;
}

/* ------------------------------------------------------------------ clause index */

static uint64_t mix(int32_t lit)
{
    uint64_t z = (uint64_t)(int64_t)lit + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A hash of a set of literals, independent of their order. */
static uint64_t set_hash(const int32_t *cl, int32_t size)
{
    uint64_t h = (uint64_t)size * 0x2545F4914F6CDD1Dull;
    int32_t i;
    for (i = 0; i < size; i++)
        h += mix(cl[i]);
    return h;
}

static void index_clause(Ck *k, int32_t c)
{
    uint64_t h = set_hash(CL(k, c), k->len[c]);
    uint64_t b = h & (k->nbuckets - 1);
    k->hash[c] = h;
    k->next[c] = k->bucket[b];
    k->bucket[b] = c;
}

/* The active clause with the highest id whose literal set is the set of lits
 * (no duplicates in lits), or -1.  The index lists every clause, newest first. */
static int32_t find_clause(Ck *k, const int32_t *lits, int32_t size)
{
    uint64_t h = set_hash(lits, size);
    int32_t c, i, found = -1;
    for (i = 0; i < size; i++)
        k->mark[lits[i]] = 1;
    for (c = k->bucket[h & (k->nbuckets - 1)]; c >= 0; c = k->next[c]) {
        int32_t *cl;
        if (k->hash[c] != h || k->len[c] != size || !k->active[c])
            continue;
        cl = CL(k, c);
        for (i = 0; i < size && k->mark[cl[i]]; i++)
            ;
        if (i == size) {
            found = c;
            break;
        }
    }
    for (i = 0; i < size; i++)
        k->mark[lits[i]] = 0;
    return found;
}

/* ------------------------------------------------------------------ the check */

/* Copy lits (deduplicated, first occurrence kept) as clause c. */
static void add_clause(Ck *k, const int32_t *src, int64_t count)
{
    int32_t c = k->ncls, size = 0;
    int64_t i;
    if (c >= k->maxcls)
        bail(k, HANDOVER, "internal: more clauses than expected");
    k->nlits += 2; /* its id and its length, before its literals: propagate() reads them */
    k->start[c] = k->nlits;
    for (i = 0; i < count; i++) {
        int32_t lit = src[i];
        if (!k->mark[lit]) {
            k->mark[lit] = 1;
            k->lits[k->nlits + size++] = lit;
        }
    }
    for (i = 0; i < size; i++)
        k->mark[k->lits[k->nlits + i]] = 0;
    k->len[c] = size;
    k->lits[k->nlits - 2] = c;
    k->lits[k->nlits - 1] = size;
    k->nlits += size;
    k->ncls++;
}

/* Room for the per-literal and per-clause arrays (zeroed), the trail, the forward
 * pass's record and an empty deletion index; the stamp at TOP. */
static void allocate(Ck *k)
{
    int32_t n = k->n;
    int64_t total = (int64_t)2 * n + 1;

    k->tv_base = zalloc(k, total, sizeof(int32_t));
    k->why_base = zalloc(k, total, sizeof(int32_t));
    k->pos_base = zalloc(k, total, sizeof(int32_t));
    k->seen_base = zalloc(k, total, 1);
    k->mark_base = zalloc(k, total, 1);
    k->imp_base = zalloc(k, total, sizeof(Vec));
    k->wcore_base = zalloc(k, total, sizeof(Vec));
    k->wnon_base = zalloc(k, total, sizeof(Vec));
    k->tv = k->tv_base + n;
    k->why = k->why_base + n;
    k->pos = k->pos_base + n;
    k->seen = k->seen_base + n;
    k->mark = k->mark_base + n;
    k->imp = k->imp_base + n;
    k->wcore = k->wcore_base + n;
    k->wnon = k->wnon_base + n;
    k->trail = zalloc(k, (size_t)n + 1, sizeof(int32_t));
    k->start = zalloc(k, (size_t)k->maxcls, sizeof(int64_t));
    k->len = zalloc(k, (size_t)k->maxcls, sizeof(int32_t));
    k->core = zalloc(k, (size_t)k->maxcls, 1);
    k->active = zalloc(k, (size_t)k->maxcls, 1);
    k->hash = zalloc(k, (size_t)k->maxcls, sizeof(uint64_t));
    k->next = zalloc(k, (size_t)k->maxcls, sizeof(int32_t));
    k->pivot = zalloc(k, (size_t)k->maxcls, sizeof(int32_t));
    if (k->litcap + 2 * (int64_t)k->maxcls >= INT32_MAX)
        bail(k, HANDOVER, "sizes out of range"); /* watches hold int32 offsets */
    k->lits = zalloc(k, (size_t)(k->litcap + 2 * (int64_t)k->maxcls), sizeof(int32_t));
    k->step_c = zalloc(k, (size_t)k->nsteps + 1, sizeof(int32_t));
    k->step_t = zalloc(k, (size_t)k->nsteps + 1, sizeof(int32_t));
    k->units = zalloc(k, (size_t)k->nf, sizeof(int32_t));
    k->scratch = zalloc(k, (size_t)total, sizeof(int32_t));
    k->stack.n = k->touched.n = 0;
    k->nbuckets = 16;
    while (k->nbuckets < (uint64_t)k->maxcls)
        k->nbuckets <<= 1;
    k->bucket = zalloc(k, k->nbuckets, sizeof(int32_t));
    memset(k->bucket, 0xff, k->nbuckets * sizeof(int32_t));
    k->stamp = k->top;
}

/* The formula: binary clauses as implications, longer ones watched on their first
 * two literals, units assigned, then propagation; 1 when that alone refutes it
 * (trivial), as python_engine.py's _load_formula. */
static int load_formula(Ck *k)
{
    int32_t top = k->top, K = k->K, *units = k->units, nunits = 0, conflict = 0, c, i;
    for (c = 0; c < k->nf; c++) {
        int32_t *cl;
        add_clause(k, k->flits + k->fstart[c], k->fstart[c + 1] - k->fstart[c]);
        k->core[c] = 1;
        k->active[c] = 1;
        index_clause(k, c);
        cl = CL(k, c);
        if (k->len[c] == 2) {
            push(k, &k->imp[-cl[0]], cl[1]);
            push(k, &k->imp[-cl[1]], cl[0]);
        } else if (k->len[c] > 2) {
            push(k, &k->wcore[cl[0]], (int32_t)k->start[c]);
            push(k, &k->wcore[cl[1]], (int32_t)k->start[c]);
        } else if (k->len[c] == 1) {
            units[nunits++] = c;
        } else {
            k->trivial = 1; /* the formula holds the empty clause */
            return 1;
        }
    }
    for (i = 0; i < nunits; i++) {
        int32_t lit = CL(k, units[i])[0];
        if (k->tv[-lit] == top) {
            conflict = units[i] + K;
            break;
        }
        if (k->tv[lit] != top)
            assign(k, lit, units[i] + K);
    }
    if (!conflict)
        conflict = propagate(k, 0);
    if (conflict) {
        k->trivial = 1; /* unit propagation alone refutes the formula */
        return 1;
    }
    return 0;
}

/* A deletion step of the forward pass (its count literals at src): the active clause
 * with that set of literals leaves the watches, and the step is recorded. */
static void forward_deletion(Ck *k, const int32_t *src, int64_t count)
{
    int32_t d, *buf = k->scratch, m = 0;
    int64_t j;
    for (j = 0; j < count; j++) { /* the set of its literals */
        if (!k->mark[src[j]]) {
            k->mark[src[j]] = 1;
            buf[m++] = src[j];
        }
    }
    for (j = 0; j < m; j++)
        k->mark[buf[j]] = 0;
    d = find_clause(k, buf, m);
    /* Deletions of unit clauses and of reasons are ignored: the trail then only
     * grows, which the backward pass relies on. */
    if (d < 0 || k->len[d] < 2 || is_reason(k, d)) {
        k->ignored_deletions++;
        return;
    }
    unwatch_clause(k, d);
    k->active[d] = 0;
    k->step_c[k->nrec] = ~d;
    k->step_t[k->nrec++] = k->tlen;
}

/* The forward pass: replay the proof until unit propagation hits a conflict,
 * recording each step; the conflict (it bails without one), as python_engine.py's
 * _forward. */
static int32_t forward(Ck *k)
{
    int32_t top = k->top, K = k->K, c, idx, conflict = 0;
    for (idx = 0; idx < k->nsteps && !conflict; idx++) {
        const int32_t *src = k->plits + k->pstart[idx];
        int64_t count = k->pstart[idx + 1] - k->pstart[idx];
        int32_t *cl, size;
        int found;
        if (!(idx & 1023))
            poll(k);
        if (k->pdel[idx]) {
            forward_deletion(k, src, count);
            continue;
        }
        c = k->ncls;
        add_clause(k, src, count);
        size = k->len[c];
        if (size == 0) {
            k->ncls--;
            bail(k, HANDOVER, "the empty clause is not RUP");
        }
        cl = CL(k, c);
        k->pivot[c] = cl[0];
        k->active[c] = 1;
        index_clause(k, c);
        k->step_c[k->nrec] = c;
        k->step_t[k->nrec++] = k->tlen;
        if (size == 1) {
            int32_t lit = cl[0];
            if (k->tv[-lit] == top)
                conflict = c + K;
            else if (k->tv[lit] != top) {
                assign(k, lit, c + K);
                conflict = propagate(k, k->tlen - 1);
            }
            continue;
        }
        found = attach(k, c, 0);
        if (found == 0)
            conflict = c + K;
        else if (found == 1 && k->tv[cl[0]] != top) {
            assign(k, cl[0], c + K);
            conflict = propagate(k, k->tlen - 1);
        }
    }
    if (!conflict)
        bail(k, HANDOVER, "proof does not derive the empty clause");
    return conflict;
}

/* The backward pass from the final conflict: undo the steps one by one and check
 * every core lemma, RUP then RAT (it bails at one that is neither), as
 * python_engine.py's _backward.  Each RUP check takes a fresh stamp from here on. */
static void backward(Ck *k, int32_t conflict)
{
    int32_t n = k->n, c, i;
    analyze(k, conflict, 0);
    k->touched.n = 0;
    k->stamp = 1;
    for (i = -n; i <= n; i++)
        k->pos[i] = -1;
    for (i = 0; i < k->tlen; i++)
        k->pos[k->trail[i]] = i;
    for (i = k->nrec - 1; i >= 0; i--) {
        c = k->step_c[i];
        if (c < 0) {
            int32_t d = ~c;
            k->active[d] = 1;
            attach(k, d, 1);
            continue;
        }
        if (k->len[c] >= 2)
            unwatch_clause(k, c);
        k->active[c] = 0;
        truncate_trail(k, k->step_t[i]);
        if (!k->core[c])
            continue;
        poll(k);
        k->core_lemmas++;
        if (rup(k, CL(k, c), k->len[c]))
            continue;
        if (!rat(k, c, k->pivot[c]))
            bail(k, HANDOVER, "a core lemma is neither RUP nor RAT");
        k->rat_lemmas++;
    }
}

/* The check of k, as python_engine.py's Checker.run: ACCEPT, or it bails. */
static int run(Ck *k)
{
    if (k->nf == 0)
        bail(k, HANDOVER, "formula has no clauses");
    allocate(k);
    if (load_formula(k))
        return ACCEPT;
    backward(k, forward(k));
    return ACCEPT;
}

static void release(Ck *k)
{
    int64_t total = (int64_t)2 * k->n + 1, i;
    Vec *lists[3] = {k->imp_base, k->wcore_base, k->wnon_base};
    int j;
    for (j = 0; j < 3; j++) {
        if (!lists[j])
            continue;
        for (i = 0; i < total; i++)
            free(lists[j][i].a);
        free(lists[j]);
    }
    free(k->tv_base);
    free(k->why_base);
    free(k->pos_base);
    free(k->seen_base);
    free(k->mark_base);
    free(k->trail);
    free(k->lits);
    free(k->start);
    free(k->len);
    free(k->core);
    free(k->active);
    free(k->hash);
    free(k->next);
    free(k->bucket);
    free(k->flits);
    free(k->fstart);
    if (!k->borrowed) {
        free(k->plits);
        free(k->pstart);
        free(k->pdel);
    }
    free(k->step_c);
    free(k->step_t);
    free(k->units);
    free(k->scratch);
    free(k->touched.a);
    free(k->stack.a);
    free(k->pivot);
    free(k->occ_base);
    free(k->occ);
    free(k->res.a);
    free(k->cands.a);
}

/* ------------------------------------------------------------------ Python side */

/* Append the int literals of the sequence seq to *arr; 0 on success, -1 when a
 * literal is not an int within [-n, n] without 0 (the caller then hands over). */
static int read_lits(PyObject *seq, int32_t n, int32_t **arr, int64_t *count, int64_t *cap)
{
    PyObject *fast = PySequence_Fast(seq, "a clause must be a sequence");
    Py_ssize_t size, i;
    if (!fast)
        return -1;
    size = PySequence_Fast_GET_SIZE(fast);
    if (*count + size > *cap) {
        int64_t want = *cap ? *cap : 1024;
        int32_t *grown;
        while (want < *count + size)
            want *= 2;
        grown = realloc(*arr, (size_t)want * sizeof(int32_t));
        if (!grown) {
            Py_DECREF(fast);
            return -1;
        }
        *arr = grown;
        *cap = want;
    }
    for (i = 0; i < size; i++) {
        int overflow = 0;
        long v = PyLong_AsLongAndOverflow(PySequence_Fast_GET_ITEM(fast, i), &overflow);
        if (overflow || (v == -1 && PyErr_Occurred()) || v == 0 || v > n || v < -(long)n) {
            Py_DECREF(fast);
            return -1;
        }
        (*arr)[(*count)++] = (int32_t)v;
    }
    Py_DECREF(fast);
    return 0;
}

/* The arguments check() and check_flat() share. */
typedef struct {
    long n, top;       /* variables 1..n; the TOP stamp */
    PyObject *clauses; /* the formula: a sequence of sequences of int literals */
    int timed;         /* stop at a deadline, seconds from now */
    double seconds;
    PyObject *stop;    /* a bytearray, or NULL: its first byte set stops the check */
} Args;

static PyObject *result(int status, const char *note, Ck *k);

/* A handover for input the core does not take; frees k. */
static PyObject *unusual_input(Ck *k)
{
    PyObject *out;
    PyErr_Clear();
    out = result(HANDOVER, "input the compiled core does not take", k);
    release(k);
    free(k);
    return out;
}

static PyObject *result(int status, const char *note, Ck *k)
{
    return Py_BuildValue("(isLLLLL)", status, note ? note : "", (long long)k->core_lemmas,
                         (long long)k->rup_literals, (long long)k->ignored_deletions,
                         (long long)k->trivial, (long long)k->rat_lemmas);
}

/* The check of k (formula and proof read in), with the GIL released; frees k. */
static PyObject *run_check(Ck *k, const Args *a)
{
    PyObject *out, *stop = a->stop;
    double seconds = a->seconds;
    int status;
    k->stop = stop; /* borrowed: the caller's arguments hold it for the call */
    if (k->nf + k->maxcls + (int64_t)k->n + 2 >= INT32_MAX) {
        out = result(HANDOVER, "input the compiled core does not take", k);
        release(k);
        free(k);
        return out; /* clause codes c + K must fit */
    }
    k->maxcls += k->nf;
    if (a->timed) { /* seconds from now, within a few years either way */
        k->has_deadline = 1;
        seconds = seconds > 1e8 ? 1e8 : seconds < -1e8 ? -1e8 : seconds;
        k->deadline_ns = now_ns() + (int64_t)(seconds * 1e9);
    }
    k->polled_ns = now_ns();
    if (stop && PyByteArray_GET_SIZE(stop) > 0 && PyByteArray_AS_STRING(stop)[0]) {
        out = result(TIMEOUT, "stopped", k); /* stopped before it began */
        release(k);
        free(k);
        return out;
    }
    k->save = PyEval_SaveThread();
    if (setjmp(k->fail) == 0)
        status = run(k);
    else
        status = k->status;
    PyEval_RestoreThread(k->save);
    out = status == INTERRUPTED ? NULL : result(status, k->note, k);
    release(k);
    free(k);
    return out;
}

/* A new check of variables 1..a->n (TOP stamp a->top), with the formula a->clauses
 * read in; NULL with *out set (a handover, or an exception) when it cannot be. */
static Ck *start_check(const Args *a, PyObject **out)
{
    Ck *k = calloc(1, sizeof *k);
    PyObject *fast;
    int64_t fcap = 0, nf, i;
    *out = NULL;
    if (!k) {
        PyErr_NoMemory();
        return NULL;
    }
    if (a->n < 0 || a->n >= (1L << 29) || a->top < 2 || a->top >= INT32_MAX) {
        *out = result(HANDOVER, "sizes out of range", k);
        free(k);
        return NULL;
    }
    k->n = (int32_t)a->n;
    k->K = k->n + 1;
    k->top = (int32_t)a->top;
    fast = PySequence_Fast(a->clauses, "clauses must be a sequence");
    if (!fast)
        goto unusual;
    nf = PySequence_Fast_GET_SIZE(fast);
    if (nf >= INT32_MAX / 4)
        goto unusual;
    k->nf = (int32_t)nf;
    k->fstart = malloc((size_t)(nf + 1) * sizeof(int64_t));
    if (!k->fstart)
        goto unusual;
    k->fstart[0] = 0;
    for (i = 0; i < nf; i++) {
        int64_t count = k->fstart[i];
        if (read_lits(PySequence_Fast_GET_ITEM(fast, i), k->n, &k->flits, &count, &fcap) < 0)
            goto unusual;
        k->fstart[i + 1] = count;
    }
    Py_DECREF(fast);
    k->litcap = k->fstart[nf] + 1;
    return k;

unusual:
    Py_XDECREF(fast);
    *out = unusual_input(k);
    return NULL;
}

/* The optional stop argument: None becomes NULL; anything but a bytearray is a
 * TypeError (0). */
static int stop_flag(PyObject **stop)
{
    if (*stop == Py_None)
        *stop = NULL;
    if (*stop && !PyByteArray_Check(*stop)) {
        PyErr_SetString(PyExc_TypeError, "stop must be a bytearray");
        return 0;
    }
    return 1;
}

PyDoc_STRVAR(check_doc,
"check(n, top, clauses, proof, timed, seconds[, stop]) -> (status, note, core_lemmas,\n"
"rup_literals, ignored_deletions, trivial, rat_lemmas)\n\n"
"Check the DRAT proof (a sequence of (is_deletion, literals)) of the formula clauses\n"
"over variables 1..n, as blackhole.drat's Python checker does (top: its TOP stamp).\n"
"status 0: accepted; 1: handed over (note says why; the Python checker must judge);\n"
"2: timed and the deadline, seconds from now, came first, or the first byte of the\n"
"bytearray stop was set (read every 50 ms).  An exception raised by a\n"
"signal handler (KeyboardInterrupt) during the check stops it and propagates.");

static PyObject *check(PyObject *self, PyObject *args)
{
    Args a = {0};
    PyObject *proof, *fproof = NULL, *out;
    Ck *k;
    int64_t pcap = 0, nsteps, nlemmas = 0, i;
    (void)self;
    if (!PyArg_ParseTuple(args, "llOOpd|O", &a.n, &a.top, &a.clauses, &proof, &a.timed,
                          &a.seconds, &a.stop) || !stop_flag(&a.stop))
        return NULL;
    k = start_check(&a, &out);
    if (!k)
        return out;
    fproof = PySequence_Fast(proof, "proof must be a sequence");
    if (!fproof)
        goto unusual;
    nsteps = PySequence_Fast_GET_SIZE(fproof);
    if (nsteps >= INT32_MAX / 4)
        goto unusual;
    k->nsteps = (int32_t)nsteps;
    k->pstart = malloc((size_t)(nsteps + 1) * sizeof(int64_t));
    k->pdel = malloc((size_t)nsteps + 1);
    if (!k->pstart || !k->pdel)
        goto unusual;
    k->pstart[0] = 0;
    for (i = 0; i < nsteps; i++) {
        PyObject *step = PySequence_Fast(PySequence_Fast_GET_ITEM(fproof, i),
                                         "a proof step must be a pair");
        int64_t count = k->pstart[i];
        int del;
        if (!step)
            goto unusual;
        if (PySequence_Fast_GET_SIZE(step) != 2
            || (del = PyObject_IsTrue(PySequence_Fast_GET_ITEM(step, 0))) < 0
            || read_lits(PySequence_Fast_GET_ITEM(step, 1), k->n, &k->plits, &count,
                         &pcap) < 0) {
            Py_DECREF(step);
            goto unusual;
        }
        Py_DECREF(step);
        k->pdel[i] = (uint8_t)del;
        if (!del) {
            nlemmas++;
            k->litcap += count - k->pstart[i];
        }
        k->pstart[i + 1] = count;
    }
    Py_CLEAR(fproof);
    k->maxcls = (int32_t)nlemmas;
    return run_check(k, &a);

unusual:
    Py_XDECREF(fproof);
    return unusual_input(k);
}

PyDoc_STRVAR(check_flat_doc,
"check_flat(n, top, clauses, lits, starts, dels, timed, seconds[, stop]) -> as check()\n\n"
"check() with the proof in flat buffers: the literals of step i are\n"
"lits[starts[i]:starts[i + 1]] (int32 and int64 items), and dels[i] is 1 for a\n"
"deletion (bytes); len(starts) == len(dels) + 1.  The buffers are read in place.");

/* Is format (a buffer's struct format) one item of a kind in kinds, native or '='? */
static int integer_format(const char *format, const char *kinds)
{
    if (!format)
        return 0;
    if (format[0] == '=' || format[0] == '@')
        format++;
    return format[0] && !format[1] && strchr(kinds, format[0]);
}

static PyObject *check_flat(PyObject *self, PyObject *args)
{
    Args a = {0};
    PyObject *bl, *bs, *bd, *out;
    Py_buffer vl = {0}, vs = {0}, vd = {0};
    int have = 0;
    Ck *k;
    int64_t nsteps, nlemmas = 0, i, j, nlits;
    (void)self;
    if (!PyArg_ParseTuple(args, "llOOOOpd|O", &a.n, &a.top, &a.clauses, &bl, &bs, &bd,
                          &a.timed, &a.seconds, &a.stop) || !stop_flag(&a.stop))
        return NULL;
    k = start_check(&a, &out);
    if (!k)
        return out;
    if (PyObject_GetBuffer(bl, &vl, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        goto unusual;
    have = 1;
    if (PyObject_GetBuffer(bs, &vs, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        goto unusual;
    have = 2;
    if (PyObject_GetBuffer(bd, &vd, PyBUF_C_CONTIGUOUS) < 0)
        goto unusual;
    have = 3;
    if (vl.itemsize != 4 || vs.itemsize != 8 || !integer_format(vl.format, "i")
        || !integer_format(vs.format, "qlL"))
        goto unusual;
    nlits = vl.len / 4;
    nsteps = vd.len;
    if (vs.len / 8 != nsteps + 1 || nsteps >= INT32_MAX / 4)
        goto unusual;
    k->plits = vl.buf;
    k->pstart = vs.buf;
    k->pdel = vd.buf;
    k->borrowed = 1;
    k->nsteps = (int32_t)nsteps;
    if (k->pstart[0] != 0)
        goto unusual;
    for (i = 0; i < nsteps; i++) {
        int64_t a = k->pstart[i], b = k->pstart[i + 1];
        if (b < a || b > nlits || k->pdel[i] > 1)
            goto unusual;
        if (!k->pdel[i]) {
            nlemmas++;
            k->litcap += b - a;
        }
    }
    for (j = 0; j < k->pstart[nsteps]; j++) {
        int32_t v = k->plits[j];
        if (v == 0 || v > k->n || v < -k->n)
            goto unusual;
    }
    k->maxcls = (int32_t)nlemmas;
    out = run_check(k, &a);
    PyBuffer_Release(&vl);
    PyBuffer_Release(&vs);
    PyBuffer_Release(&vd);
    return out;

unusual:
    if (have >= 1)
        PyBuffer_Release(&vl);
    if (have >= 2)
        PyBuffer_Release(&vs);
    if (have >= 3)
        PyBuffer_Release(&vd);
    return unusual_input(k);
}

/* ------------------------------------------------------------------ parsing */

/* The parsers read only well-formed proofs into flat buffers; on anything else they
 * return None and the Python parser reads the proof (and says what is wrong). */

typedef struct {
    PyObject *lits, *starts, *dels, *lines; /* bytes, sized for the most there can be */
    int32_t *l;
    int64_t *s;
    uint8_t *d;
    int32_t *ln;
    int64_t nl, ns;
    int64_t top;
} Out;

static int out_open(Out *o, int64_t max_lits, int64_t max_steps, int with_lines)
{
    memset(o, 0, sizeof *o);
    o->lits = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(max_lits * 4));
    o->starts = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((max_steps + 1) * 8));
    o->dels = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)max_steps);
    o->lines = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(with_lines ? max_steps * 4 : 0));
    if (!o->lits || !o->starts || !o->dels || !o->lines)
        return -1;
    o->l = (int32_t *)PyBytes_AS_STRING(o->lits);
    o->s = (int64_t *)PyBytes_AS_STRING(o->starts);
    o->d = (uint8_t *)PyBytes_AS_STRING(o->dels);
    o->ln = (int32_t *)PyBytes_AS_STRING(o->lines);
    o->s[0] = 0;
    return 0;
}

static void out_drop(Out *o)
{
    Py_XDECREF(o->lits);
    Py_XDECREF(o->starts);
    Py_XDECREF(o->dels);
    Py_XDECREF(o->lines);
}

/* (lits, starts, dels, lines, top) shrunk to what was read. */
static PyObject *out_close(Out *o, int with_lines)
{
    if (_PyBytes_Resize(&o->lits, (Py_ssize_t)(o->nl * 4)) < 0
        || _PyBytes_Resize(&o->starts, (Py_ssize_t)((o->ns + 1) * 8)) < 0
        || _PyBytes_Resize(&o->dels, (Py_ssize_t)o->ns) < 0
        || _PyBytes_Resize(&o->lines, (Py_ssize_t)(with_lines ? o->ns * 4 : 0)) < 0) {
        out_drop(o);
        return NULL;
    }
    return Py_BuildValue("(NNNNL)", o->lits, o->starts, o->dels, o->lines, (long long)o->top);
}

static void out_literal(Out *o, int64_t lit)
{
    int64_t a = lit < 0 ? -lit : lit;
    o->l[o->nl++] = (int32_t)lit;
    if (a > o->top)
        o->top = a;
}

/* Take the bytes of arg and buffers for the most a proof of that size can hold: a
 * binary literal takes a byte at least, a text literal two, and a step two either way
 * (a tag and a 0, or a 0 and a newline).  -1 with an exception set when it cannot. */
static int in_open(PyObject *arg, Py_buffer *v, Out *o, int text)
{
    if (PyObject_GetBuffer(arg, v, PyBUF_SIMPLE) < 0)
        return -1;
    if (out_open(o, text ? v->len / 2 + 1 : v->len + 1, v->len / 2 + 1, text) < 0) {
        out_drop(o);
        PyBuffer_Release(v);
        return -1;
    }
    return 0;
}

/* The parse's result: None when it was bad, else the buffers shrunk to what was read. */
static PyObject *in_close(Py_buffer *v, Out *o, int bad, int text)
{
    PyBuffer_Release(v);
    if (bad) {
        out_drop(o);
        Py_RETURN_NONE;
    }
    return out_close(o, text);
}

PyDoc_STRVAR(parse_binary_doc,
"parse_binary(data) -> (lits, starts, dels, b'', top) or None\n\n"
"A binary DRAT proof read into flat buffers (int32 literals, int64 step offsets,\n"
"a byte per step: 1 for a deletion) with the largest variable; None when the proof\n"
"is malformed or has a literal beyond 2**31 - 1 (the Python parser then reads it).");

static PyObject *parse_binary(PyObject *self, PyObject *arg)
{
    Py_buffer v;
    const uint8_t *p, *end;
    Out o;
    int bad = 0;
    (void)self;
    if (in_open(arg, &v, &o, 0) < 0)
        return NULL;
    p = v.buf;
    end = p + v.len;
    Py_BEGIN_ALLOW_THREADS
    while (p < end && !bad) {
        uint8_t tag = *p++;
        if (tag != 0x61 && tag != 0x64) {
            bad = 1;
            break;
        }
        o.d[o.ns] = tag == 0x64;
        for (;;) {
            uint64_t code = 0;
            int shift = 0;
            for (;;) {
                uint8_t b;
                if (p >= end || shift > 35) {
                    bad = 1;
                    break;
                }
                b = *p++;
                code |= (uint64_t)(b & 0x7f) << shift;
                shift += 7;
                if (b < 0x80)
                    break;
            }
            if (bad || code == 0)
                break;
            if (code == 1 || (code >> 1) > INT32_MAX) {
                bad = 1;
                break;
            }
            out_literal(&o, code & 1 ? -(int64_t)(code >> 1) : (int64_t)(code >> 1));
        }
        if (!bad)
            o.s[++o.ns] = o.nl;
    }
    Py_END_ALLOW_THREADS
    return in_close(&v, &o, bad, 0);
}

PyDoc_STRVAR(parse_text_doc,
"parse_text(data) -> (lits, starts, dels, lines, top) or None\n\n"
"A text DRAT proof (ASCII bytes) read into flat buffers as parse_binary does, with\n"
"the 1-based line of each step (int32).  Lines end in \\n; a line that is blank or\n"
"starts with 'c' (after spaces and tabs) is skipped.  None for anything else the\n"
"Python parser might read otherwise or reject: other control characters, bytes\n"
"beyond ASCII, a token not of the form -?[0-9]+, a literal beyond 2**31 - 1, a line\n"
"without its closing 0 or with a 0 before it.");

static PyObject *parse_text(PyObject *self, PyObject *arg)
{
    Py_buffer v;
    const uint8_t *p, *end;
    Out o;
    int64_t line = 0;
    int bad = 0;
    (void)self;
    if (in_open(arg, &v, &o, 1) < 0)
        return NULL;
    p = v.buf;
    end = p + v.len;
    Py_BEGIN_ALLOW_THREADS
    while (p < end && !bad) {
        int closed = 0;
        line++;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p == end)
            break;
        if (*p == '\n') {
            p++;
            continue;
        }
        if (*p == 'c') { /* a comment: to the end of the line */
            for (; p < end && *p != '\n'; p++)
                if ((*p < 0x20 && *p != '\t') || *p >= 0x7f) {
                    bad = 1;
                    break;
                }
            p++;
            continue;
        }
        o.d[o.ns] = 0;
        if (*p == 'd') {
            o.d[o.ns] = 1;
            p++;
        }
        for (;;) {
            int64_t value = 0;
            int negative = 0, digits = 0;
            while (p < end && (*p == ' ' || *p == '\t'))
                p++;
            if (p == end || *p == '\n')
                break;
            if (closed) {
                bad = 1; /* something after the closing 0 */
                break;
            }
            if (*p == '-') {
                negative = 1;
                p++;
            }
            while (p < end && *p >= '0' && *p <= '9') {
                value = value * 10 + (*p++ - '0');
                if (value > INT32_MAX) {
                    bad = 1;
                    break;
                }
                digits++;
            }
            if (bad || !digits || (p < end && *p != ' ' && *p != '\t' && *p != '\n')) {
                bad = 1;
                break;
            }
            if (value == 0)
                closed = 1;
            else
                out_literal(&o, negative ? -value : value);
        }
        if (bad || !closed) {
            bad = 1;
            break;
        }
        if (p < end)
            p++; /* the \n */
        o.ln[o.ns] = (int32_t)(line > INT32_MAX ? INT32_MAX : line);
        o.s[++o.ns] = o.nl;
        if (line > INT32_MAX)
            bad = 1;
    }
    Py_END_ALLOW_THREADS
    return in_close(&v, &o, bad, 1);
}

static PyMethodDef methods[] = {
    {"check", check, METH_VARARGS, check_doc},
    {"check_flat", check_flat, METH_VARARGS, check_flat_doc},
    {"parse_binary", parse_binary, METH_O, parse_binary_doc},
    {"parse_text", parse_text, METH_O, parse_text_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_drat_core",
    "Compiled core of blackhole.drat: proof parsing, the forward pass and the backward\n"
    "RUP and RAT checks.",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__drat_core(void)
{
    return PyModule_Create(&module);
}
