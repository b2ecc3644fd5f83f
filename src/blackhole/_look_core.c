/* The compiled core of blackhole.look: the same limited discrepancy search as the
 * Python `look`, step for step, over flat arrays.
 *
 * look(fans, fan_ranks, modulus, start_rank, budget, passes, seconds, stop, onto, talon,
 *      talon_ranks, cuts[, covers[, cell]]) -> (status, line, nodes)
 *   fans:       a sequence of sequences of node ids, each fan bottom -> top
 *   fan_ranks:  the same shape, each node's rank (1..modulus)
 *   start_rank: the hole's rank, 0 when the first card is free
 *   passes:     the limited-discrepancy passes before the last, unlimited one
 *   seconds:    a wall-clock limit (<= 0: none); at it the answer is "out of budget"
 *   stop:       a bytearray (or None) another thread may set: once its first byte is not
 *               0 the search ends as "out of budget" (read with the clock, every few ms;
 *               the caller must not resize it meanwhile)
 *   onto:       modulus + 1 sequences: onto[h] the ranks that may go onto hole rank h, as
 *               the game's rules say (look_cuts.onto_table); onto[0] the empty foundation's
 *   talon:      the talon's nodes, the next first (empty: none); a move turns the next one
 *               onto the hole, and the state's key holds how many were turned
 *   talon_ranks: their ranks
 *   cuts:       the cuts that apply besides the memo and the same-rank cut: 1 the
 *               rank-count cut (Black Hole's path only), 2 the parity cut (moves that
 *               change the rank by one, never wrapping), 4 the predecessor cut (at most
 *               62 ranks), 8 the best score's bounds on the rank cycle over fans
 *               (reach_bound and chains_leaving, with the rank-count cut; no cell)
 *   covers:     None (fans: chains), or a cover graph's tables (look/covers.py's
 *               core_layout): (over, beaten, below), one entry a slot, each slot a fan of
 *               one card; over[s] the bitmask of the slots lying on slot s, beaten[s] the
 *               slots of its rank the same-rank cut plays first, below[s] the slots under
 *               it, directly or not (their count is the move order's second key; the
 *               stranded cut). At most 64 slots (else not taken).
 *   cell:       None (no free cell), or a free cell's rules and card (Worm Hole; over
 *               fans only): (cells, parks_left, node, rank), cells 0 or 1, parks_left the
 *               parks a line may still make (-1: any number), node and rank the card in
 *               the cell now (-1 and 0: empty). A park moves a fan's top card with a card
 *               under it into the empty cell, an unpark the cell's card onto the hole; the
 *               cell's card is a card left, and the state's key holds its rank and, for a
 *               limited cell, the parks left
 *   status:     1 a full line (line is a tuple of nodes: every fan card, and the talon
 *               cards turned on the way; a park of node v is written ~v, in its place
 *               among the moves, as look.walk.split_events reads it), 0 refuted, -1 out
 *               of budget,
 *               -2 not taken (ranks outside 1..modulus, sizes beyond its limits): the
 *               caller runs the Python search
 *
 * longest(fans, fan_ranks, modulus, start_rank, budget, passes, seconds, stop, onto, talon,
 *         talon_ranks, cuts, floor, bound[, covers[, cell]]) -> (status, line, nodes)
 *   one round of blackhole.look.longest, the best score: the same search, recording the
 *   longest line it meets, with the cuts of look.walk.worth_test in place of the
 *   win-only ones (a state is cut when no line through it can play more than both the
 *   longest found and floor - 1); status 1 a line of `bound` fan cards, 0 the tree exhausted,
 *   -1 out of budget, -2 not taken; line the longest line found (a tuple, maybe empty)
 *
 * Equal to the Python search in: the order of moves (rank with most cards left first, then
 * the tallest fan, then the lowest fan index, the cell's card after the fans' of its rank;
 * turning the talon after them; parks last: those that free a card fitting the hole
 * first, then the taller fan, then the higher fan index), the passes (allowed = 0, 1,
 * 2, ...), the node count, the dead-state memo (a state is remembered only when its subtree
 * was explored without a cut; a state the cuts end is not), the same-rank cut, the
 * rank-count cut and, with a cell, the cut that never parks a fan's last card (the cell's
 * card takes no part in the same-rank cut, and the best score's bounds on the rank cycle
 * are off: encodings/look.md, "With a free cell"). On a cover graph (look/covers.py):
 * the same, the second key the slots under a card and the same-rank cut the graph's
 * (`beaten`); the memo key is the slots still there, the hole's rank and the talon cards
 * turned.
 *
 * The search runs on an explicit stack (its depth is the number of cards and the parks),
 * the memo is a hash set of exact keys (what is left on the fans as a multiset of rank
 * sequences, as look._memo_code counts it, the hole's rank and, with a cell, the rank of
 * its card and the parks left, packed into bit fields of 64-bit words), so it holds at
 * most one entry per node tried plus one per pass.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

/* a move's sort key: (cards left of its rank, descending; its fan's height, descending;
 * the fan, ascending) in three fields of FIELD bits; fans and cards are at most LIMIT */
#define FIELD 21
#define FAN_MASK ((1ULL << FIELD) - 1)
#define LIMIT 1000000
#define MAX_MOVES (1 << 26) /* entries of the move stack: cards x fans (400 x 134 at most in
                             * a 100-rank deck) */
#define NOT_TAKEN (-2)       /* the status of a problem left to the Python search */
/* a move's third field: fan f's top card onto the hole (f < nfans), turning the talon
 * (TURN_MOVE), the cell's card onto the hole (UNPARK_MOVE), parking fan f's top card
 * (PARK_MOVE(f): the higher fan sorts first, as look.walk.PARK_BASE - f does) */
#define TURN_MOVE(s) ((s)->nfans)
#define UNPARK_MOVE(s) ((s)->nfans + 1)
#define PARK_MOVE(s, f) (2 * (s)->nfans + 1 - (f))
#define UNLIMITED (1LL << 62) /* the discrepancies of the last pass: a plain depth-first one */
#define CLOCK_POLL_MASK ((1LL << 14) - 1) /* nodes between clock reads (a few ms) */
/* Ctrl-C is looked for at each clock read, where the search runs on the thread that
 * handles signals (the main thread), so that it stops
 * within a few milliseconds; a search on another thread is stopped by its flag. */
static unsigned long signal_thread;

typedef struct {
    int hole;         /* the hole's rank on entry (0: any card goes) */
    int cards;        /* cards left on the fans */
    long long allowed; /* discrepancies still allowed below */
    Py_ssize_t moves; /* index of this frame's first move on the move stack */
    int nmoves;
    int turned;       /* the talon's cards turned so far */
    int i;            /* the move being explored */
    int cut;          /* some branch was left unexplored */
    uint64_t free;    /* a cover graph's free slots on entry (covers.py: free[0]) */
    int cell;         /* the rank of the cell's card on entry (0: empty) */
    int uses;         /* the parks left on entry (a cell of any number of uses: 1) */
    long cell_node;   /* the cell's card's node (-1: empty) */
} Frame;

typedef struct {
    /* the deal */
    int nfans, modulus, total;
    int *fan_len;   /* fan -> cards */
    int *fan_off;   /* fan -> offset of its cards in node/rank */
    long *node;     /* node ids, fan by fan, bottom -> top */
    int *rank;      /* ranks, same layout */
    int *onto, *onto_off;   /* onto[onto_off[h] ..]: the ranks that may go onto hole h
                             * (h = 0, the empty foundation: any rank), as the caller's
                             * table says (look_cuts.onto_table, from the game's rules) */
    int ntalon;              /* the talon's cards; a move turns the next onto the hole */
    long *talon_node;        /* the talon's nodes, the next first */
    int *talon_rank;
    int chain;               /* the rank-count cut applies (Black Hole's path) */
    int parity;              /* the parity cut applies (look_cuts.parity_room) */
    int excess;              /* the fans' odd cards less their even cards */
    int *odd_from, *even_from; /* the talon's odd and even ranks from card t on */
    int hall;                /* the predecessor cut applies (look_cuts.hall_room) */
    int *below, *above, *between; /* the cut's links (look_cuts.hall_room): ranks, 0 none */
    int *walks;              /* rank h -> the parities next to h, as bits (1 odd, 2 even) */
    int hall_apart;          /* no link keeps its rank's parity (look_cuts.hall_shortfall) */
    int *talon_left;         /* [t * (m + 1) + h]: the talon's cards of rank h from card t on */
    int hole_bits;           /* the hole's field in the key; the talon's count above it */
    uint64_t turned_bits;    /* the talon's count's field in word 0 (look.walk.Setup.dead:
                              * a state that is dead with t cards turned is dead with more) */
    int cell_shift;          /* the cell's card's rank's field in word 0, above the talon's */
    int uses_shift;          /* the parks left's field, above it (a limited cell's) */
    int state_bits;          /* word 0's bits these fields take; the fans' fields follow */
    /* a free cell (look._FanSetup's cell): there is one (`cells`), `cap` parks at most
     * (0: any number), and at the deal its card (rank 0: empty) and the parks left */
    int cells, cap, start_cell, start_uses;
    long start_cell_node;
    int cards;               /* cards left at the deal: the fans' and the cell's */
    int line_most;           /* the most moves a line makes: the cards, the talon's turns
                              * and the parks (each of a fan card, at most once) */
    int reach;               /* the best score's bounds on the rank cycle run (cuts 8) */
    int bitwords;            /* words of a set of fans */
    uint64_t *showing;       /* rank -> the set of fans whose top card has that rank */
    /* the state */
    int *height;
    int *left;      /* rank -> cards still on the fans */
    int gaps;       /* ranks with no card left */
    long *steps;    /* scratch for ranks_can_chain: 3 (m + 1) */
    /* ranks_can_chain's answers by the counts and the hole, packed in 3 bits a rank: few
     * count vectors recur under many states (10 thousand under 800 thousand nodes on
     * pysol:915); off (chain_cache NULL) for decks it cannot pack */
    uint64_t *chain_cache;
    size_t chain_mask;    /* the cache's slots less one (a power of two less one) */
    size_t chain_misses;  /* answers worked out since the cache last grew */
    uint64_t left_code;
    /* hall_shortfall's answers by the counts (left_code), the hole and the talon cards
     * turned, one a slot (a direct-mapped table; a newer answer takes the slot): few
     * count vectors recur under many states. Off (NULL) where the key does not fit */
    uint64_t *hall_cache;
    int hall_turned_shift;
    /* the memo key (look._memo_code): what is left on the fans, as a multiset of rank
     * sequences, and the hole's rank, in bit fields of 64-bit words (lay_out_key); the
     * hole's field is word 0, bits 0.. A fan adds one number to one word for its top
     * card, so the key is their sum. */
    int words;
    int *add_word;      /* card -> the word it adds to while it is its fan's top card */
    uint64_t *add_val;  /* card -> what it adds then */
    uint64_t *key;  /* the fans' sum (hole's field kept 0) */
    uint64_t *state_key;
    uint64_t *child_key; /* scratch for prefetch_child */
    /* the memo: open addressing, linear probing, an all-zero key marks a free slot (a key
     * looked up always has a card left, so one of its fields is not zero) */
    uint64_t *table;
    size_t capacity, count;
    /* the best score (longest, look.longest's rounds): lines shorter than `floor` are not
     * sought, the search ends at a line of `bound` cards; the longest line found */
    int longest, floor, bound, best_len, best_played; /* the longest line's moves, fan cards */
    long *best_line;
    int *avail;      /* scratch for reach: m + 1 */
    char *inside;    /* scratch for reach: m + 1 */
    int *tried;      /* scratch for chains_leaving: m + 1 stamps */
    int stamp;
    /* the walk: a frame per move on the line and the root, the frames' moves (a frame's
     * at most one a fan and the talon's), the line played so far */
    Frame *frames;
    uint64_t *moves;
    long *line;
    int tallest;          /* the tallest fan at the deal (a move's sort key) */
    int line_len;         /* the full line's moves, once found */
    long long spent;      /* moves tried, over all passes */
    /* a cover graph (look/covers.py), when `covers` is set: each slot a fan of one card
     * (fan f is slot f), at most 64 of them; the slots still there (`present`, also the
     * memo key's word 1), the slots on each slot (`over`), those under it (`under`), the
     * same-rank cut's slots of its rank played first (`beaten`), the slots of each rank
     * (`of_rank`), the slots under each slot at any depth (`beneath`) and their count, the
     * move order's second key (`weight`); the stranded cut's tables (covers.py's
     * CoverSetup): the slots that fit each rank (`fits_on`), the slots each slot may
     * follow (`leads`), the slots that may follow a talon card from card t on
     * (`talon_leads`) */
    int covers;
    uint64_t present, start_free;
    uint64_t *over, *under, *beaten, *of_rank, *beneath, *leads, *fits_on, *talon_leads;
    int *weight;
} Search;

