/* Host conveniences: temporary device buffers for the *_host entry points. */
#include "stage.h"

redscan_status rs_stage_alloc(redscan_ctx *ctx, size_t bytes, redscan_buffer **tmp)
{
    return redscan_buffer_create(ctx, bytes, tmp);
}

redscan_status rs_stage_upload(redscan_ctx *ctx, const void *src, size_t bytes, redscan_buffer **tmp)
{
    redscan_status st = redscan_buffer_create(ctx, bytes, tmp);
    if (st != REDSCAN_OK) return st;
    if (bytes == 0) return REDSCAN_OK;
    st = redscan_buffer_write(ctx, *tmp, 0, src, bytes);
    if (st != REDSCAN_OK) {
        redscan_buffer_destroy(ctx, *tmp);
        *tmp = NULL;
    }
    return st;
}
