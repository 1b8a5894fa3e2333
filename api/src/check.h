/* Argument checks shared by every public entry point: each returns REDSCAN_OK or records a message that
 * names the function and the argument, and returns REDSCAN_ERR_INVALID_ARGUMENT. */
#ifndef REDSCAN_CHECK_H
#define REDSCAN_CHECK_H

#include "backend.h"

/* ctx must be non-NULL and started; the thread slot gets the message when ctx is NULL. */
redscan_status rs_check_ctx(const char *fn, redscan_ctx *ctx);
redscan_status rs_check_ptr(redscan_ctx *ctx, const char *fn, const char *arg, const void *p);
redscan_status rs_check_op(redscan_ctx *ctx, const char *fn, const char *arg, redscan_op op);
redscan_status rs_check_dtype(redscan_ctx *ctx, const char *fn, const char *arg, redscan_dtype dtype);
/* out_dtype 0 resolves to dtype; anything but dtype or its widening is refused. */
redscan_status rs_check_out_dtype(redscan_ctx *ctx, const char *fn, redscan_dtype dtype, redscan_dtype out_dtype,
                                  redscan_dtype *resolved);
/* n elements of `elem` bytes: no size_t overflow; with buf, within the buffer. */
redscan_status rs_check_count(redscan_ctx *ctx, const char *fn, const char *arg, size_t n, size_t elem,
                              size_t *bytes);
redscan_status rs_check_buffer(redscan_ctx *ctx, const char *fn, const char *arg, const redscan_buffer *buf,
                               size_t n, size_t elem);

/* A scan descriptor (scan.c): every field checked, out_dtype resolved, the environment's REDSCAN_SCAN_BLOCK / _GRID
 * applied to AUTO, init resolved to the compute type; fills req. Shared by the scans and the scan parts. */
redscan_status rs_check_scan_desc(redscan_ctx *ctx, const char *fn, const redscan_scan_desc *desc, rs_scan_req *req);

#define RS_TRY(expr)                                  \
    do {                                              \
        redscan_status rs_try_status_ = (expr);       \
        if (rs_try_status_ != REDSCAN_OK) return rs_try_status_; \
    } while (0)

#endif