/* the arguments of look and longest, as parse reads them (the objects borrowed from the
 * call's arguments) */
typedef struct {
    PyObject *fans, *fan_ranks, *onto, *talon, *talon_ranks;
    int modulus, start, cuts;
    long long budget, passes;
    double deadline;           /* the clock's end (now()), 0: none */
    volatile const char *stop; /* the stop flag's first byte, read without the GIL; NULL: none */
    int on_signal_thread;      /* the call runs on the thread that handles signals */
    int longest, floor, bound; /* longest: its round's floor and bound */
    PyObject *covers;          /* None or (over, beaten, below): a cover graph's tables */
    int cells, cell_rank;      /* a free cell (0 or 1) and its card's rank (0: empty) */
    long long parks_left;      /* the parks a line may still make (-1: any number) */
    long cell_node;            /* the cell's card (-1: empty) */
} Params;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t mix(uint64_t x) {
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27; x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* the hash of key k, leaving out the bits `ignore` of its word 0 */
static inline uint64_t hash_key(const uint64_t *k, int words, uint64_t ignore) {
    uint64_t h = mix(0x9e3779b97f4a7c15ULL ^ (k[0] & ~ignore));
    for (int w = 1; w < words; w++) h = mix(h ^ k[w]) + (uint64_t)w;
    return h;
}

static inline int is_free(const uint64_t *slot, int words) {
    for (int w = 0; w < words; w++)
        if (slot[w]) return 0;
    return 1;
}

/* what a state puts in word 0 of its key besides the fans: the hole's rank, the talon's
 * cards turned, the rank of the cell's card and, for a limited cell, the parks left */
static inline uint64_t state_fields(const Search *s, int hole, int turned, int cell, int uses) {
    uint64_t k = (uint64_t)hole | ((uint64_t)turned << s->hole_bits)
                 | ((uint64_t)cell << s->cell_shift);
    if (s->cap) k |= (uint64_t)uses << s->uses_shift;
    return k;
}

/* frame fr's state's key into state_key */
static void make_key(Search *s, const Frame *fr) {
    for (int w = 0; w < s->words; w++) s->state_key[w] = s->key[w];
    s->state_key[0] |= state_fields(s, fr->hole, fr->turned, fr->cell, fr->uses);
}

/* the slot of key k: where it is (the bits `ignore` of word 0 aside), or the free slot
 * where it would go */
static inline uint64_t *find_slot(uint64_t *table, size_t capacity, const uint64_t *k, int words,
                                  uint64_t ignore) {
    size_t mask = capacity - 1, at = (size_t)hash_key(k, words, ignore) & mask;
    for (;;) {
        uint64_t *slot = table + at * (size_t)words;
        if (is_free(slot, words)) return slot;
        int w = ((slot[0] ^ k[0]) & ~ignore) ? 0 : 1;
        while (w && w < words && slot[w] == k[w]) w++;
        if (w == words) return slot;
        at = (at + 1) & mask;
    }
}

/* start fetching the memo slot of the state one move below: fan f down one card, its
 * card (rank r) on the hole; the children's slots are fetched together, so their cache
 * misses overlap instead of coming one at a time */
static inline void prefetch_child(Search *s, int f, int r, const Frame *fr) {
    uint64_t *k = s->child_key;
    for (int w = 0; w < s->words; w++) k[w] = s->key[w];
    int i = s->fan_off[f] + s->height[f] - 1;
    k[s->add_word[i]] -= s->add_val[i];
    if (s->height[f] > 1) k[s->add_word[i - 1]] += s->add_val[i - 1];
    k[0] |= state_fields(s, r, fr->turned, fr->cell, fr->uses);
    __builtin_prefetch(s->table + ((size_t)hash_key(k, s->words, s->turned_bits)
                                   & (s->capacity - 1))
                                  * (size_t)s->words);
}

/* is the state in state_key dead: is it in the memo with as many talon cards turned, or
 * fewer? (Any line from a state with more turned is a line from the state with fewer that
 * turns the cards between first, so the one is dead when the other is.) */
static int memo_has(Search *s) {
    uint64_t *slot = find_slot(s->table, s->capacity, s->state_key, s->words, s->turned_bits);
    return !is_free(slot, s->words)
           && (slot[0] & s->turned_bits) <= (s->state_key[0] & s->turned_bits);
}

/* a zeroed table of n words; a large one asks for huge pages, which spare the memo's
 * random lookups most of their TLB misses and page faults (a third of the time at a
 * million states) */
#define HUGE_PAGE (2u << 20)
static uint64_t *table_alloc(size_t n) {
    size_t bytes = n * sizeof(uint64_t);
    if (bytes < HUGE_PAGE) return calloc(n, sizeof(uint64_t));
    void *at = NULL;
    if (posix_memalign(&at, HUGE_PAGE, bytes)) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(at, bytes, MADV_HUGEPAGE); /* a hint: without it the pages are small */
#endif
    memset(at, 0, bytes);
    return at;
}

static int memo_grow(Search *s) {
    size_t capacity = s->capacity * 2, words = (size_t)s->words;
    if (capacity > ((size_t)-1) / (sizeof(uint64_t) * words)) return -1;
    uint64_t *table = table_alloc(capacity * words);
    if (!table) return -1;
    for (size_t at = 0; at < s->capacity; at++) {
        uint64_t *old = s->table + at * words;
        if (!is_free(old, s->words))
            memcpy(find_slot(table, capacity, old, s->words, s->turned_bits), old,
                   sizeof(uint64_t) * words);
    }
    free(s->table);
    s->table = table;
    s->capacity = capacity;
    return 0;
}

/* The memo's table stops growing at this size: a table this full takes no new states,
 * and the search goes on without remembering them (it only repeats work it could have
 * skipped, so it stays complete). Without the cap the memo grew by about 72 bytes a move
 * on a 52-rank deck, past 1 GiB after some 14 million moves. */
#define MEMO_MAX_BYTES ((size_t)256 << 20)

/* remember the key in state_key as dead; -1 when out of memory */
static int memo_add(Search *s) {
    if (2 * (s->count + 1) > s->capacity) {
        if (2 * s->capacity * (size_t)s->words * sizeof(uint64_t) > MEMO_MAX_BYTES)
            return 0; /* full: this state is not remembered */
        if (memo_grow(s) < 0) return -1;
    }
    uint64_t *slot = find_slot(s->table, s->capacity, s->state_key, s->words, s->turned_bits);
    if (is_free(slot, s->words)) {
        memcpy(slot, s->state_key, sizeof(uint64_t) * (size_t)s->words);
        s->count++;
    } else if ((slot[0] & s->turned_bits) > (s->state_key[0] & s->turned_bits)) {
        slot[0] = (slot[0] & ~s->turned_bits) | (s->state_key[0] & s->turned_bits);
    }
    return 0;
}

/* fan f from its height to h cards: its old top card's number leaves the key, the new
 * one's comes in */
static void set_height(Search *s, int f, int h) {
    int off = s->fan_off[f];
    if (s->height[f]) {
        int i = off + s->height[f] - 1;
        s->key[s->add_word[i]] -= s->add_val[i];
    }
    if (h) s->key[s->add_word[off + h - 1]] += s->add_val[off + h - 1];
    s->height[f] = h;
}

/* put fan f in (on = 1) or out of the set of fans showing rank r */
static inline void show(Search *s, int r, int f, int on) {
    uint64_t *word = s->showing + (size_t)r * (size_t)s->bitwords + (size_t)(f >> 6);
    uint64_t bit = 1ULL << (f & 63);
    if (on) *word |= bit; else *word &= ~bit;
}


/* do the ranks joined to the hole's by steps the walk takes (e[i] > 0 joins ranks i and
 * i + 1, e[m] the top rank and rank 1) hold all `cards` cards left? */
static int arc_covers(const long *e, const int *left, int hole, int cards, int m) {
    long covered = left[hole];
    int up = hole, down = hole, seen = 1;
    while (seen < m && e[up] > 0) { up = up == m ? 1 : up + 1; covered += left[up]; seen++; }
    while (seen < m && e[down == 1 ? m : down - 1] > 0) {
        down = down == 1 ? m : down - 1; covered += left[down]; seen++;
    }
    return covered >= cards;
}

/* the rank-count cut, as blackhole.look.cuts.ranks_can_chain, which says why it holds. With
 * e_i the walk's steps between ranks i and i + 1 and t = e_m, e_i = a_i + (-1)^i t where
 * a_i = d_i - a_(i-1), d_i = 2 left[i] + [i = hole] - [i = last]. scratch: 3 (m + 1) longs */
static int ranks_can_chain(const int *left, int hole, int cards, int m, long *scratch) {
    if (m < 3 || hole == 0) return 1;
    long *e = scratch, *base = scratch + (m + 1), *suffix = scratch + 2 * (m + 1);
    if (m % 2 == 0) { /* an even cycle: a_m must be 0, and t is free in a range */
        for (int last = 1; last <= m; last++) {
            if (!left[last]) continue;
            long a = 0, lo = 0, hi = LONG_MAX;
            for (int i = 1; i <= m; i++) {
                a = 2L * left[i] + (i == hole) - (i == last) - a;
                base[i] = a;
                if (i % 2) { if (a < hi) hi = a; }
                else if (-a > lo) lo = -a;
            }
            if (a != 0 || lo > hi) continue;
            if (hi - lo >= 2) return 1; /* t = lo + 1 takes every step */
            for (long t = lo;; t = hi) {
                for (int i = 1; i <= m; i++) e[i] = base[i] + (i % 2 ? -t : t);
                if (arc_covers(e, left, hole, cards, m)) return 1;
                if (t == hi) break;
            }
        }
        return 0;
    }
    /* An odd cycle fixes t = a_m / 2. The last card's rank j only lowers d_j by one, which
     * changes a_i by -(-1)^(i-j) for i >= j: with b_i the a_i of d without it, and s the
     * sign (-1)^j, t = (b_m + s) / 2 and e_i = b_i + (-1)^i t - [i >= j] (-1)^i s. So each
     * parity of j takes one pass for a prefix and a suffix of bounds, not one per rank. */
    long b = 0;
    for (int i = 1; i <= m; i++) { b = 2L * left[i] + (i == hole) - b; base[i] = b; }
    for (int s = -1; s <= 1; s += 2) { /* s = -1: odd j, +1: even j */
        if ((b + s) % 2) continue;
        long t = (b + s) / 2;
        if (t < 0) continue; /* e_m = t */
        long low = LONG_MAX; /* suffix[j]: the least e_i over i >= j, for this j */
        for (int i = m; i >= 1; i--) {
            long sign = i % 2 ? -1 : 1, v = base[i] + sign * t - sign * s;
            if (v < low) low = v;
            suffix[i] = low;
        }
        long prefix = LONG_MAX; /* the least e_i over i < j */
        for (int j = 1; j <= m; j++) {
            if (((j % 2) ? -1 : 1) == s && left[j] && prefix >= 0 && suffix[j] >= 0) {
                for (int i = 1; i <= m; i++) {
                    long sign = i % 2 ? -1 : 1;
                    e[i] = base[i] + sign * t - (i >= j ? sign * s : 0);
                }
                if (arc_covers(e, left, hole, cards, m)) return 1;
            }
            long v = base[j] + (j % 2 ? -t : t);
            if (v < prefix) prefix = v;
        }
    }
    return 0;
}

/* The cache starts small and grows fourfold, up to its most, each time a search has
 * worked out as many answers as it has slots: most searches end within a few hundred
 * moves, and zeroing the largest cache for each of them cost more than their search. */
#define CHAIN_CACHE_FIRST_BITS 10
#define CHAIN_CACHE_BITS 16

static int chain_grow(Search *s) {
    size_t size = (s->chain_mask + 1) << 2;
    uint64_t *cache = calloc(size, sizeof(uint64_t));
    if (!cache) return -1;
    for (size_t at = 0; at <= s->chain_mask; at++) { /* the answers move over */
        uint64_t entry = s->chain_cache[at];
        if (entry) cache[mix((entry >> 1) & ~(1ULL << 62)) & (size - 1)] = entry;
    }
    free(s->chain_cache);
    s->chain_cache = cache;
    s->chain_mask = size - 1;
    s->chain_misses = 0;
    return 0;
}

/* ranks_can_chain through the cache when it is on */
static int chain_ok(Search *s, int hole, int cards) {
    if (!s->chain_cache) return ranks_can_chain(s->left, hole, cards, s->modulus, s->steps);
    uint64_t key = s->left_code | ((uint64_t)hole << (3 * (s->modulus + 1)));
    uint64_t *slot = s->chain_cache + (mix(key) & s->chain_mask);
    if (*slot >> 1 == (key | (1ULL << 62))) return (int)(*slot & 1);
    int ok = ranks_can_chain(s->left, hole, cards, s->modulus, s->steps);
    if (++s->chain_misses > s->chain_mask && s->chain_mask + 1 < (1u << CHAIN_CACHE_BITS)
        && chain_grow(s) == 0) /* out of memory: the cache stays as it is */
        slot = s->chain_cache + (mix(key) & s->chain_mask);
    *slot = ((key | (1ULL << 62)) << 1) | (uint64_t)ok; /* bit 63: the slot is in use */
    return ok;
}

/* look.reach_bound: the most cards a line from here can still play; the ranks the hole
 * can show (its own and the unbroken run with cards around it) in `inside`, the cards
 * above each fan's first card of another rank counted, until the run stops shrinking */
static int reach(Search *s, int hole, int cards) {
    if (!hole) return cards;
    int m = s->modulus, size = -1, reached = cards;
    const int *have = s->left;
    for (;;) {
        memset(s->inside, 0, (size_t)m + 1);
        s->inside[hole] = 1;
        int now = 1, up = hole, down = hole;
        while (now < m && have[up == m ? 1 : up + 1]) { up = up == m ? 1 : up + 1; s->inside[up] = 1; now++; }
        while (now < m && have[down == 1 ? m : down - 1]) {
            down = down == 1 ? m : down - 1; s->inside[down] = 1; now++;
        }
        if (now == 1) return 0;
        if (now == size) return reached;
        size = now;
        memset(s->avail, 0, sizeof(int) * ((size_t)m + 1));
        reached = 0;
        for (int f = 0; f < s->nfans; f++) {
            const int *ranks = s->rank + s->fan_off[f];
            for (int h = s->height[f] - 1; h >= 0 && s->inside[ranks[h]]; h--) {
                s->avail[ranks[h]]++;
                reached++;
            }
        }
        have = s->avail;
    }
}

/* look.chains_leaving: the rank-count cut for a line that may leave `slack` (0 or 1)
 * cards, the one left being a fan's bottom card */
static int chains_leaving(Search *s, int hole, int cards, int slack) {
    if (chain_ok(s, hole, cards)) return 1;
    if (!slack) return 0;
    if (++s->stamp == INT_MAX) { memset(s->tried, 0, sizeof(int) * ((size_t)s->modulus + 1)); s->stamp = 1; }
    for (int f = 0; f < s->nfans; f++) {
        if (!s->height[f]) continue;
        int r = s->rank[s->fan_off[f]];
        if (s->tried[r] == s->stamp) continue;
        s->tried[r] = s->stamp;
        s->left[r]--;
        if (s->chain_cache) s->left_code -= 1ULL << (3 * r);
        int ok = chain_ok(s, hole, cards - 1);
        s->left[r]++;
        if (s->chain_cache) s->left_code += 1ULL << (3 * r);
        if (ok) return 1;
    }
    return 0;
}

#define SLACK_TESTED 1 /* look.SLACK_TESTED */

/* look_cuts.hall_shortfall: the fan cards left that no line can play, by the predecessor cut's
 * count (the largest shortfall of a family of runs with no predecessor in common) */
static int hall_count(const Search *s, int hole, int turned);

#define HALL_CACHE_BITS 15
#define HALL_KEY_BITS 55 /* the key's bits at most: the answer takes 8 below it, in use bit 63 */

static int hall_shortfall(Search *s, int hole, int turned) {
    if (!s->hall_cache) return hall_count(s, hole, turned);
    uint64_t key = s->left_code | ((uint64_t)hole << (3 * (s->modulus + 1)))
                   | ((uint64_t)turned << s->hall_turned_shift);
    uint64_t *slot = s->hall_cache + (mix(key) & ((1u << HALL_CACHE_BITS) - 1));
    if (*slot >> 8 == (key | (1ULL << HALL_KEY_BITS))) return (int)(*slot & 0xff);
    int short_of = hall_count(s, hole, turned);
    *slot = ((key | (1ULL << HALL_KEY_BITS)) << 8) | (uint64_t)short_of;
    return short_of;
}

static int hall_count(const Search *s, int hole, int turned) {
    if (!hole) return 0;
    int m = s->modulus;
    const int *talon_left = s->talon_left + (size_t)turned * (size_t)(m + 1);
    const int *left = s->left, *below = s->below, *above = s->above, *between = s->between;
#define ROOM(x) (left[x] + talon_left[x] + ((x) == hole)) /* 0 for rank 0, no link */
    int short_of[2];
    for (int first = 1; first <= 2; first++) {
        /* closed: the best with the last rank out of every run; open: ending there */
        int closed = 0, open = 0, is_open = 0;
        for (int r = first; r <= m; r += 2) {
            int ended = closed;
            if (is_open && open - ROOM(above[r - 2]) > ended) ended = open - ROOM(above[r - 2]);
            if (!left[r]) { closed = ended; is_open = 0; continue; }
            int start = closed - ROOM(below[r]);
            if (is_open && open - ROOM(between[r - 2]) > start)
                start = open - ROOM(between[r - 2]);
            closed = ended;
            open = left[r] + start;
            is_open = 1;
        }
        int last = m - (m - first) % 2;
        short_of[first - 1] = is_open && open - ROOM(above[last]) > closed
                              ? open - ROOM(above[last]) : closed;
    }
#undef ROOM
    return s->hall_apart ? short_of[0] + short_of[1]
                         : (short_of[0] > short_of[1] ? short_of[0] : short_of[1]);
}

/* the slots still there that no line from this state plays (covers.py's
 * CoverSetup.stranded): a card that neither fits the foundation while free, nor may
 * follow a talon card still to turn, nor a card still there not under it and not
 * stranded; and every card under a stranded one. The least fixed point. */
static uint64_t stranded(const Search *s, int hole, int turned, uint64_t free) {
    uint64_t present = s->present, out = 0;
    uint64_t open = present & ~(free & s->fits_on[hole]) & ~s->talon_leads[turned];
    int grown = 1;
    while (grown) {
        grown = 0;
        for (uint64_t bits = open & ~out; bits; bits &= bits - 1) {
            int f = __builtin_ctzll(bits);
            if (out >> f & 1 || s->leads[f] & present & ~out) continue;
            out |= 1ULL << f | (s->beneath[f] & present);
            grown = 1;
        }
    }
    return out;
}

/* look.walk.worth_test's worth, with the bounds on the rank cycle of look._worth_test
 * (fans) or of look.covers._worth_test (a cover graph): can a line through this state
 * beat the longest found and floor - 1? */
static int worth(Search *s, int hole, int cards, int played, int turned, uint64_t free) {
    int top = s->best_played > s->floor - 1 ? s->best_played : s->floor - 1;
    int need = top + 1 - played;
    if (need > cards) return 0;
    if (s->covers) { /* covers.py's worth: then the cards not stranded must do */
        if (s->hall ? need > cards - hall_shortfall(s, hole, turned)
            : s->chain && need >= cards && !chain_ok(s, hole, cards))
            return 0;
        return need <= cards - __builtin_popcountll(stranded(s, hole, turned, free));
    }
    if (s->hall) return need <= cards - hall_shortfall(s, hole, turned);
    /* the bounds below walk Black Hole's rank cycle, and read the fans alone: a cell
     * breaks them (look_cuts.REACH_PLAYS) */
    if (!s->chain || !s->reach) return 1;
    if ((s->gaps > 1 || s->modulus < 3) && reach(s, hole, cards) < need) return 0;
    int slack = cards - need;
    if (slack > SLACK_TESTED) return 1;
    return chains_leaving(s, hole, cards, slack);
}

static int bit_length(long v) {
    int bits = 0;
    while (v > 0) { bits++; v >>= 1; }
    return bits;
}

static void release(Search *s) {
    free(s->fan_len); free(s->fan_off); free(s->node); free(s->rank);
    free(s->onto); free(s->onto_off); free(s->showing);
    free(s->height); free(s->left); free(s->steps); free(s->chain_cache);
    free(s->hall_cache);
    free(s->add_word); free(s->add_val);
    free(s->key); free(s->state_key); free(s->child_key); free(s->table);
    free(s->best_line); free(s->avail); free(s->inside); free(s->tried);
    free(s->talon_node); free(s->talon_rank); free(s->odd_from); free(s->even_from);
    free(s->below); free(s->talon_left);
    free(s->frames); free(s->moves); free(s->line);
    free(s->over); free(s->weight);
}

/* the predecessor cut (look_cuts.hall_ok): for every run of ranks a, a + 2, ..., b, each with
 * cards left, those cards are no more than the cards they may follow; one walk a parity.
 * `from` is the foundation's rank before the move into this state, whose state passed
 * the cut (0: none, or no such state). The move took one card of room from rank `from`
 * alone (the card played, or the talon card turned, keeps its rank's room as the
 * foundation's card), so only the runs next to `from` can fail now: only their parities
 * are walked. */
static int hall_ok(Search *s, int hole, int turned, int from) {
    if (!hole) return 1;
    int m = s->modulus;
    const int *talon_left = s->talon_left + (size_t)turned * (size_t)(m + 1);
    const int *left = s->left, *below = s->below, *above = s->above, *between = s->between;
#define ROOM(x) (left[x] + talon_left[x] + ((x) == hole)) /* 0 for rank 0, no link */
    for (int first = 1; first <= 2; first++) {
        if (!(s->walks[from] & first)) continue; /* no rank of this parity is next to it */
        int most = 0, need = 0, space = 0, whole = 1;
        for (int r = first; r <= m; r += 2) {
            if (!left[r]) { whole = 0; continue; }
            if (r == first || !left[r - 2]) { /* a run starts */
                most = left[r] - ROOM(below[r]);
                need = 0;
                space = ROOM(below[r]);
            } else {
                int gap = ROOM(between[r - 2]), fresh = -ROOM(below[r]);
                most = left[r] + (most - gap > fresh ? most - gap : fresh);
                space += gap;
            }
            need += left[r];
            if (most > ROOM(above[r])) return 0;
        }
        /* every rank of this parity, on an even deck: the run's two end links are one */
        if (whole && m % 2 == 0 && below[first] && below[first] == above[m + first - 2]
            && need > space)
            return 0;
    }
#undef ROOM
    return 1;
}

/* may rank r go on rank h, as the caller's table says? */
static int fits(const Search *s, int r, int h) {
    for (int o = s->onto_off[h]; o < s->onto_off[h + 1]; o++)
        if (s->onto[o] == r) return 1;
    return 0;
}

/* the predecessor cut's links (look_cuts.hall_room), in s->below, s->above and s->between,
 * and s->walks (one block of 4 (m + 1)); NOT_TAKEN when a card may go on a rank not next to its own,
 * which the cut does not take (look_cuts.hall_applies keeps it off there) */
static int hall_links(Search *s) {
    int m = s->modulus;
    s->above = s->below + (m + 1);
    s->between = s->above + (m + 1);
    s->walks = s->between + (m + 1);
    s->walks[0] = 3; /* no state before: both */
    for (int h = 1; h <= m; h++)
        for (int o = s->onto_off[h]; o < s->onto_off[h + 1]; o++) {
            int r = s->onto[o];
            if (h != (r - 2 + m) % m + 1 && h != r % m + 1) return NOT_TAKEN;
        }
    for (int r = 1; r <= m; r++) {
        int down = (r - 2 + m) % m + 1, up = r % m + 1;
        s->below[r] = fits(s, r, down) ? down : 0;
        s->above[r] = fits(s, r, up) ? up : 0;
        s->between[r] = r + 2 <= m && (fits(s, r, r + 1) || fits(s, r + 2, r + 1)) ? r + 1 : 0;
        s->walks[r] = (2 - down % 2) | (2 - up % 2); /* odd ranks: walk 1; even: walk 2 */
    }
    s->hall_apart = 1;
    for (int r = 1; r <= m; r++) {
        if (s->below[r] && s->below[r] % 2 == r % 2) s->hall_apart = 0;
        if (s->above[r] && s->above[r] % 2 == r % 2) s->hall_apart = 0;
    }
    return 0;
}

/* the parity cut (look_cuts.parity_room): can the fans' odd-less-even count be met by runs
 * from the hole and from the talon's cards left? */
static inline int parity_ok(const Search *s, int hole, int turned) {
    return -s->odd_from[turned] - (hole % 2 || !hole) <= s->excess
           && s->excess <= s->even_from[turned] + (hole % 2 == 0);
}

/* read the fans into s; 0 ok, -1 with a Python error set, NOT_TAKEN for a problem this
 * core does not take (the Python search runs it) */
static int load(Search *s, PyObject *fans, PyObject *fan_ranks, int m) {
    PyObject *fseq = PySequence_Fast(fans, "fans must be a sequence");
    if (!fseq) return -1;
    PyObject *rseq = PySequence_Fast(fan_ranks, "fan_ranks must be a sequence");
    if (!rseq) { Py_DECREF(fseq); return -1; }
    int ok = -1;
    Py_ssize_t nf = PySequence_Fast_GET_SIZE(fseq);
    if (nf != PySequence_Fast_GET_SIZE(rseq)) {
        ok = NOT_TAKEN;
        goto done;
    }
    if (nf > LIMIT) {
        ok = NOT_TAKEN;
        goto done;
    }
    s->nfans = (int)nf;
    s->fan_len = calloc((size_t)nf + 1, sizeof(int));
    s->fan_off = calloc((size_t)nf + 1, sizeof(int));
    if (!s->fan_len || !s->fan_off) { PyErr_NoMemory(); goto done; }
    long total = 0;
    for (Py_ssize_t f = 0; f < nf; f++) {
        Py_ssize_t n = PyObject_Length(PySequence_Fast_GET_ITEM(fseq, f));
        Py_ssize_t nr = PyObject_Length(PySequence_Fast_GET_ITEM(rseq, f));
        if (n < 0 || nr < 0) goto done;
        if (n != nr || n > LIMIT || total + n > LIMIT) {
            ok = NOT_TAKEN;
            goto done;
        }
        s->fan_off[f] = (int)total;
        s->fan_len[f] = (int)n;
        total += n;
    }
    s->total = (int)total;
    s->node = calloc((size_t)total + 1, sizeof(long));
    s->rank = calloc((size_t)total + 1, sizeof(int));
    if (!s->node || !s->rank) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t f = 0; f < nf; f++) {
        PyObject *fan = PySequence_Fast(PySequence_Fast_GET_ITEM(fseq, f), "a fan must be a sequence");
        if (!fan) goto done;
        PyObject *rs = PySequence_Fast(PySequence_Fast_GET_ITEM(rseq, f), "ranks must be a sequence");
        if (!rs) { Py_DECREF(fan); goto done; }
        int bad = PySequence_Fast_GET_SIZE(fan) != s->fan_len[f]
                  || PySequence_Fast_GET_SIZE(rs) != s->fan_len[f];
        for (int h = 0; !bad && h < s->fan_len[f]; h++) {
            long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fan, h));
            long r = PyLong_AsLong(PySequence_Fast_GET_ITEM(rs, h));
            if ((v == -1 || r == -1) && PyErr_Occurred()) { bad = 2; break; }
            if (r < 1 || r > m) { bad = 1; break; }
            s->node[s->fan_off[f] + h] = v;
            s->rank[s->fan_off[f] + h] = (int)r;
        }
        Py_DECREF(fan);
        Py_DECREF(rs);
        if (bad) {
            if (bad == 1) ok = NOT_TAKEN;
            goto done;
        }
    }
    ok = 0;
