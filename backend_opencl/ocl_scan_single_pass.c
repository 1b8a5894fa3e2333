/* The single-pass grid scan on OpenCL (kernels_cl/scan_single_pass.cl; order of combination in
 * docs/ALGORITHMS.md, "Grid level", single_pass). Host twin: backend_cuda/cuda_scan_single_pass.c.
 *
 * One zero-fill of the ticket counter and the slots (one scratch slot: 16 words, then tiles + groups slots of
 * one word, two for 64-bit T), then one launch of scan_single_pass_<B>. The number of groups launched never
 * changes a result: groups take tiles from the ticket counter until none are left.
 *
 * Needs cl_khr_int64_base_atomics (the slots are 64-bit words written with atom_xchg): without it on the device
 * the call is REDSCAN_ERR_UNSUPPORTED. Testing knobs, read at every call (parsed in api/src/scan.c):
 * REDSCAN_SINGLE_PASS_SPINS=<polls> (default 4096): how many times a group polls a slot before it computes the
 * value from the input itself; 0 forces that fallback path everywhere (slow: tile j then reduces up to j tiles).
 * REDSCAN_SINGLE_PASS_TILES=1|2: tiles a group takes per ticket; unset, 2 once there are at least twice as many
 * tiles as groups. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl_internal.h"

#define RS_SP_SLOT_BASE 16u /* as in kernels_cl/scan_single_pass.cl */

/* Whether the device lists ext (a whole word) in CL_DEVICE_EXTENSIONS. */
static int rs_sp_has_extension(const rs_ocl *o, const char *ext)
{
    size_t len = 0;
    if (clGetDeviceInfo(o->device, CL_DEVICE_EXTENSIONS, 0, NULL, &len) != CL_SUCCESS || len == 0) return 0;
    char *s = malloc(len + 1);
    if (!s) return 0;
    int found = 0;
    if (clGetDeviceInfo(o->device, CL_DEVICE_EXTENSIONS, len, s, NULL) == CL_SUCCESS) {
        s[len] = '\0';
        const size_t el = strlen(ext);
        for (const char *p = strstr(s, ext); p && !found; p = strstr(p + 1, ext))
            found = (p == s || p[-1] == ' ') && (p[el] == ' ' || p[el] == '\0');
    }
    free(s);
    return found;
}

int rs_ocl_single_pass_available(const rs_ocl *o)
{
    return rs_sp_has_extension(o, "cl_khr_int64_base_atomics");
}

/* The size of T, the type the kernel combines in (a narrow output's is 4 bytes). */
static size_t rs_sp_dtype_size(redscan_dtype d) { return redscan_dtype_size(rs_compute_dtype(d)); }

size_t rs_ocl_single_pass_bytes(redscan_dtype out_dtype, uint64_t section, uint64_t n)
{
    const uint64_t tiles = n / section + (n % section != 0);
    const uint64_t groups = tiles / 32 + (tiles % 32 != 0); /* RS_SP_GROUP tiles per group */
    const uint64_t words = RS_SP_SLOT_BASE + (tiles + groups) * (rs_sp_dtype_size(out_dtype) == 8 ? 2 : 1);
    return (size_t)words * 8;
}

redscan_status rs_ocl_scan_single_pass(redscan_ctx *ctx, const rs_scan_req *req, rs_ocl_family family,
                                       const char *sfx, uint64_t section, void *in, void *out, size_t n)
{
    rs_ocl *o = rs_ocl_of(ctx);
    if (!rs_ocl_single_pass_available(o))
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "scan: the single_pass grid needs 64-bit global atomics (cl_khr_int64_base_atomics), "
                            "which OpenCL device %s does not list; use hierarchical or reduce_then_scan",
                            ctx->device_name);
    cl_uint spins;
    redscan_status st = rs_single_pass_spins(ctx, &spins);
    if (st != REDSCAN_OK) return st;

    const size_t tsize = rs_sp_dtype_size(req->out_dtype);
    const uint64_t tiles = n / section + (n % section != 0);
    unsigned per_u;
    st = rs_single_pass_per(ctx, tiles, rs_ocl_groups_for(o, tiles), &per_u);
    if (st != REDSCAN_OK) return st;
    const cl_uint per = per_u;
    const size_t bytes = rs_ocl_single_pass_bytes(req->out_dtype, section, n);

    cl_program program;
    st = rs_ocl_program_get(ctx, family, req->dtype, req->out_dtype, req->op, &program);
    if (st != REDSCAN_OK) return st;
    char name[64];
    snprintf(name, sizeof name, "scan_single_pass_%s", sfx);
    cl_kernel k = NULL;
    st = rs_ocl_kernel(ctx, program, name, &k);
    if (st == REDSCAN_ERR_DEVICE) { /* CL_INVALID_KERNEL_NAME: the compiler left the extension's kernels out */
        char why[256];
        size_t len = strlen(ctx->last_error);
        if (len >= sizeof why) len = sizeof why - 1;
        memcpy(why, ctx->last_error, len);
        why[len] = '\0';
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "scan: the single_pass kernel %s is missing from the program: the OpenCL C compiler of "
                            "device %s does not define cl_khr_int64_base_atomics (%s)",
                            name, ctx->device_name, why);
    }
    if (st != REDSCAN_OK) return st;
    cl_mem flags = NULL;
    st = rs_ocl_scratch_split(ctx, 1, &bytes, &flags);
    if (st != REDSCAN_OK) flags = NULL;

    if (st == REDSCAN_OK) {
        const cl_ulong zero = 0;
        cl_int err =
            clEnqueueFillBuffer(o->queue, flags, &zero, sizeof zero, 0, bytes, 0, NULL, rs_ocl_time_event(o));
        if (err != CL_SUCCESS) st = rs_ocl_fail(ctx, err, "clEnqueueFillBuffer (single_pass flags)");
        if (err == CL_SUCCESS) rs_ocl_time_note(o);
    }
    const cl_mem in_mem = (cl_mem)in, out_mem = (cl_mem)out;
    const cl_ulong n_arg = n;
    const cl_int excl_arg = req->exclusive, inplace_arg = in == out;
    const struct {
        size_t size;
        const void *value;
    } args[] = {{sizeof(cl_mem), &in_mem},  {sizeof(cl_mem), &out_mem}, {sizeof(cl_mem), &flags},
                {sizeof n_arg, &n_arg},     {sizeof excl_arg, &excl_arg}, {tsize, req->init.bytes},
                {sizeof spins, &spins},     {sizeof inplace_arg, &inplace_arg}, {sizeof per, &per}};
    for (cl_uint a = 0; st == REDSCAN_OK && a < sizeof args / sizeof args[0]; ++a) {
        cl_int err = clSetKernelArg(k, a, args[a].size, args[a].value);
        if (err != CL_SUCCESS) {
            char what[128];
            snprintf(what, sizeof what, "clSetKernelArg(%s, %u)", name, (unsigned)a);
            st = rs_ocl_fail(ctx, err, what);
        }
    }
    if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, k, rs_ocl_groups_for(o, tiles / per + (tiles % per != 0)), "scan single pass");

    clReleaseKernel(k);
    if (flags) clReleaseMemObject(flags);
    return st;
}
