/* Algorithm names: what REDSCAN_REDUCE_ALGO, REDSCAN_SCAN_BLOCK and REDSCAN_SCAN_GRID accept, and what
 * the tool prints. Index in each table = enum value; index 0 is AUTO. */
#include <string.h>

#include "names.h"

static const char *const reduce_names[] = {"auto", "tree", "interleaved", "coarsened", "warp_sync", "shuffle", NULL};
static const char *const block_names[] = {"auto", "kogge_stone", "kogge_stone_db", "brent_kung", "coarsened", NULL};
static const char *const grid_names[] = {"auto", "hierarchical", "reduce_then_scan", "single_pass", NULL};
static const char *const backend_names[] = {"auto", "cuda", "opencl", NULL};

const char *const *rs_names(rs_name_kind kind)
{
    switch (kind) {
    case RS_NAMES_REDUCE: return reduce_names;
    case RS_NAMES_BLOCK: return block_names;
    case RS_NAMES_GRID: return grid_names;
    case RS_NAMES_BACKEND: return backend_names;
    }
    return NULL;
}

int rs_name_count(rs_name_kind kind)
{
    int n = 0;
    for (const char *const *p = rs_names(kind); *p; ++p) ++n;
    return n;
}

static int same_ignoring_case(const char *a, const char *b)
{
    for (; *a && *b; ++a, ++b) {
        char ca = (*a >= 'A' && *a <= 'Z') ? (char)(*a - 'A' + 'a') : *a;
        char cb = (*b >= 'A' && *b <= 'Z') ? (char)(*b - 'A' + 'a') : *b;
        if (ca != cb) return 0;
    }
    return *a == *b;
}

int rs_name_parse(rs_name_kind kind, const char *text)
{
    const char *const *names = rs_names(kind);
    for (int i = 0; names[i]; ++i)
        if (same_ignoring_case(text, names[i])) return i;
    return -1;
}

void rs_name_list(rs_name_kind kind, char *buf, size_t size)
{
    buf[0] = '\0';
    for (const char *const *p = rs_names(kind); *p; ++p) {
        if (p != rs_names(kind)) strncat(buf, "|", size - strlen(buf) - 1);
        strncat(buf, *p, size - strlen(buf) - 1);
    }
}

static const char *name_at(rs_name_kind kind, int value)
{
    return (value >= 0 && value < rs_name_count(kind)) ? rs_names(kind)[value] : "unknown";
}

const char *redscan_reduce_algo_name(redscan_reduce_algo algo) { return name_at(RS_NAMES_REDUCE, (int)algo); }
const char *redscan_block_scan_name(redscan_block_scan block) { return name_at(RS_NAMES_BLOCK, (int)block); }
const char *redscan_grid_scan_name(redscan_grid_scan grid) { return name_at(RS_NAMES_GRID, (int)grid); }