done:
    Py_DECREF(fseq);
    Py_DECREF(rseq);
    return ok;
}

/* read a sequence of ints into out[0..], at most `most` of them, into `*n`; each must lie
 * in lo..hi (else NOT_TAKEN); `nodes` (optional) takes them as longs instead. 0 ok, -1
 * with a Python error set */
static int read_ints(PyObject *obj, long lo, long hi, Py_ssize_t most, int *out, long *nodes,
                     Py_ssize_t *n) {
    PyObject *seq = PySequence_Fast(obj, "expected a sequence of ints");
    if (!seq) return -1;
    int ok = 0;
    *n = PySequence_Fast_GET_SIZE(seq);
    if (*n > most) ok = NOT_TAKEN;
    for (Py_ssize_t i = 0; !ok && i < *n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) ok = -1;
        else if (v < lo || v > hi) ok = NOT_TAKEN;
        else if (nodes) nodes[i] = v;
        else out[i] = (int)v;
    }
    Py_DECREF(seq);
    return ok;
}

/* the game's rules: what goes onto each hole rank (m + 1 rows of ranks) and the talon
 * (its nodes and ranks, or NULL: none); 0 ok, -1 with a Python error set, NOT_TAKEN */
static int load_rules(Search *s, PyObject *onto, PyObject *talon, PyObject *talon_ranks,
                      int m) {
    PyObject *rows = PySequence_Fast(onto, "onto must be a sequence");
    if (!rows) return -1;
    int ok = 0;
    s->onto = calloc((size_t)(m + 1) * (size_t)m + 1, sizeof(int));
    s->onto_off = calloc((size_t)m + 2, sizeof(int));
    if (!s->onto || !s->onto_off) { PyErr_NoMemory(); ok = -1; }
    if (!ok && PySequence_Fast_GET_SIZE(rows) != m + 1) ok = NOT_TAKEN;
    Py_ssize_t at = 0;
    for (int h = 0; !ok && h <= m; h++) {
        Py_ssize_t n = 0;
        s->onto_off[h] = (int)at;
        ok = read_ints(PySequence_Fast_GET_ITEM(rows, h), 1, m, m, s->onto + at, NULL, &n);
        at += n;
    }
    s->onto_off[m + 1] = (int)at;
    Py_DECREF(rows);
    if (ok || !talon) return ok;
    Py_ssize_t n = PyObject_Length(talon), nr = 0;
    if (n < 0) return -1;
    if (n > LIMIT) return NOT_TAKEN;
    s->talon_node = calloc((size_t)n + 1, sizeof(long));
    s->talon_rank = calloc((size_t)n + 1, sizeof(int));
    if (!s->talon_node || !s->talon_rank) { PyErr_NoMemory(); return -1; }
    ok = read_ints(talon, LONG_MIN, LONG_MAX, n, NULL, s->talon_node, &n);
    if (!ok) ok = read_ints(talon_ranks, 1, m, n, s->talon_rank, NULL, &nr);
    if (!ok && nr != n) ok = NOT_TAKEN;
    s->ntalon = (int)n;
    return ok;
}

