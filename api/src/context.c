/* Context creation: backend selection (argument or REDSCAN_BACKEND), algorithm overrides from the
 * environment, and the backend queries that need no context. No silent fallback: an explicitly requested
 * backend that cannot run is an error with its reason. */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "names.h"

static const rs_backend_ops *table_of(redscan_backend b)
{
    return b == REDSCAN_BACKEND_CUDA ? &rs_cuda_backend : b == REDSCAN_BACKEND_OPENCL ? &rs_opencl_backend : NULL;
}

int redscan_backend_compiled(redscan_backend backend)
{
    switch (backend) {
#ifdef REDSCAN_HAVE_CUDA
    case REDSCAN_BACKEND_CUDA: return 1;
#endif
#ifdef REDSCAN_HAVE_OPENCL
    case REDSCAN_BACKEND_OPENCL: return 1;
#endif
    default: return 0;
    }
}

redscan_status redscan_backend_probe(redscan_backend backend, const char **reason)
{
    static const char ok[] = "";
    const rs_backend_ops *ops = table_of(backend);
    const char *why = ok;
    redscan_status st;
    if (!ops) {
        why = "redscan_backend_probe: argument 'backend' must be REDSCAN_BACKEND_CUDA or REDSCAN_BACKEND_OPENCL";
        st = REDSCAN_ERR_INVALID_ARGUMENT;
    } else {
        st = ops->probe(&why);
    }
    if (reason) *reason = why ? why : ok;
    return st;
}

/* Reads one algorithm variable; *value stays AUTO when unset. */
static redscan_status env_choice(const char *var, rs_name_kind kind, int *value)
{
    const char *text = getenv(var);
    *value = 0;
    if (!text) return REDSCAN_OK;
    int v = rs_name_parse(kind, text);
    if (v < 0) {
        char list[256];
        rs_name_list(kind, list, sizeof list);
        return rs_set_error(NULL, REDSCAN_ERR_INVALID_ARGUMENT, "%s='%s' is not understood; accepted values: %s", var,
                            text, list);
    }
    *value = v;
    return REDSCAN_OK;
}

static redscan_status start(redscan_ctx *ctx, const rs_backend_ops *ops)
{
    ctx->ops = ops;
    ctx->impl = NULL;
    ctx->device_name[0] = '\0';
    redscan_status st = ops->init(ctx);
    if (st != REDSCAN_OK) ctx->impl = NULL;
    return st;
}

/* A context with the settings every creation reads from the environment (algorithm overrides, the program cache),
 * before any backend starts: a malformed variable fails the call with its accepted values. */
static redscan_status new_context(redscan_ctx **out)
{
    int reduce, block, grid, cache_off;
    redscan_status st;
    if ((st = env_choice("REDSCAN_REDUCE_ALGO", RS_NAMES_REDUCE, &reduce)) != REDSCAN_OK) return st;
    if ((st = env_choice("REDSCAN_SCAN_BLOCK", RS_NAMES_BLOCK, &block)) != REDSCAN_OK) return st;
    if ((st = env_choice("REDSCAN_SCAN_GRID", RS_NAMES_GRID, &grid)) != REDSCAN_OK) return st;
    if ((st = rs_env_program_cache(&cache_off)) != REDSCAN_OK) return st;
    redscan_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return rs_set_error(NULL, REDSCAN_ERR_OUT_OF_MEMORY, "redscan_create: out of host memory");
    ctx->env_reduce = (redscan_reduce_algo)reduce;
    ctx->env_block = (redscan_block_scan)block;
    ctx->env_grid = (redscan_grid_scan)grid;
    ctx->program_cache_off = cache_off;
    *out = ctx;
    return REDSCAN_OK;
}

/* redscan_create_on_*: the backend attaches to the caller's stream or queue. */
static redscan_status create_attached(redscan_ctx **out, const char *fn, const rs_backend_ops *ops, void *native,
                                      int device)
{
    redscan_ctx *ctx;
    redscan_status st = new_context(&ctx);
    if (st != REDSCAN_OK) return st;
    ctx->ops = ops;
    st = ops->init_attached(ctx, native, device);
    if (st != REDSCAN_OK) {
        rs_set_error(NULL, st, "%s: %s", fn, ctx->last_error);
        free(ctx);
        return st;
    }
    *out = ctx;
    return REDSCAN_OK;
}

