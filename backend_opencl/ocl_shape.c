/* Kernel shapes of the OpenCL backend (docs/ALGORITHMS.md, "CPU shape"). A shape is how an algorithm's fixed
 * expression is laid onto the device, never what it computes: the GPU shape runs work-groups of 256 work-items
 * (one lane each), the CPU shape runs work-groups of one work-item that plays the 256 lanes of a tile with vector
 * operations, over a long contiguous run of tiles. Both give the same bits.
 *
 * REDSCAN_OPENCL_SHAPE = auto (default: the CPU shape on CL_DEVICE_TYPE_CPU devices), gpu (forced) or cpu (forced;
 * refused with REDSCAN_ERR_UNSUPPORTED on a device that is not a CPU), read when the context is created. The CPU
 * shape exists for the coarsened reduction and for the coarsened block scan in the reduce-then-scan grid
 * (ocl_reduce.c, ocl_scan.c pick it); every other algorithm has the GPU shape only. */
#include <stdlib.h>

#include "ocl_internal.h"

static const char *const rs_shape_names[] = {"auto", "gpu", "cpu"}; /* index = rs_ocl_shape */

static int rs_shape_same(const char *a, const char *b) /* ASCII, ignoring case */
{
    for (; *a && *b; ++a, ++b) {
        const char ca = (*a >= 'A' && *a <= 'Z') ? (char)(*a - 'A' + 'a') : *a;
        const char cb = (*b >= 'A' && *b <= 'Z') ? (char)(*b - 'A' + 'a') : *b;
        if (ca != cb) return 0;
    }
    return *a == *b;
}

redscan_status rs_ocl_shape_from_env(redscan_ctx *ctx, rs_ocl_shape *shape)
{
    const char *text = getenv("REDSCAN_OPENCL_SHAPE");
    *shape = RS_OCL_SHAPE_AUTO;
    if (!text) return REDSCAN_OK;
    for (int i = 0; i < (int)(sizeof rs_shape_names / sizeof rs_shape_names[0]); i++)
        if (rs_shape_same(text, rs_shape_names[i])) {
            *shape = (rs_ocl_shape)i;
            return REDSCAN_OK;
        }
    return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                        "REDSCAN_OPENCL_SHAPE='%s' is not understood; accepted values: auto|gpu|cpu", text);
}

/* The CPU shape is for CPU devices. Forced onto a GPU it would only be slow (one work-item per work-group), but
 * on NVIDIA's OpenCL (driver 580, H100 and H200) it also gave wrong float32 sums (tests/test_shape.c; a one-off
 * probe found wrong lane values in the last, partial tile, docs/ALGORITHMS.md), so a GPU never runs it: the
 * context is refused with a message rather than run on a path that is tested only on CPU devices. */
redscan_status rs_ocl_shape_check(redscan_ctx *ctx, rs_ocl *o)
{
    if (rs_ocl_full_of(o)->shape != RS_OCL_SHAPE_CPU || (o->device_type & CL_DEVICE_TYPE_CPU)) return REDSCAN_OK;
    return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                        "REDSCAN_OPENCL_SHAPE=cpu: device %s is not an OpenCL CPU device; the CPU shape runs on CPU "
                        "devices only (accepted here: auto|gpu)",
                        ctx->device_name);
}

int rs_ocl_cpu_shape(rs_ocl *o)
{
    const rs_ocl_shape shape = rs_ocl_full_of(o)->shape;
    if (shape != RS_OCL_SHAPE_AUTO) return shape == RS_OCL_SHAPE_CPU;
    return (o->device_type & CL_DEVICE_TYPE_CPU) != 0;
}

/* Runs of at least RS_CPU_MIN_RUN units (tiles or sections: 32 KiB to 128 KiB of input), at most 16 work-items
 * per compute unit: enough for the device's threads to balance the load when other work shares the cores, few
 * enough that each runs through a long stretch of memory. */
#define RS_CPU_MIN_RUN 8
#define RS_CPU_ITEMS_PER_UNIT 16

size_t rs_ocl_cpu_items(const rs_ocl *o, uint64_t units, uint64_t *per)
{
    const uint64_t cap = (uint64_t)(o->compute_units ? o->compute_units : 1) * RS_CPU_ITEMS_PER_UNIT;
    uint64_t items = units / RS_CPU_MIN_RUN + (units % RS_CPU_MIN_RUN != 0);
    if (items > cap) items = cap;
    if (items == 0) items = 1;
    *per = units / items + (units % items != 0);
    return (size_t)(units / *per + (units % *per != 0));
}

redscan_status rs_ocl_launch_items(redscan_ctx *ctx, cl_kernel kernel, size_t items, const char *what)
{
    rs_ocl *o = rs_ocl_of(ctx);
    if (items == 0) return REDSCAN_OK;
    const size_t global = items, local = 1;
    const cl_int err = clEnqueueNDRangeKernel(o->queue, kernel, 1, NULL, &global, &local, 0, NULL,
                                              rs_ocl_time_event(o));
    if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, what);
    rs_ocl_time_note(o);
    return REDSCAN_OK;
}