/* give every card the class of its fan cut down to it (cls, node layout): cards of two
 * fans share a class when the ranks from their fans' bottoms up to them are the same. A
 * class is its rank and the class of the card under it (-1 for a bottom card), looked up
 * in an open-addressing table. Returns the number of classes, or -1 out of memory. */
static int number_classes(const Search *s, int *cls) {
    size_t slots = 16;
    while (slots < 2 * (size_t)s->total) slots *= 2;
    int *under = malloc(slots * sizeof(int)), *of_rank = malloc(slots * sizeof(int));
    int *id = malloc(slots * sizeof(int));
    int classes = -1;
    if (!under || !of_rank || !id) goto done;
    for (size_t i = 0; i < slots; i++) id[i] = -1;
    classes = 0;
    for (int f = 0; f < s->nfans; f++) {
        int below = -1;
        for (int h = 0; h < s->fan_len[f]; h++) {
            int r = s->rank[s->fan_off[f] + h];
            size_t at = (size_t)mix(((uint64_t)(uint32_t)below << 32) | (uint32_t)r)
                        & (slots - 1);
            while (id[at] >= 0 && (under[at] != below || of_rank[at] != r))
                at = (at + 1) & (slots - 1);
            if (id[at] < 0) { id[at] = classes++; under[at] = below; of_rank[at] = r; }
            below = cls[s->fan_off[f] + h] = id[at];
        }
    }
done:
    free(under); free(of_rank); free(id);
    return classes;
}

