/* The on-disk program cache as the API sees it: REDSCAN_CACHE at context creation and redscan_program_cache_stats.
 * The cache itself belongs to the backend that builds programs at run time (backend_opencl/ocl_cache.c). */
#include <stdlib.h>
#include <string.h>

#include "check.h"

redscan_status rs_env_program_cache(int *off)
{
    const char *text = getenv("REDSCAN_CACHE");
    *off = 0;
    if (!text || strcmp(text, "1") == 0) return REDSCAN_OK;
    if (strcmp(text, "0") == 0) {
        *off = 1;
        return REDSCAN_OK;
    }
    return rs_set_error(NULL, REDSCAN_ERR_INVALID_ARGUMENT,
                        "REDSCAN_CACHE='%s' is not understood; accepted values: 0 (no on-disk program cache), "
                        "1 (use it; the default when unset)",
                        text);
}

redscan_status redscan_program_cache_stats(redscan_ctx *ctx, redscan_cache_stats *stats)
{
    static const char fn[] = "redscan_program_cache_stats";
    RS_TRY(rs_check_ctx(fn, ctx));
    RS_TRY(rs_check_ptr(ctx, fn, "stats", stats));
    memset(stats, 0, sizeof *stats);
    stats->directory = "";
    stats->note = "";
    if (ctx->ops->cache_stats)
        ctx->ops->cache_stats(ctx, stats);
    else
        stats->note = "not used: this backend's kernels are compiled ahead of time";
    return REDSCAN_OK;
}
