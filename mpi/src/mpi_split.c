/* Fixed blocks over a distributed array: which rank owns which block, what each rank sends to complete the block
 * that straddles it and its successors. Every rank computes this for any rank from the gathered counts, with no
 * communication (docs/DISTRIBUTED.md "Blocks"). */
#include "mpi_internal.h"

static uint64_t div_up(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

uint64_t rsm_head_of(uint64_t offset, uint64_t count, uint64_t block)
{
    const uint64_t first_start = div_up(offset, block) * block;
    const uint64_t before = first_start - offset;
    return before < count ? before : count;
}

int rsm_rank_of(const uint64_t *offsets, const uint64_t *counts, int size, uint64_t g)
{
    int lo = 0, hi = size - 1; /* the last rank with offsets[q] <= g, then the first non-empty one from there */
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        if (offsets[mid] <= g)
            lo = mid;
        else
            hi = mid - 1;
    }
    while (lo > 0 && counts[lo] == 0) lo--; /* empty ranks share the offset of the next element: take its holder */
    while (lo < size && (counts[lo] == 0 || offsets[lo] + counts[lo] <= g)) lo++;
    return lo < size ? lo : -1;
}

void rsm_split_of(const uint64_t *offsets, const uint64_t *counts, int size, int rank, uint64_t total, uint64_t block,
                  rsm_split *s)
{
    s->o = offsets[rank];
    s->c = counts[rank];
    s->counts = counts;
    s->head = rsm_head_of(s->o, s->c, block);
    s->head_owner = s->head ? rsm_rank_of(offsets, counts, size, s->o / block * block) : -1;
    s->first_block = div_up(s->o, block);
    s->blocks = div_up(s->o + s->c, block) - s->first_block;
    s->straddle = 0;
    s->tail = s->xlen = 0;
    s->from_first = rank + 1;
    s->from_last = rank;
    if (s->blocks == 0) return;
    const uint64_t last_start = (s->first_block + s->blocks - 1) * block;
    const uint64_t end = last_start + block < total ? last_start + block : total;
    if (end <= s->o + s->c) return;
    s->straddle = 1;
    s->tail = s->o + s->c - last_start;
    s->xlen = end - last_start;
    int q = rank + 1;
    while (q < size && offsets[q] < end) q++; /* ranks starting before the block ends (empty ones send nothing) */
    s->from_last = q - 1;
}