/* a field of `bits` bits after the last one placed (*word, *used), none across words */
static void place(int bits, int *word, int *used, int *at_word, int *at_shift) {
    if (*used + bits > 64) { (*word)++; *used = 0; }
    *at_word = *word;
    *at_shift = *used;
    *used += bits;
}

/* The memo key's layout (s->add_word, s->add_val, s->words). The key counts the fans left
 * at each class (number_classes). A class two or more fans can reach gets a count field
 * wide enough for them all; the classes above it in a fan are the fan's own (two fans that
 * share a class share every class below it), and at most one of them is reached at a
 * time, so they share one field holding how far up that run the fan's top card is (0:
 * below it). With no two fans alike this is every fan's height, as before. 0 ok, -1 out
 * of memory. */
static int lay_out_key(Search *s) {
    int total = s->total, ok = -1;
    int *cls = malloc(((size_t)total + 1) * sizeof(int));
    int *many = calloc((size_t)total + 1, sizeof(int));
    int *at_word = malloc(((size_t)total + 1) * sizeof(int));
    int *at_shift = malloc(((size_t)total + 1) * sizeof(int));
    if (!cls || !many || !at_word || !at_shift) goto done;
    int classes = number_classes(s, cls);
    if (classes < 0) goto done;
    for (int i = 0; i < total; i++) many[cls[i]]++;
    int word = 0, used = s->state_bits;
    for (int c = 0; c < classes; c++)
        if (many[c] > 1) place(bit_length(many[c]), &word, &used, &at_word[c], &at_shift[c]);
    for (int f = 0; f < s->nfans; f++) {
        int off = s->fan_off[f], len = s->fan_len[f], shared = 0, own_word = 0, own_shift = 0;
        while (shared < len && many[cls[off + shared]] > 1) shared++;
        if (shared < len) place(bit_length(len - shared), &word, &used, &own_word, &own_shift);
        for (int h = 0; h < len; h++) {
            int c = cls[off + h];
            s->add_word[off + h] = h < shared ? at_word[c] : own_word;
            s->add_val[off + h] = h < shared ? 1ULL << at_shift[c]
                                             : (uint64_t)(h - shared + 1) << own_shift;
        }
    }
    s->words = word + 1;
    ok = 0;
done:
    free(cls); free(many); free(at_word); free(at_shift);
    return ok;
}

/* the stranded cut's tables (covers.py's CoverSetup) from the rules and the graph: the
 * slots that fit each foundation rank, the slots each slot may follow (neither itself, nor
 * under it, nor over it but through a card on it), the slots that may follow a talon card
 * from card t on */
static void stranded_tables(Search *s) {
    int n = s->nfans, m = s->modulus;
    for (int h = 0; h <= m; h++)
        for (int o = s->onto_off[h]; o < s->onto_off[h + 1]; o++)
            s->fits_on[h] |= s->of_rank[s->onto[o]];
    for (int h = 1; h <= m; h++)
        for (uint64_t bits = s->fits_on[h]; bits; bits &= bits - 1)
            s->leads[__builtin_ctzll(bits)] |= s->of_rank[h];
    for (int f = 0; f < n; f++) {
        uint64_t above = 0; /* the slots lying on f, directly or not */
        for (int g = 0; g < n; g++)
            if (s->beneath[g] >> f & 1) above |= 1ULL << g;
        s->leads[f] &= ~(1ULL << f | s->beneath[f] | (above & ~s->over[f]));
    }
    for (int t = s->ntalon - 1; t >= 0; t--)
        s->talon_leads[t] = s->talon_leads[t + 1] | s->fits_on[s->talon_rank[t]];
}

/* a cover graph's tables (look/covers.py's core_layout: over, beaten and below, one of
 * each a slot) into s, each slot a fan of one card; under[u] gathered from over, weight
 * counted from below, and the stranded cut's tables (covers.py's CoverSetup). 0 ok,
 * -1 with a Python error set, NOT_TAKEN for more than 64 slots or a fan of other than
 * one card */
static int load_covers(Search *s, PyObject *covers) {
    int n = s->nfans, m = s->modulus;
    if (n > 64) return NOT_TAKEN;
    for (int f = 0; f < n; f++)
        if (s->fan_len[f] != 1) return NOT_TAKEN;
    s->over = calloc(5 * (size_t)n + 2 * ((size_t)m + 1) + (size_t)s->ntalon + 1,
                     sizeof(uint64_t));
    s->weight = calloc((size_t)n + 1, sizeof(int));
    if (!s->over || !s->weight) { PyErr_NoMemory(); return -1; }
    s->under = s->over + n;
    s->beaten = s->under + n;
    s->beneath = s->beaten + n;
    s->leads = s->beneath + n;
    s->of_rank = s->leads + n;
    s->fits_on = s->of_rank + m + 1;
    s->talon_leads = s->fits_on + m + 1;
    PyObject *tables = PySequence_Fast(covers, "covers must be a sequence");
    if (!tables) return -1;
    int ok = PySequence_Fast_GET_SIZE(tables) == 3 ? 0 : NOT_TAKEN;
    uint64_t *into[3] = {s->over, s->beaten, s->beneath};
    for (int t = 0; !ok && t < 3; t++) {
        PyObject *row = PySequence_Fast(PySequence_Fast_GET_ITEM(tables, t),
                                        "a table of covers must be a sequence");
        if (!row) { ok = -1; break; }
        if (PySequence_Fast_GET_SIZE(row) != n) ok = NOT_TAKEN;
        for (int f = 0; !ok && f < n; f++) {
            PyObject *item = PySequence_Fast_GET_ITEM(row, f);
            into[t][f] = PyLong_AsUnsignedLongLong(item);
            if (PyErr_Occurred()) ok = -1;
        }
        Py_DECREF(row);
    }
    Py_DECREF(tables);
    for (int f = 0; !ok && f < n; f++) {
        for (uint64_t bits = s->over[f]; bits; bits &= bits - 1)
            s->under[__builtin_ctzll(bits)] |= 1ULL << f;
        s->of_rank[s->rank[f]] |= 1ULL << f;
        s->weight[f] = __builtin_popcountll(s->beneath[f]);
    }
    if (!ok) stranded_tables(s);
    s->covers = !ok;
    return ok;
}

/* a cover graph's state at the deal: every slot there (the memo key's word 1), the free
 * ones, and the move order's largest weight */
static void start_covers(Search *s) {
    int n = s->nfans;
    s->present = n == 64 ? ~0ULL : (1ULL << n) - 1;
    s->key[1] = s->present;
    for (int f = 0; f < n; f++) {
        if (!(s->over[f] & s->present)) s->start_free |= 1ULL << f;
        if (s->weight[f] > s->tallest) s->tallest = s->weight[f];
    }
}

/* look's and longest's arguments (longest: its round's floor and bound too) into p; 0 ok,
 * -1 with a Python error set, NOT_TAKEN for a deck this core does not take */
