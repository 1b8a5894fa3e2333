/* OpenCL backend: program build and per-context cache; kernel objects; launches; CL error names.
 *
 * A program is the source of one family (ocl_program_families.c: the few kernels_cl files one kind of call needs),
 * built on first use, once per (family, input dtype, output dtype, op) per context, with only -D options: never
 * fast or relaxed math, since results must be the same bits on every device (docs/ALGORITHMS.md). The sub-group
 * reductions (warp_sync, shuffle) are built with an OpenCL C 2.0 / 3.0 -cl-std, so the language of every other
 * kernel stays what it was. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl_internal.h"

/* Smallest local memory that every kernel of a program fits in (top-k over double: 1024 x (8 + 8) bytes).
 * Kernels are also checked one by one at launch against CL_KERNEL_LOCAL_MEM_SIZE. */
#define RS_OCL_MIN_LOCAL_MEM 16384u

/* Kernel objects are cached per program, so a launch does not pay clCreateKernel each time. The cache
 * entry wraps the public rs_ocl_program (first member, so o->programs can point at it). */
typedef struct rs_ocl_kernel_entry {
    char *name;
    cl_kernel kernel;
    struct rs_ocl_kernel_entry *next;
} rs_ocl_kernel_entry;

typedef struct {
    rs_ocl_program base;
    rs_ocl_kernel_entry *kernels;
} rs_ocl_program_entry;

/* ---------------------------------------------------------------- errors */