redscan_status redscan_create_on_cuda_stream(redscan_ctx **out, int device, void *stream)
{
    static const char fn[] = "redscan_create_on_cuda_stream";
    rs_clear_error(NULL);
    if (!out) return rs_set_error(NULL, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'ctx' is NULL", fn);
    *out = NULL;
    if (device < 0)
        return rs_set_error(NULL, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'device' = %d is negative", fn, device);
    return create_attached(out, fn, &rs_cuda_backend, stream, device);
}

redscan_status redscan_create_on_opencl_queue(redscan_ctx **out, void *queue)
{
    static const char fn[] = "redscan_create_on_opencl_queue";
    rs_clear_error(NULL);
    if (!out) return rs_set_error(NULL, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'ctx' is NULL", fn);
    *out = NULL;
    if (!queue) return rs_set_error(NULL, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'queue' is NULL", fn);
    return create_attached(out, fn, &rs_opencl_backend, queue, 0);
}

redscan_status redscan_create(redscan_ctx **out, redscan_backend backend)
{
    rs_clear_error(NULL);
    if (!out) return rs_set_error(NULL, REDSCAN_ERR_INVALID_ARGUMENT, "redscan_create: argument 'ctx' is NULL");
    *out = NULL;
    if ((int)backend < REDSCAN_BACKEND_AUTO || (int)backend > REDSCAN_BACKEND_OPENCL)
        return rs_set_error(NULL, REDSCAN_ERR_INVALID_ARGUMENT,
                            "redscan_create: argument 'backend' has unknown value %d (expected AUTO, CUDA or OPENCL)",
                            (int)backend);

    const char *var = "";
    if (backend == REDSCAN_BACKEND_AUTO) {
        int v;
        redscan_status st = env_choice("REDSCAN_BACKEND", RS_NAMES_BACKEND, &v);
        if (st != REDSCAN_OK) return st;
        backend = (redscan_backend)v;
        if (getenv("REDSCAN_BACKEND")) var = " (from REDSCAN_BACKEND)";
    }
    redscan_ctx *ctx;
    redscan_status st = new_context(&ctx);
    if (st != REDSCAN_OK) return st;

    if (backend != REDSCAN_BACKEND_AUTO) {
        st = start(ctx, table_of(backend));
        if (st != REDSCAN_OK) {
            rs_set_error(NULL, st, "redscan_create: backend '%s'%s cannot be used: %s", table_of(backend)->name, var,
                         ctx->last_error);
            free(ctx);
            return st;
        }
        *out = ctx;
        return REDSCAN_OK;
    }

    /* auto: CUDA when a CUDA device is usable, else OpenCL */
    const char *cuda_why = "";
    if (rs_cuda_backend.probe(&cuda_why) == REDSCAN_OK && start(ctx, &rs_cuda_backend) == REDSCAN_OK) {
        *out = ctx;
        return REDSCAN_OK;
    }
    char cuda_reason[1024];
    strncpy(cuda_reason, ctx->last_error[0] ? ctx->last_error : (cuda_why ? cuda_why : ""), sizeof cuda_reason - 1);
    cuda_reason[sizeof cuda_reason - 1] = '\0';
    ctx->last_error[0] = '\0';
    st = start(ctx, &rs_opencl_backend);
    if (st != REDSCAN_OK) {
        rs_set_error(NULL, st, "redscan_create: no usable backend. cuda: %s; opencl: %s", cuda_reason,
                     ctx->last_error);
        free(ctx);
        return st;
    }
    *out = ctx;
    return REDSCAN_OK;
}

void redscan_destroy(redscan_ctx *ctx)
{
    if (!ctx) return;
    if (ctx->ops && ctx->impl) ctx->ops->shutdown(ctx);
    free(ctx);
}

const char *redscan_backend_name(const redscan_ctx *ctx)
{
    return (ctx && ctx->ops) ? ctx->ops->name : "";
}

const char *redscan_device_name(const redscan_ctx *ctx)
{
    return ctx ? ctx->device_name : "";
}