static int parse(PyObject *args, int longest, Params *p) {
    double seconds;
    PyObject *stop_flag = NULL, *cell = NULL;
    memset(p, 0, sizeof *p);
    p->longest = longest;
    p->cuts = 1;
    if (longest ? !PyArg_ParseTuple(args, "OOiiLLdOOOOiii|OO", &p->fans, &p->fan_ranks,
                                    &p->modulus, &p->start, &p->budget, &p->passes, &seconds,
                                    &stop_flag, &p->onto, &p->talon, &p->talon_ranks,
                                    &p->cuts, &p->floor, &p->bound, &p->covers, &cell)
                : !PyArg_ParseTuple(args, "OOiiLLdOOOOi|OO", &p->fans, &p->fan_ranks,
                                    &p->modulus, &p->start, &p->budget, &p->passes, &seconds,
                                    &stop_flag, &p->onto, &p->talon, &p->talon_ranks,
                                    &p->cuts, &p->covers, &cell))
        return -1;
    if (p->covers == Py_None) p->covers = NULL;
    p->parks_left = -1;
    p->cell_node = -1;
    if (cell != NULL && cell != Py_None
        && !PyArg_ParseTuple(cell, "iLli;cell must be (cells, parks_left, node, rank)",
                             &p->cells, &p->parks_left, &p->cell_node, &p->cell_rank))
        return -1;
    p->deadline = seconds > 0 ? now() + seconds : 0;
    p->on_signal_thread = PyThread_get_thread_ident() == signal_thread;
    if (stop_flag != NULL && stop_flag != Py_None) {
        if (!PyByteArray_Check(stop_flag) || PyByteArray_GET_SIZE(stop_flag) < 1) {
            PyErr_SetString(PyExc_TypeError, "stop must be a bytearray of at least 1 byte");
            return -1;
        }
        p->stop = PyByteArray_AS_STRING(stop_flag);
    }
    if (p->modulus < 1 || p->modulus > 100000 || p->start < 0 || p->start > p->modulus)
        return NOT_TAKEN;
    /* one cell at most, its card's rank on the deck, the parks a field can count, no
     * cell on a cover graph */
    if (p->cells < 0 || p->cells > 1 || p->cell_rank < 0 || p->cell_rank > p->modulus
        || (p->cell_rank && !p->cells) || p->parks_left < -1 || p->parks_left > LIMIT
        || (p->cells && p->covers))
        return NOT_TAKEN;
    return 0;
}

/* the state's tables, the memo key's layout (lay_out_key) and the memo, for a loaded
 * deal; 0 ok, -1 out of memory */
static int alloc_tables(Search *s) {
    size_t m = (size_t)s->modulus, nf = (size_t)s->nfans, total = (size_t)s->total;
    size_t ntalon = (size_t)s->ntalon;
    s->bitwords = s->nfans / 64 + 1;
    s->showing = calloc((m + 1) * (size_t)s->bitwords, sizeof(uint64_t));
    s->height = calloc(nf + 1, sizeof(int));
    s->left = calloc(m + 1, sizeof(int));
    s->steps = calloc(3 * (m + 1), sizeof(long));
    s->add_word = calloc(total + 1, sizeof(int));
    s->add_val = calloc(total + 1, sizeof(uint64_t));
    s->avail = calloc(m + 1, sizeof(int));
    s->inside = calloc(m + 1, 1);
    s->tried = calloc(m + 1, sizeof(int));
    s->best_line = calloc((size_t)s->line_most + 1, sizeof(long));
    s->below = calloc(4 * (m + 1), sizeof(int));
    s->talon_left = calloc((ntalon + 1) * (m + 1), sizeof(int));
    s->odd_from = calloc(ntalon + 1, sizeof(int));
    s->even_from = calloc(ntalon + 1, sizeof(int));
    if (!s->below || !s->talon_left || !s->odd_from || !s->even_from || !s->showing
        || !s->height || !s->left || !s->steps || !s->add_word || !s->add_val || !s->avail
        || !s->inside || !s->tried || !s->best_line)
        return -1;
    if (s->covers) s->words = 2; /* word 0: the hole and the talon; word 1: present */
    else if (lay_out_key(s) < 0) return -1;
    s->key = calloc((size_t)s->words, sizeof(uint64_t));
    s->state_key = calloc((size_t)s->words, sizeof(uint64_t));
    s->child_key = calloc((size_t)s->words, sizeof(uint64_t));
    s->capacity = 1024;
    s->table = table_alloc(s->capacity * (size_t)s->words);
    if (!s->key || !s->state_key || !s->child_key || !s->table) return -1;
    return 0;
}

/* the state at the deal: the fans' heights and top cards, the cards of each rank, the
 * cuts' counts and links, the talon's counts from each card on, the chain cache; 0 ok,
 * -1 with a Python error set, NOT_TAKEN where the predecessor cut does not take the rules */