const char *rs_ocl_error_name(cl_int err)
{
    /* Numbers rather than macros: the 2.x/3.x codes are not defined when targeting OpenCL 1.2. */
    static const struct {
        cl_int code;
        const char *name;
    } table[] = {
        {0, "CL_SUCCESS"},
        {-1, "CL_DEVICE_NOT_FOUND"},
        {-2, "CL_DEVICE_NOT_AVAILABLE"},
        {-3, "CL_COMPILER_NOT_AVAILABLE"},
        {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
        {-5, "CL_OUT_OF_RESOURCES"},
        {-6, "CL_OUT_OF_HOST_MEMORY"},
        {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"},
        {-8, "CL_MEM_COPY_OVERLAP"},
        {-9, "CL_IMAGE_FORMAT_MISMATCH"},
        {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
        {-11, "CL_BUILD_PROGRAM_FAILURE"},
        {-12, "CL_MAP_FAILURE"},
        {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
        {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
        {-15, "CL_COMPILE_PROGRAM_FAILURE"},
        {-16, "CL_LINKER_NOT_AVAILABLE"},
        {-17, "CL_LINK_PROGRAM_FAILURE"},
        {-18, "CL_DEVICE_PARTITION_FAILED"},
        {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
        {-30, "CL_INVALID_VALUE"},
        {-31, "CL_INVALID_DEVICE_TYPE"},
        {-32, "CL_INVALID_PLATFORM"},
        {-33, "CL_INVALID_DEVICE"},
        {-34, "CL_INVALID_CONTEXT"},
        {-35, "CL_INVALID_QUEUE_PROPERTIES"},
        {-36, "CL_INVALID_COMMAND_QUEUE"},
        {-37, "CL_INVALID_HOST_PTR"},
        {-38, "CL_INVALID_MEM_OBJECT"},
        {-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"},
        {-40, "CL_INVALID_IMAGE_SIZE"},
        {-41, "CL_INVALID_SAMPLER"},
        {-42, "CL_INVALID_BINARY"},
        {-43, "CL_INVALID_BUILD_OPTIONS"},
        {-44, "CL_INVALID_PROGRAM"},
        {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
        {-46, "CL_INVALID_KERNEL_NAME"},
        {-47, "CL_INVALID_KERNEL_DEFINITION"},
        {-48, "CL_INVALID_KERNEL"},
        {-49, "CL_INVALID_ARG_INDEX"},
        {-50, "CL_INVALID_ARG_VALUE"},
        {-51, "CL_INVALID_ARG_SIZE"},
        {-52, "CL_INVALID_KERNEL_ARGS"},
        {-53, "CL_INVALID_WORK_DIMENSION"},
        {-54, "CL_INVALID_WORK_GROUP_SIZE"},
        {-55, "CL_INVALID_WORK_ITEM_SIZE"},
        {-56, "CL_INVALID_GLOBAL_OFFSET"},
        {-57, "CL_INVALID_EVENT_WAIT_LIST"},
        {-58, "CL_INVALID_EVENT"},
        {-59, "CL_INVALID_OPERATION"},
        {-60, "CL_INVALID_GL_OBJECT"},
        {-61, "CL_INVALID_BUFFER_SIZE"},
        {-62, "CL_INVALID_MIP_LEVEL"},
        {-63, "CL_INVALID_GLOBAL_WORK_SIZE"},
        {-64, "CL_INVALID_PROPERTY"},
        {-65, "CL_INVALID_IMAGE_DESCRIPTOR"},
        {-66, "CL_INVALID_COMPILER_OPTIONS"},
        {-67, "CL_INVALID_LINKER_OPTIONS"},
        {-68, "CL_INVALID_DEVICE_PARTITION_COUNT"},
        {-69, "CL_INVALID_PIPE_SIZE"},
        {-70, "CL_INVALID_DEVICE_QUEUE"},
        {-71, "CL_INVALID_SPEC_ID"},
        {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
        {-1000, "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR"},
        {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
        {-1002, "CL_INVALID_D3D10_DEVICE_KHR"},
        {-1003, "CL_INVALID_D3D10_RESOURCE_KHR"},
        {-1004, "CL_D3D10_RESOURCE_ALREADY_ACQUIRED_KHR"},
        {-1005, "CL_D3D10_RESOURCE_NOT_ACQUIRED_KHR"},
        {-1006, "CL_INVALID_D3D11_DEVICE_KHR"},
        {-1007, "CL_INVALID_D3D11_RESOURCE_KHR"},
        {-1008, "CL_D3D11_RESOURCE_ALREADY_ACQUIRED_KHR"},
        {-1009, "CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR"},
        {-1010, "CL_INVALID_DX9_MEDIA_ADAPTER_KHR"},
        {-1011, "CL_INVALID_DX9_MEDIA_SURFACE_KHR"},
        {-1012, "CL_DX9_MEDIA_SURFACE_ALREADY_ACQUIRED_KHR"},
        {-1013, "CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR"},
        {-1057, "CL_DEVICE_PARTITION_FAILED_EXT"},
        {-1058, "CL_INVALID_PARTITION_COUNT_EXT"},
        {-1059, "CL_INVALID_PARTITION_NAME_EXT"},
        {-1092, "CL_EGL_RESOURCE_NOT_ACQUIRED_KHR"},
        {-1093, "CL_INVALID_EGL_OBJECT_KHR"},
        {-1094, "CL_INVALID_ACCELERATOR_INTEL"},
        {-1095, "CL_INVALID_ACCELERATOR_TYPE_INTEL"},
        {-1096, "CL_INVALID_ACCELERATOR_DESCRIPTOR_INTEL"},
        {-1097, "CL_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL"},
        {-1098, "CL_INVALID_VA_API_MEDIA_ADAPTER_INTEL"},
        {-1099, "CL_INVALID_VA_API_MEDIA_SURFACE_INTEL"},
        {-1100, "CL_VA_API_MEDIA_SURFACE_ALREADY_ACQUIRED_INTEL"},
        {-1101, "CL_VA_API_MEDIA_SURFACE_NOT_ACQUIRED_INTEL"},
        {-9999, "CL_NV_ILLEGAL_BUFFER_ACCESS"}, /* NVIDIA: out-of-bounds access in a kernel */
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].code == err) return table[i].name;
    return "CL_UNKNOWN_ERROR";
}

redscan_status rs_ocl_status(cl_int err)
{
    switch (err) {
    case CL_SUCCESS:
        return REDSCAN_OK;
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_RESOURCES:
    case CL_OUT_OF_HOST_MEMORY:
        return REDSCAN_ERR_OUT_OF_MEMORY;
    case CL_BUILD_PROGRAM_FAILURE:
    case CL_COMPILER_NOT_AVAILABLE:
        return REDSCAN_ERR_KERNEL_BUILD;
    case CL_DEVICE_NOT_FOUND:
    case CL_DEVICE_NOT_AVAILABLE:
    case -1001: /* CL_PLATFORM_NOT_FOUND_KHR */
        return REDSCAN_ERR_BACKEND_UNAVAILABLE;
    default:
        return REDSCAN_ERR_DEVICE;
    }
}

redscan_status rs_ocl_fail(redscan_ctx *ctx, cl_int err, const char *what)
{
    return rs_set_error(ctx, rs_ocl_status(err), "%s: %s (%d)", what, rs_ocl_error_name(err), (int)err);
}

/* ---------------------------------------------------------------- build */

/* Build failed: put the options and the build log in last_error. */
static redscan_status rs_ocl_build_failed(redscan_ctx *ctx, rs_ocl *o, cl_program prog, cl_int err,
                                          const char *options)
{
    size_t len = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(prog, o->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) == CL_SUCCESS && len > 0 &&
        (log = malloc(len + 1)) != NULL) {
        if (clGetProgramBuildInfo(prog, o->device, CL_PROGRAM_BUILD_LOG, len, log, NULL) != CL_SUCCESS) len = 0;
        log[len] = '\0';
    }
    redscan_status st = rs_set_error(ctx, REDSCAN_ERR_KERNEL_BUILD, "OpenCL program build failed (%s, options \"%s\"):\n%s",
                                     rs_ocl_error_name(err), options, log ? log : "(no build log)");
    free(log);
    return st;
}

static redscan_status rs_ocl_build(redscan_ctx *ctx, rs_ocl *o, rs_ocl_family family, redscan_dtype dtype,
                                   redscan_dtype out_dtype, redscan_op op, cl_program *program)
{
    /* Sub-group built-ins (clang's opencl-c headers among others) are only declared for OpenCL C 2.0 and later; the
     * default language is the device's highest 1.x. Only the sub-group program changes language. */
    const int std = family == RS_OCL_PROG_REDUCE_SUBGROUP && o->subgroup_std[0];
    char options[256];
    snprintf(options, sizeof options, "-DRS_DTYPE=%d -DRS_OUT_DTYPE=%d -DRS_OP=%d%s%s%s", (int)dtype, (int)out_dtype,
             (int)op, rs_ocl_family_options(family), std ? " -cl-std=" : "", std ? o->subgroup_std : "");
    char *text = rs_ocl_family_source(family);
    if (!text)
        return rs_set_error(ctx, REDSCAN_ERR_OUT_OF_MEMORY, "out of host memory assembling the OpenCL program %s",
                            rs_ocl_family_name(family));
    /* The on-disk cache first (ocl_cache.c): a build from source takes seconds on PoCL. */
    rs_ocl_cache_key key;
    rs_ocl_cache_key_init(o, text, options, &key);
    if (rs_ocl_cache_load(o, &key, program)) {
        free(text);
        return REDSCAN_OK;
    }
    const char *src = text;
    cl_int err;
    cl_program prog = clCreateProgramWithSource(o->context, 1, &src, NULL, &err);
    free(text);
    if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, "clCreateProgramWithSource");
    err = clBuildProgram(prog, 1, &o->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        redscan_status st = err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS
                                ? rs_ocl_build_failed(ctx, o, prog, err, options)
                                : rs_ocl_fail(ctx, err, "clBuildProgram");
        clReleaseProgram(prog);
        return st;
    }
    rs_ocl_cache_store(o, &key, prog);
    *program = prog;
    return REDSCAN_OK;
}

/* The device limits every kernel needs, checked when a program is first wanted (not at init: the context
 * still opens, and the caller learns why nothing runs). */
static redscan_status rs_ocl_check_device(redscan_ctx *ctx, const rs_ocl *o, redscan_dtype dtype,
                                          redscan_dtype out_dtype)
{
    if (o->max_group < RS_GROUP)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "OpenCL device %s allows work-groups of %zu work-items; redscan needs %d", ctx->device_name,
                            o->max_group, RS_GROUP);
    if (o->local_mem < RS_OCL_MIN_LOCAL_MEM)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "OpenCL device %s has %llu bytes of local memory; redscan needs %u", ctx->device_name,
                            (unsigned long long)o->local_mem, RS_OCL_MIN_LOCAL_MEM);
    if ((dtype == REDSCAN_FLOAT64 || out_dtype == REDSCAN_FLOAT64) && !o->has_fp64)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "OpenCL device %s has no double precision (cl_khr_fp64); float64 is unsupported there",
                            ctx->device_name);
    return REDSCAN_OK;
}

redscan_status rs_ocl_program_get(redscan_ctx *ctx, rs_ocl_family family, redscan_dtype dtype,
                                  redscan_dtype out_dtype, redscan_op op, cl_program *program)
{
    rs_ocl *o = rs_ocl_of(ctx);
    for (rs_ocl_program *p = o->programs; p; p = p->next)
        if (p->family == family && p->dtype == dtype && p->out_dtype == out_dtype && p->op == op) {
            *program = p->program;
            return REDSCAN_OK;
        }
    redscan_status st = rs_ocl_check_device(ctx, o, dtype, out_dtype);
    if (st != REDSCAN_OK) return st;
    rs_ocl_program_entry *e = calloc(1, sizeof *e);
    if (!e) return rs_set_error(ctx, REDSCAN_ERR_OUT_OF_MEMORY, "out of host memory");
    st = rs_ocl_build(ctx, o, family, dtype, out_dtype, op, &e->base.program);
    if (st != REDSCAN_OK) {
        free(e);
        return st;
    }
    e->base.family = family;
    e->base.dtype = dtype;
    e->base.out_dtype = out_dtype;
    e->base.op = op;
    e->base.next = o->programs;
    o->programs = &e->base;
    *program = e->base.program;
    return REDSCAN_OK;
}

/* ---------------------------------------------------------------- kernels */

/* optional: a kernel the program does not have is *kernel = NULL and REDSCAN_OK, not an error. */
static redscan_status rs_ocl_kernel_get(redscan_ctx *ctx, cl_program program, const char *name, int optional,
                                        cl_kernel *kernel)
{
    rs_ocl *o = rs_ocl_of(ctx);
    rs_ocl_program_entry *owner = NULL;
    for (rs_ocl_program *p = o->programs; p; p = p->next)
        if (p->program == program) owner = (rs_ocl_program_entry *)p;
    if (owner)
        for (rs_ocl_kernel_entry *k = owner->kernels; k; k = k->next)
            if (strcmp(k->name, name) == 0) {
                /* The caller releases what it gets; the cache keeps its own reference. */
                cl_int err = clRetainKernel(k->kernel);
                if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, "clRetainKernel");
                *kernel = k->kernel;
                return REDSCAN_OK;
            }

    cl_int err;
    cl_kernel kern = clCreateKernel(program, name, &err);
    if (err == CL_INVALID_KERNEL_NAME && optional) {
        *kernel = NULL;
        return REDSCAN_OK;
    }
    if (err != CL_SUCCESS)
        return rs_set_error(ctx, rs_ocl_status(err), "clCreateKernel(%s): %s (%d)", name, rs_ocl_error_name(err),
                            (int)err);
    if (owner) {
        rs_ocl_kernel_entry *k = calloc(1, sizeof *k);
        char *copy = malloc(strlen(name) + 1);
        if (k && copy && clRetainKernel(kern) == CL_SUCCESS) {
            k->name = strcpy(copy, name);
            k->kernel = kern;
            k->next = owner->kernels;
            owner->kernels = k;
        } else { /* not cached: still usable, just created again next time */
            free(k);
            free(copy);
        }
    }
    *kernel = kern;
    return REDSCAN_OK;
}

redscan_status rs_ocl_kernel(redscan_ctx *ctx, cl_program program, const char *name, cl_kernel *kernel)
{
    return rs_ocl_kernel_get(ctx, program, name, 0, kernel);
}

redscan_status rs_ocl_kernel_opt(redscan_ctx *ctx, cl_program program, const char *name, cl_kernel *kernel)
{
    return rs_ocl_kernel_get(ctx, program, name, 1, kernel);
}

void rs_ocl_programs_release(rs_ocl *o)
{
    rs_ocl_program *p = o->programs;
    while (p) {
        rs_ocl_program_entry *e = (rs_ocl_program_entry *)p;
        rs_ocl_kernel_entry *k = e->kernels;
        while (k) {
            rs_ocl_kernel_entry *next = k->next;
            clReleaseKernel(k->kernel);
            free(k->name);
            free(k);
            k = next;
        }
        rs_ocl_program *next = p->next;
        clReleaseProgram(p->program);
        free(e);
        p = next;
    }
    o->programs = NULL;
}

/* ---------------------------------------------------------------- launches */

redscan_status rs_ocl_launch(redscan_ctx *ctx, cl_kernel kernel, size_t groups, const char *what)
{
    rs_ocl *o = rs_ocl_of(ctx);
    if (groups == 0) return REDSCAN_OK;
    size_t wg = 0;
    cl_ulong local = 0;
    cl_int err = clGetKernelWorkGroupInfo(kernel, o->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    if (err == CL_SUCCESS)
        err = clGetKernelWorkGroupInfo(kernel, o->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
    if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, "clGetKernelWorkGroupInfo");
    if (wg < RS_GROUP)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "%s: the device runs this kernel with at most %zu work-items per group; redscan needs %d",
                            what, wg, RS_GROUP);
    if (local > o->local_mem)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED, "%s: needs %llu bytes of local memory, the device has %llu",
                            what, (unsigned long long)local, (unsigned long long)o->local_mem);
    const size_t global = groups * RS_GROUP, local_size = RS_GROUP;
    err = clEnqueueNDRangeKernel(o->queue, kernel, 1, NULL, &global, &local_size, 0, NULL, rs_ocl_time_event(o));
    if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, what);
    rs_ocl_time_note(o);
    return REDSCAN_OK;
}

/* Groups loop over tiles g, g+G, ..., so G only trades launch size against per-group work: enough groups to
 * fill the device several times over, no more. */
size_t rs_ocl_groups_for(const rs_ocl *o, uint64_t tiles)
{
    uint64_t cap = (uint64_t)(o->compute_units ? o->compute_units : 1) * 8;
    if (cap < 16) cap = 16;
    return (size_t)(tiles < cap ? tiles : cap);
}
