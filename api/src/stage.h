/* Host conveniences: upload a host array into a temporary device buffer and back. */
#ifndef REDSCAN_STAGE_H
#define REDSCAN_STAGE_H

#include "backend.h"

/* A temporary buffer holding `bytes` copied from host `src` (src may be NULL only when bytes == 0). */
redscan_status rs_stage_upload(redscan_ctx *ctx, const void *src, size_t bytes, redscan_buffer **tmp);
/* A temporary buffer of `bytes`, uninitialised. */
redscan_status rs_stage_alloc(redscan_ctx *ctx, size_t bytes, redscan_buffer **tmp);

#endif