static int start_state(Search *s) {
    int m = s->modulus;
    if (s->covers) start_covers(s);
    for (int f = 0; f < s->nfans && !s->covers; f++) {
        set_height(s, f, s->fan_len[f]);
        if (s->fan_len[f] > s->tallest) s->tallest = s->fan_len[f];
        if (s->fan_len[f]) show(s, s->rank[s->fan_off[f] + s->fan_len[f] - 1], f, 1);
    }
    for (int i = 0; i < s->total; i++) s->left[s->rank[i]]++;
    if (s->start_cell) s->left[s->start_cell]++; /* the cell's card is a card left */
    for (int r = 1; r <= m; r++) {
        s->gaps += !s->left[r];
        s->excess += r % 2 ? s->left[r] : -s->left[r];
    }
    if (s->hall && hall_links(s) == NOT_TAKEN) return NOT_TAKEN;
    for (int t = s->ntalon - 1; t >= 0; t--) {
        int *row = s->talon_left + (size_t)t * (size_t)(m + 1);
        memcpy(row, row + m + 1, sizeof(int) * (size_t)(m + 1));
        row[s->talon_rank[t]]++;
        s->odd_from[t] = s->odd_from[t + 1] + s->talon_rank[t] % 2;
        s->even_from[t] = s->even_from[t + 1] + 1 - s->talon_rank[t] % 2;
    }
    /* the chain cache packs every count in 3 bits and the hole above them: 62 bits */
    int packs = 3 * (m + 1) + bit_length(m) <= 62 && m >= 3;
    for (int r = 1; packs && r <= m; r++) {
        packs = s->left[r] <= 7;
        s->left_code |= (uint64_t)s->left[r] << (3 * r);
    }
    s->chain_mask = (1u << CHAIN_CACHE_FIRST_BITS) - 1;
    if (packs && !(s->chain_cache = calloc(s->chain_mask + 1, sizeof(uint64_t)))) {
        PyErr_NoMemory();
        return -1;
    }
    /* the predecessors' shortfall, where the best score asks it at every state: its key
     * the counts, the hole's rank and the talon cards turned; answers up to 255 cards */
    s->hall_turned_shift = 3 * (m + 1) + bit_length(m);
    if (packs && s->hall && s->longest && s->total <= 255
        && s->hall_turned_shift + bit_length(s->ntalon) <= HALL_KEY_BITS
        && !(s->hall_cache = calloc((size_t)1 << HALL_CACHE_BITS, sizeof(uint64_t)))) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* the Search of a parsed call: the deal and the rules read (load, load_rules), the
 * tables (alloc_tables), the state at the deal (start_state) and the walk's stacks; 0 ok,
 * -1 with a Python error set, NOT_TAKEN for a problem this core does not take */
static int set_up(Search *s, const Params *p) {
    int m = p->modulus;
    s->longest = p->longest;
    s->floor = p->floor;
    s->bound = p->bound;
    s->modulus = m;
    int loaded = load(s, p->fans, p->fan_ranks, m);
    if (loaded == 0) loaded = load_rules(s, p->onto, p->talon, p->talon_ranks, m);
    if (loaded == 0 && p->covers) loaded = load_covers(s, p->covers);
    if (loaded == -1) return -1;
    s->chain = p->cuts & 1;
    s->parity = (p->cuts & 2) != 0;
    s->hall = (p->cuts & 4) != 0;
    s->reach = (p->cuts & 8) != 0;
    /* the cell as look._FanSetup holds it: with a limit, `cap` parks at most and the
     * parks left counted down; with none, one park always left */
    s->cells = p->cells;
    s->cap = p->parks_left > 0 ? (int)p->parks_left : 0;
    s->start_uses = p->parks_left < 0 ? 1 : (int)p->parks_left;
    s->start_cell = p->cell_rank;
    s->start_cell_node = p->cell_rank ? p->cell_node : -1;
    s->cards = s->total + (s->start_cell > 0);
    s->hole_bits = bit_length(m);
    s->turned_bits = (((uint64_t)1 << bit_length(s->ntalon)) - 1) << s->hole_bits;
    s->cell_shift = s->hole_bits + bit_length(s->ntalon);
    s->uses_shift = s->cell_shift + (s->cells ? bit_length(m) : 0);
    s->state_bits = s->uses_shift + bit_length(s->cap);
    /* a frame's moves: at most one a fan, and the talon's; with a cell, its card or a
     * park from each fan. A line: every card, the talon's turns, each fan card parked */
    size_t most = (size_t)s->nfans + (s->ntalon > 0) + (s->cells ? (size_t)s->nfans + 1 : 0);
    size_t steps = (size_t)s->cards + s->ntalon + (s->cells ? (size_t)s->total : 0);
    s->line_most = (int)steps;
    if (loaded == NOT_TAKEN || s->state_bits > 64
        || (s->cells && PARK_MOVE(s, 0) > (int)FAN_MASK)
        || (steps + 1) * (most + 1) > MAX_MOVES)
        return NOT_TAKEN;
    if (alloc_tables(s) < 0) { PyErr_NoMemory(); return -1; }
    int started = start_state(s);
    if (started) return started;
    s->frames = calloc(steps + 2, sizeof(Frame));
    s->moves = calloc((steps + 1) * (most + 1), sizeof(uint64_t));
    s->line = calloc(steps + 1, sizeof(long));
    if (!s->frames || !s->moves || !s->line) { PyErr_NoMemory(); return -1; }
    return 0;
}

/* frame fr's move of sort key k, the n-th listed: kept, or with no discrepancy allowed
 * only the least so far (fr->cut set when another is left out) */
static inline void add_move(Frame *fr, uint64_t *mv, int *n, uint64_t k) {
    if (fr->allowed || *n == 0) {
        mv[(*n)++] = k;
    } else { /* only the first choice: a second is a discrepancy */
        fr->cut = 1;
        if (k < mv[0]) mv[0] = k;
    }
}

/* frame fr's n moves listed: turning the talon after every other, then the moves sorted
 * (with discrepancies allowed) */
static void finish_moves(Search *s, Frame *fr, int n) {
    uint64_t *mv = s->moves + fr->moves;
    if (fr->turned < s->ntalon) /* turning the talon: after every fan's move */
        add_move(fr, mv, &n, ((uint64_t)s->cards << (2 * FIELD)) | (uint64_t)TURN_MOVE(s));
    if (fr->allowed) { /* insertion sort: a node has a few moves */
        for (int a = 1; a < n; a++) {
            uint64_t k = mv[a];
            int b = a - 1;
            while (b >= 0 && mv[b] > k) { mv[b + 1] = mv[b]; b--; }
            mv[b + 1] = k;
        }
        fr->cut = 0;
    }
    fr->nmoves = n;
    fr->i = 0;
}

/* frame fr's moves on a cover graph (covers.py's search): the free cards that may go
 * onto its hole, but those a free card of their rank beats (the same-rank cut), then
 * turning the talon */
static void list_cover_moves(Search *s, Frame *fr) {
    uint64_t *mv = s->moves + fr->moves;
    int n = 0;
    fr->cut = 0;
    for (int o = s->onto_off[fr->hole]; o < s->onto_off[fr->hole + 1]; o++) {
        int r = s->onto[o];
        uint64_t by_rank = (uint64_t)(s->cards - s->left[r]) << (2 * FIELD);
        for (uint64_t bits = fr->free & s->of_rank[r]; bits; bits &= bits - 1) {
            int f = __builtin_ctzll(bits);
            if (s->beaten[f] & fr->free) continue;
            add_move(fr, mv, &n, by_rank | ((uint64_t)(s->tallest - s->weight[f]) << FIELD)
                                 | (uint64_t)f);
        }
    }
    finish_moves(s, fr, n);
}

/* frame fr's moves of the cell (look._searcher's cell_moves), after its n moves onto the
 * hole: the cell's card onto the hole when it fits, keyed as a fan's top card with nothing
 * under it (after the fans' of its rank); or, while the cell is empty and may take one,
 * parking each fan's top card that has a card under it (never a fan's last card:
 * encodings/look.md, "With a free cell"), after every other move: first those that free a
 * card fitting the hole, then the taller fan, then the higher fan */
static void cell_moves(Search *s, Frame *fr, uint64_t *mv, int *n) {
    int hole = fr->hole;
    if (fr->cell) {
        if (fits(s, fr->cell, hole))
            add_move(fr, mv, n, ((uint64_t)(s->cards - s->left[fr->cell]) << (2 * FIELD))
                                | ((uint64_t)s->tallest << FIELD) | (uint64_t)UNPARK_MOVE(s));
        return;
    }
    if (!fr->uses) return;
    for (int f = 0; f < s->nfans; f++) {
        int h = s->height[f];
        if (h < 2) continue;
        int frees = fits(s, s->rank[s->fan_off[f] + h - 2], hole) ? 1 : 2;
        add_move(fr, mv, n, ((uint64_t)(s->cards + frees) << (2 * FIELD))
                            | ((uint64_t)(s->tallest - h) << FIELD)
                            | (uint64_t)PARK_MOVE(s, f));
    }
}

/* frame fr's moves, on the move stack from fr->moves in the order they are tried: the
 * fans' top cards that may go onto its hole (the same-rank cut applied), then turning the
 * talon, and with a cell its moves (cell_moves); with no discrepancy allowed, only the
 * first (fr->cut set when others are left) */
static void list_moves(Search *s, Frame *fr) {
    if (s->covers) { list_cover_moves(s, fr); return; }
    uint64_t *mv = s->moves + fr->moves;
    int n = 0, cards = s->cards, nf = s->nfans;
    fr->cut = 0;
    for (int o = s->onto_off[fr->hole]; o < s->onto_off[fr->hole + 1]; o++) {
        int r = s->onto[o];
        const uint64_t *fans_of = s->showing + (size_t)r * (size_t)s->bitwords;
        uint64_t by_rank = (uint64_t)(cards - s->left[r]) << (2 * FIELD);
        /* the same-rank cut (look._canonical): a fan's last card is not played while a
         * top card of its rank has cards under it, and of several last cards only the
         * lowest fan's */
        int deep = 0;
        for (int w = 0; w < s->bitwords && !deep; w++)
            for (uint64_t bits = fans_of[w]; bits; bits &= bits - 1)
                if (s->height[w * 64 + __builtin_ctzll(bits)] > 1) { deep = 1; break; }
        int lasts = 0;
        for (int w = 0; w < s->bitwords; w++) {
            for (uint64_t bits = fans_of[w]; bits; bits &= bits - 1) {
                int f = w * 64 + __builtin_ctzll(bits);
                if (s->height[f] == 1 && (deep || lasts++)) continue;
                add_move(fr, mv, &n, by_rank
                                     | ((uint64_t)(s->tallest - s->height[f]) << FIELD)
                                     | (uint64_t)f);
            }
        }
    }
    if (s->cells) cell_moves(s, fr, mv, &n);
    finish_moves(s, fr, n);
    if (fr->nmoves > 1)
        for (int a = 0; a < fr->nmoves; a++) {
            int f = (int)(mv[a] & FAN_MASK);
            if (f < nf)
                prefetch_child(s, f, s->rank[s->fan_off[f] + s->height[f] - 1], fr);
        }
}

/* a frame's answer: a line found (full, or of `bound` cards), none below it (remembered),
 * or none within the discrepancies allowed (a branch was cut) */
typedef enum { R_TRUE, R_FALSE, R_NONE } Answer;

/* the state of frames[depth] on entry: 1 its moves are listed (list_moves), 0 it ends
 * here with *got its answer (a line found, or cut by the cuts or the memo) */
static int enter(Search *s, int depth, Answer *got) {
    Frame *fr = &s->frames[depth];
    int played = s->cards - fr->cards;
    if (s->longest && played > s->best_played) { /* the longest so far */
        memcpy(s->best_line, s->line, sizeof(long) * (size_t)depth);
        s->best_len = depth;
        s->best_played = played;
        if (s->best_played >= s->bound) { *got = R_TRUE; return 0; }
    }
    if (fr->cards == 0) { s->line_len = depth; *got = R_TRUE; return 0; }
    make_key(s, fr);
    /* the memo's slot is most likely out of the cache: fetch it while the cuts are worked
     * out (they are not remembered: working them out again costs less than a memo entry);
     * the predecessor cut, the dearest, waits for the memo */
    __builtin_prefetch(s->table + ((size_t)hash_key(s->state_key, s->words, s->turned_bits)
                                   & (s->capacity - 1)) * (size_t)s->words);
    *got = R_FALSE;
    if (s->longest ? !worth(s, fr->hole, fr->cards, played, fr->turned, fr->free)
        : (s->chain && !chain_ok(s, fr->hole, fr->cards))
          || (s->parity && !parity_ok(s, fr->hole, fr->turned))
          || (s->covers && stranded(s, fr->hole, fr->turned, fr->free)))
        return 0;
    if (memo_has(s)
        || (!s->longest && s->hall
            && !hall_ok(s, fr->hole, fr->turned, depth ? s->frames[depth - 1].hole : 0)))
        return 0;
    list_moves(s, fr);
    return 1;
}

/* a card of rank r leaves the tableau (walk.Setup.take), or comes back (give, out 0) */
static inline void count_card(Search *s, int r, int out) {
    if (out) {
        if (!--s->left[r]) s->gaps++;
        s->excess -= r % 2 ? 1 : -1;
        if (s->chain_cache) s->left_code -= 1ULL << (3 * r);
    } else {
        if (!s->left[r]++) s->gaps--;
        s->excess += r % 2 ? 1 : -1;
        if (s->chain_cache) s->left_code += 1ULL << (3 * r);
    }
}

/* a cover graph's slot f played (covers.py's search): gone from `present` and the memo
 * key, and each slot under it free once nothing lies on it; the child's free slots */
static uint64_t play_slot(Search *s, int f, uint64_t free) {
    s->present &= ~(1ULL << f);
    s->key[1] = s->present;
    uint64_t opened = free & ~(1ULL << f);
    for (uint64_t bits = s->under[f]; bits; bits &= bits - 1) {
        int low = __builtin_ctzll(bits);
        if (!(s->over[low] & s->present)) opened |= 1ULL << low;
    }
    return opened;
}

/* the cell's moves (look._searcher's play_cell): its card onto the hole (UNPARK_MOVE), or
 * fan f's top card into the cell (PARK_MOVE(f)), written ~node on the line */
static void play_cell(Search *s, int depth, int move) {
    Frame *fr = &s->frames[depth], *child = fr + 1;
    child->turned = fr->turned;
    if (move == UNPARK_MOVE(s)) {
        count_card(s, fr->cell, 1);
        s->line[depth] = fr->cell_node;
        child->hole = fr->cell;
        child->cards = fr->cards - 1;
        child->cell = 0;
        child->cell_node = -1;
        return;
    }
    int f = PARK_MOVE(s, move), h = s->height[f] - 1, i = s->fan_off[f] + h;
    set_height(s, f, h);
    show(s, s->rank[i], f, 0);
    show(s, s->rank[i - 1], f, 1); /* a park leaves a card under it */
    s->line[depth] = ~s->node[i];
    child->hole = fr->hole;
    child->cards = fr->cards;
    child->cell = s->rank[i];
    child->cell_node = s->node[i];
    child->uses = fr->uses - (s->cap > 0);
}

/* play frames[depth]'s move i (the talon's next card or a fan's top card onto the hole,
 * or a move of the cell) and set up frames[depth + 1], the state it leads to */
static void play(Search *s, int depth) {
    Frame *fr = &s->frames[depth], *child = fr + 1;
    int f = (int)(s->moves[fr->moves + fr->i] & FAN_MASK);
    child->allowed = fr->allowed - (fr->i > 0);
    child->moves = fr->moves + fr->nmoves;
    child->cut = 0;
    child->free = fr->free;
    child->cell = fr->cell;
    child->cell_node = fr->cell_node;
    child->uses = fr->uses;
    if (f == TURN_MOVE(s)) { /* look.TURN, Kind.TURN: the talon's next card onto the hole */
        s->line[depth] = s->talon_node[fr->turned];
        child->hole = s->talon_rank[fr->turned];
        child->cards = fr->cards;
        child->turned = fr->turned + 1;
        return;
    }
    if (f > TURN_MOVE(s)) {
        play_cell(s, depth, f);
        return;
    }
    int h = s->height[f] - 1, r;
    if (s->covers) { /* a slot is a fan of one card: height 1 */
        child->free = play_slot(s, f, fr->free);
        r = s->rank[f];
        h = 0;
    } else {
        set_height(s, f, h);
        r = s->rank[s->fan_off[f] + h];
        show(s, r, f, 0);
        if (h) show(s, s->rank[s->fan_off[f] + h - 1], f, 1);
    }
    count_card(s, r, 1);
    s->line[depth] = s->node[s->fan_off[f] + h];
    child->hole = r;
    child->cards = fr->cards - 1;
    child->turned = fr->turned;
}

/* take back frames[depth]'s move i, whose state answered `got`, and go on to move i + 1 */
static void take_back(Search *s, int depth, Answer got) {
    Frame *fr = &s->frames[depth];
    if (got == R_NONE) fr->cut = 1;
    int f = (int)(s->moves[fr->moves + fr->i] & FAN_MASK);
    if (f == UNPARK_MOVE(s)) { /* the cell's card back in the cell */
        count_card(s, fr->cell, 0);
    } else if (f > UNPARK_MOVE(s)) { /* the parked card back on its fan */
        f = PARK_MOVE(s, f);
        int h = s->height[f], i = s->fan_off[f] + h;
        show(s, s->rank[i - 1], f, 0);
        show(s, s->rank[i], f, 1);
        set_height(s, f, h + 1);
    } else if (f != TURN_MOVE(s) && s->covers) { /* a slot back in place */
        s->present |= 1ULL << f;
        s->key[1] = s->present;
        count_card(s, s->rank[f], 0);
    } else if (f != TURN_MOVE(s)) { /* the talon's turn moved nothing on the fans */
        int h = s->height[f];
        int r = s->rank[s->fan_off[f] + h];
        count_card(s, r, 0);
        if (h) show(s, s->rank[s->fan_off[f] + h - 1], f, 0);
        show(s, r, f, 1);
        set_height(s, f, h + 1);
    }
    fr->i++;
}

/* a clock read: Ctrl-C (on the thread that handles signals, the GIL taken back for it),
 * the deadline and the stop flag. 0 go on, 1 stop (out of time), -1 a Python error set
 * with the GIL held (*released NULL) */
static int poll_clock(const Params *p, PyThreadState **released) {
    if (p->on_signal_thread) { /* Ctrl-C: signals need the GIL */
        PyEval_RestoreThread(*released);
        if (PyErr_CheckSignals() < 0) { *released = NULL; return -1; }
        *released = PyEval_SaveThread();
    }
    return (p->deadline && now() > p->deadline) || (p->stop && *p->stop);
}

#define SEARCH_ERROR (-3) /* search's answer when a Python error is set */

/* the passes of the search from the deal (allowed = 0, 1, ..., then UNLIMITED), with the
 * GIL let go: 1 found (s->line, s->line_len), 0 refuted (longest: the tree exhausted), -1
 * out of budget or time, SEARCH_ERROR; s->spent the moves tried */
static int search(Search *s, const Params *p) {
    enum { ENTER, NEXT, RETURN } step;
    Answer got = R_FALSE;
    long long allowed = 0;
    int status = -1;
    /* The search reads no Python object: other threads run meanwhile (a look may take
     * half a second). The thread state is held in `released` while the GIL is let go. */
    PyThreadState *released = PyEval_SaveThread();
    for (;;) { /* the passes */
        int depth = 0;
        Frame *root = &s->frames[0];
        root->hole = p->start; root->cards = s->cards; root->allowed = allowed;
        root->moves = 0; root->turned = 0; root->free = s->start_free;
        root->cell = s->start_cell; root->cell_node = s->start_cell_node;
        root->uses = s->start_uses;
        step = ENTER;
        for (;;) {
            if (step == ENTER) {
                step = enter(s, depth, &got) ? NEXT : RETURN;
            } else if (step == NEXT) {
                Frame *fr = &s->frames[depth];
                if (fr->i == fr->nmoves) { /* every move tried */
                    step = RETURN;
                    if (fr->cut) { got = R_NONE; continue; }
                    make_key(s, fr);
                    if (memo_add(s) < 0) {
                        PyEval_RestoreThread(released);
                        PyErr_NoMemory();
                        return SEARCH_ERROR;
                    }
                    got = R_FALSE;
                    continue;
                }
                if (s->spent >= p->budget) goto finish;
                s->spent++;
                if ((s->spent & CLOCK_POLL_MASK) == 0) {
                    int polled = poll_clock(p, &released);
                    if (polled < 0) return SEARCH_ERROR;
                    if (polled) goto finish;
                }
                play(s, depth++);
                step = ENTER;
            } else { /* RETURN: `got` is frames[depth]'s answer */
                if (depth == 0 || got == R_TRUE) break;
                take_back(s, --depth, got);
                step = NEXT;
            }
        }
        if (got != R_NONE) { status = got == R_TRUE ? 1 : 0; break; }
        allowed = allowed + 1 < p->passes ? allowed + 1 : UNLIMITED;
    }
finish:
    PyEval_RestoreThread(released);
    return status;
}

/* a tuple of the n nodes of line, or NULL with a Python error set */
static PyObject *line_tuple(const long *line, int n) {
    PyObject *found = PyTuple_New(n);
    if (!found) return NULL;
    for (int d = 0; d < n; d++) {
        PyObject *v = PyLong_FromLong(line[d]);
        if (!v) { Py_DECREF(found); return NULL; }
        PyTuple_SET_ITEM(found, d, v);
    }
    return found;
}

/* the answer (status, line, nodes): longest, the longest line found; else the full line
 * when found (status 1), None otherwise */
static PyObject *read_back(const Search *s, int status) {
    PyObject *found;
    if (s->longest) found = line_tuple(s->best_line, s->best_len);
    else if (status == 1) found = line_tuple(s->line, s->line_len);
    else { found = Py_None; Py_INCREF(found); }
    if (!found) return NULL;
    return Py_BuildValue("(iNL)", status, found, s->spent);
}

/* the answer to a problem left to the Python search */
static PyObject *not_taken(void) {
    return Py_BuildValue("(iOi)", NOT_TAKEN, Py_None, 0);
}

/* look and longest: the search, for a full line (longest 0) or for the longest line that
 * reaches `floor` (longest 1): parse, set_up, search, read_back */
static PyObject *run(PyObject *args, int longest) {
    Params p;
    int parsed = parse(args, longest, &p);
    if (parsed) return parsed == NOT_TAKEN ? not_taken() : NULL;
    Search s;
    memset(&s, 0, sizeof s);
    PyObject *result = NULL;
    int ready = set_up(&s, &p);
    if (ready == NOT_TAKEN) {
        result = not_taken();
    } else if (ready == 0) {
        int status = search(&s, &p);
        if (status != SEARCH_ERROR) result = read_back(&s, status);
    }
    release(&s);
    return result;
}

static PyObject *look(PyObject *self, PyObject *args) {
    (void)self;
    return run(args, 0);
}

static PyObject *longest(PyObject *self, PyObject *args) {
    (void)self;
    return run(args, 1);
}

/* ranks_can_chain(left, hole, cards, modulus) -> bool: the cut alone, for the tests that
 * hold it to blackhole.look.cuts.ranks_can_chain */
static PyObject *chain(PyObject *self, PyObject *args) {
    PyObject *counts;
    int hole, cards, m;
    (void)self;
    if (!PyArg_ParseTuple(args, "Oiii", &counts, &hole, &cards, &m)) return NULL;
    if (m < 1 || m > 100000 || hole < 0 || hole > m || PyObject_Length(counts) != m + 1) {
        PyErr_SetString(PyExc_ValueError, "left must have modulus + 1 counts, hole 0..modulus");
        return NULL;
    }
    int *left = calloc((size_t)m + 1, sizeof(int));
    long *scratch = calloc(3 * ((size_t)m + 1), sizeof(long));
    PyObject *result = NULL;
    if (!left || !scratch) { PyErr_NoMemory(); goto done; }
    for (int r = 0; r <= m; r++) {
        PyObject *item = PySequence_GetItem(counts, r);
        if (!item) goto done;
        left[r] = (int)PyLong_AsLong(item);
        Py_DECREF(item);
        if (left[r] == -1 && PyErr_Occurred()) goto done;
    }
    result = PyBool_FromLong(ranks_can_chain(left, hole, cards, m, scratch));
done:
    free(left);
    free(scratch);
    return result;
}

static PyMethodDef methods[] = {
    {"ranks_can_chain", chain, METH_VARARGS,
     "ranks_can_chain(left, hole, cards, modulus) -> bool: the rank-count cut of the look."},
    {"look", look, METH_VARARGS,
     "look(fans, fan_ranks, modulus, start_rank, budget, passes, seconds, stop, onto, talon, "
     "talon_ranks, cuts[, covers[, cell]]) -> (status, line, nodes): the first look of "
     "blackhole.look; "
     "status 1 a full line, 0 refuted, -1 out of budget or time."},
    {"longest", longest, METH_VARARGS,
     "longest(fans, fan_ranks, modulus, start_rank, budget, passes, seconds, stop, onto, talon, "
     "talon_ranks, cuts, floor, bound[, covers[, cell]]) "
     "-> (status, line, nodes): one round of blackhole.look.longest; status 1 a line of "
     "bound cards, 0 the tree exhausted, -1 out of budget or time; line the longest found."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_look_core",
    "The compiled core of blackhole.look (the same search, over flat arrays).", -1, methods,
    NULL, NULL, NULL, NULL,
};

/* The main thread's ident, from `threading`: the module may be imported on any thread. */
static int find_signal_thread(void) {
    PyObject *threading = PyImport_ImportModule("threading");
    if (threading == NULL) return -1;
    PyObject *main = PyObject_CallMethod(threading, "main_thread", NULL);
    Py_DECREF(threading);
    if (main == NULL) return -1;
    PyObject *ident = PyObject_GetAttrString(main, "ident");
    Py_DECREF(main);
    if (ident == NULL) return -1;
    signal_thread = PyLong_AsUnsignedLong(ident);
    Py_DECREF(ident);
    return PyErr_Occurred() ? -1 : 0;
}

PyMODINIT_FUNC PyInit__look_core(void) {
    if (find_signal_thread() < 0) return NULL;
    return PyModule_Create(&module);
}
