/* OpenCL backend: platform and device choice, context and in-order queue, device limits.
 *
 * Devices are numbered over all platforms, the platforms sorted by name (byte order; platforms of the same name
 * in the ICD loader's order), each platform's devices in its own order. The loader's order is not a stable one:
 * ocl-icd lists the platforms with the most GPUs, then CPUs, first and the rest in the order the file system
 * returns the .icd files, so two CPU runtimes (PoCL and Intel's) could swap places between machines.
 * REDSCAN_OPENCL_DEVICE picks a device by that index or by a case-insensitive substring: the first device
 * whose platform name contains it, else the first whose "<platform name> <device name>" does (so "intel" picks
 * Intel's runtime even where PoCL's device is named after an Intel CPU). Unset: the first GPU, else the first
 * device. A value that picks nothing is an error that lists the devices, never a quiet fallback to another
 * device. tools/info.c lists the devices in the same order. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl_internal.h"

typedef struct {
    cl_platform_id platform;
    cl_device_id device;
    cl_device_type type;
    char platform_name[128];
    char device_name[128];
} rs_ocl_candidate;

/* A platform or device name, trimmed (some drivers pad device names with spaces). */
static void rs_ocl_trim(char *s)
{
    size_t len = strlen(s), start = 0;
    while (len > 0 && isspace((unsigned char)s[len - 1])) s[--len] = '\0';
    while (start < len && isspace((unsigned char)s[start])) start++;
    memmove(s, s + start, len - start + 1);
}

static void rs_ocl_platform_name(cl_platform_id p, char *out, size_t cap)
{
    if (clGetPlatformInfo(p, CL_PLATFORM_NAME, cap, out, NULL) != CL_SUCCESS) snprintf(out, cap, "(unnamed platform)");
    out[cap - 1] = '\0';
    rs_ocl_trim(out);
}

static void rs_ocl_device_name(cl_device_id d, char *out, size_t cap)
{
    if (clGetDeviceInfo(d, CL_DEVICE_NAME, cap, out, NULL) != CL_SUCCESS) snprintf(out, cap, "(unnamed device)");
    out[cap - 1] = '\0';
    rs_ocl_trim(out);
}

/* Every device of every platform, in platform order. *reason is set (static text) when there is none;
 * *count = 0 with a NULL list means "none" or "out of host memory" (reason says which). */
static rs_ocl_candidate *rs_ocl_candidates(size_t *count, const char **reason)
{
    *count = 0;
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &np);
    if (err != CL_SUCCESS || np == 0) {
        *reason = "no OpenCL platform found (no ICD installed or registered; on a CPU-only machine install PoCL, "
                  "e.g. pocl-opencl-icd)";
        return NULL;
    }
    cl_platform_id *platforms = malloc(np * sizeof *platforms);
    if (!platforms || clGetPlatformIDs(np, platforms, NULL) != CL_SUCCESS) {
        free(platforms);
        *reason = "could not list the OpenCL platforms (clGetPlatformIDs failed or out of host memory)";
        return NULL;
    }
    /* sorted by name, stably (insertion sort; a handful of platforms) */
    char (*pnames)[sizeof ((rs_ocl_candidate *)0)->platform_name] = malloc(np * sizeof *pnames);
    if (!pnames) {
        free(platforms);
        *reason = "out of host memory listing OpenCL platforms";
        return NULL;
    }
    for (cl_uint p = 0; p < np; p++) rs_ocl_platform_name(platforms[p], pnames[p], sizeof pnames[p]);
    for (cl_uint p = 1; p < np; p++) {
        cl_platform_id id = platforms[p];
        char name[sizeof *pnames];
        memcpy(name, pnames[p], sizeof name);
        cl_uint q = p;
        for (; q > 0 && strcmp(pnames[q - 1], name) > 0; q--) {
            platforms[q] = platforms[q - 1];
            memcpy(pnames[q], pnames[q - 1], sizeof name);
        }
        platforms[q] = id;
        memcpy(pnames[q], name, sizeof name);
    }
    size_t total = 0;
    for (cl_uint p = 0; p < np; p++) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) == CL_SUCCESS) total += nd;
    }
    rs_ocl_candidate *list = total ? calloc(total, sizeof *list) : NULL;
    cl_device_id *ids = total ? malloc(total * sizeof *ids) : NULL;
    if (!list || !ids) {
        free(list);
        free(ids);
        free(pnames);
        free(platforms);
        *reason = total ? "out of host memory listing OpenCL devices"
                        : "OpenCL platforms are installed but none of them has a device";
        return NULL;
    }
    size_t at = 0;
    for (cl_uint p = 0; p < np && at < total; p++) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, (cl_uint)(total - at), ids, &nd) != CL_SUCCESS) continue;
        for (cl_uint d = 0; d < nd && at < total; d++, at++) {
            list[at].platform = platforms[p];
            list[at].device = ids[d];
            if (clGetDeviceInfo(ids[d], CL_DEVICE_TYPE, sizeof list[at].type, &list[at].type, NULL) != CL_SUCCESS)
                list[at].type = 0;
            memcpy(list[at].platform_name, pnames[p], sizeof list[at].platform_name);
            rs_ocl_device_name(ids[d], list[at].device_name, sizeof list[at].device_name);
        }
    }
    free(ids);
    free(pnames);
    free(platforms);
    if (at == 0) {
        free(list);
        *reason = "OpenCL platforms are installed but none of them has a device";
        return NULL;
    }
    *count = at;
    return list;
}

static int rs_ocl_contains_nocase(const char *hay, const char *needle)
{
    size_t nl = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < nl && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i])) i++;
        if (i == nl) return 1;
    }
    return nl == 0;
}

/* REDSCAN_OPENCL_DEVICE did not pick a device: say so and list what there is. */
static redscan_status rs_ocl_no_match(redscan_ctx *ctx, const char *value, const char *why,
                                      const rs_ocl_candidate *list, size_t count)
{
    char devices[RS_ERROR_MAX / 2];
    size_t at = 0;
    devices[0] = '\0';
    for (size_t i = 0; i < count && at < sizeof devices; i++) {
        int w = snprintf(devices + at, sizeof devices - at, "\n  [%zu] %s %s", i, list[i].platform_name,
                         list[i].device_name);
        if (w < 0) break;
        at += (size_t)w;
    }
    return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                        "REDSCAN_OPENCL_DEVICE=\"%s\" %s; give an index or a case-insensitive part of "
                        "\"<platform> <device>\". Available OpenCL devices:%s",
                        value, why, devices);
}

/* Index into list of the chosen device, or an error. */
static redscan_status rs_ocl_choose(redscan_ctx *ctx, const rs_ocl_candidate *list, size_t count, size_t *chosen)
{
    const char *env = getenv("REDSCAN_OPENCL_DEVICE");
    if (!env) {
        *chosen = 0;
        for (size_t i = 0; i < count; i++)
            if (list[i].type & CL_DEVICE_TYPE_GPU) {
                *chosen = i;
                break;
            }
        return REDSCAN_OK;
    }
    if (*env == '\0') return rs_ocl_no_match(ctx, env, "is empty", list, count);
    size_t digits = strspn(env, "0123456789");
    if (env[digits] == '\0') {
        unsigned long long idx = digits <= 18 ? strtoull(env, NULL, 10) : (unsigned long long)-1;
        if (idx >= count) return rs_ocl_no_match(ctx, env, "is out of range", list, count);
        *chosen = (size_t)idx;
        return REDSCAN_OK;
    }
    for (size_t i = 0; i < count; i++)
        if (rs_ocl_contains_nocase(list[i].platform_name, env)) {
            *chosen = i;
            return REDSCAN_OK;
        }
    for (size_t i = 0; i < count; i++) {
        char label[sizeof list[i].platform_name + sizeof list[i].device_name + 2];
        snprintf(label, sizeof label, "%s %s", list[i].platform_name, list[i].device_name);
        if (rs_ocl_contains_nocase(label, env)) {
            *chosen = i;
            return REDSCAN_OK;
        }
    }
    return rs_ocl_no_match(ctx, env, "matches no device", list, count);
}

/* Whether the extension list names ext as a whole word. */
static int rs_ocl_has_extension(cl_device_id d, const char *ext)
{
    size_t len = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &len) != CL_SUCCESS || len == 0) return 0;
    char *all = malloc(len + 1);
    if (!all) return 0;
    int found = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, len, all, NULL) == CL_SUCCESS) {
        all[len] = '\0';
        size_t el = strlen(ext);
        for (const char *p = strstr(all, ext); p && !found; p = strstr(p + 1, ext))
            found = (p == all || p[-1] == ' ') && (p[el] == '\0' || p[el] == ' ');
    }
    free(all);
    return found;
}

/* ---- sub-groups (warp_sync / shuffle reductions) ----
 * OpenCL 3.0 / 2.1 names, by number: the 1.2 headers the library targets do not define them. */
#define RS_CL_DEVICE_OPENCL_C_ALL_VERSIONS 0x1066
#define RS_CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE 0x2033 /* same value as the _KHR name */
#define RS_CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE 0x2034
typedef struct {
    cl_uint version; /* cl_version: major in bits 22..31 */
    char name[64];
} rs_ocl_name_version;

/* Highest OpenCL C major version the device compiles: CL_DEVICE_OPENCL_C_ALL_VERSIONS (3.0 devices, whose
 * CL_DEVICE_OPENCL_C_VERSION may say 1.2), else "OpenCL C <major>.<minor>" of CL_DEVICE_OPENCL_C_VERSION. */
static int rs_ocl_c_major(cl_device_id d)
{
    int best = 1;
    size_t bytes = 0;
    if (clGetDeviceInfo(d, RS_CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, NULL, &bytes) == CL_SUCCESS &&
        bytes >= sizeof(rs_ocl_name_version)) {
        rs_ocl_name_version *all = malloc(bytes);
        if (all && clGetDeviceInfo(d, RS_CL_DEVICE_OPENCL_C_ALL_VERSIONS, bytes, all, NULL) == CL_SUCCESS)
            for (size_t i = 0; i < bytes / sizeof *all; i++)
                if ((int)(all[i].version >> 22) > best) best = (int)(all[i].version >> 22);
        free(all);
    }
    char text[128] = "";
    int major = 0, minor = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_VERSION, sizeof text - 1, text, NULL) == CL_SUCCESS &&
        sscanf(text, "OpenCL C %d.%d", &major, &minor) == 2 && major > best)
        best = major;
    return best;
}

/* What the warp_sync / shuffle reductions need from the device, read once at open: the extensions, the -cl-std
 * their program is built with, and the kernel query for the sub-group size. */
static void rs_ocl_query_subgroups(rs_ocl *o)
{
    o->has_subgroups = rs_ocl_has_extension(o->device, "cl_khr_subgroups");
    o->has_subgroup_shuffle_relative = rs_ocl_has_extension(o->device, "cl_khr_subgroup_shuffle_relative");
    o->subgroup_std[0] = '\0';
    o->sub_group_info = NULL;
    if (!o->has_subgroups || !o->has_subgroup_shuffle_relative) return;
    const int major = rs_ocl_c_major(o->device);
    snprintf(o->subgroup_std, sizeof o->subgroup_std, "%s", major >= 3 ? "CL3.0" : major == 2 ? "CL2.0" : "");
    /* A pointer to a function comes back as void *; the cast is the documented way to use it. */
    o->sub_group_info =
        (rs_ocl_sub_group_info_fn)clGetExtensionFunctionAddressForPlatform(o->platform, "clGetKernelSubGroupInfoKHR");
}

redscan_status rs_ocl_kernel_subgroups(redscan_ctx *ctx, cl_kernel kernel, const char *what, size_t *size,
                                       size_t *count)
{
    rs_ocl *o = rs_ocl_of(ctx);
    if (!o->sub_group_info)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "%s: the OpenCL platform of %s does not provide clGetKernelSubGroupInfoKHR, so the "
                            "sub-group size of the kernel cannot be checked",
                            what, ctx->device_name);
    const size_t local = RS_GROUP;
    *size = *count = 0;
    cl_int err = o->sub_group_info(kernel, o->device, RS_CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local,
                                   &local, sizeof *size, size, NULL);
    if (err == CL_SUCCESS)
        err = o->sub_group_info(kernel, o->device, RS_CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, sizeof local, &local,
                                sizeof *count, count, NULL);
    if (err != CL_SUCCESS)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "%s: clGetKernelSubGroupInfoKHR failed on %s (%s, %d), so the sub-group size of the kernel "
                            "cannot be checked",
                            what, ctx->device_name, rs_ocl_error_name(err), (int)err);
    return REDSCAN_OK;
}

static redscan_status rs_ocl_query(redscan_ctx *ctx, rs_ocl *o)
{
    cl_int err = clGetDeviceInfo(o->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof o->max_group, &o->max_group, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(o->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof o->local_mem, &o->local_mem, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(o->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof o->compute_units, &o->compute_units,
                              NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(o->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof o->max_alloc, &o->max_alloc, NULL);
    if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, "clGetDeviceInfo");
    /* fp64: core-optional in 1.2 (a non-zero CL_DEVICE_DOUBLE_FP_CONFIG), an extension before; older
     * drivers reject the query, so either sign is enough. */
    cl_device_fp_config fp64 = 0;
    if (clGetDeviceInfo(o->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL) != CL_SUCCESS) fp64 = 0;
    o->has_fp64 = fp64 != 0 || rs_ocl_has_extension(o->device, "cl_khr_fp64");
    rs_ocl_query_subgroups(o);
    return REDSCAN_OK;
}

redscan_status rs_ocl_open(redscan_ctx *ctx, rs_ocl *o)
{
    size_t count = 0, chosen = 0;
    const char *reason = NULL;
    rs_ocl_candidate *list = rs_ocl_candidates(&count, &reason);
    if (!list) return rs_set_error(ctx, REDSCAN_ERR_BACKEND_UNAVAILABLE, "OpenCL backend unavailable: %s", reason);
    redscan_status st = rs_ocl_choose(ctx, list, count, &chosen);
    if (st != REDSCAN_OK) {
        free(list);
        return st;
    }
    o->platform = list[chosen].platform;
    o->device = list[chosen].device;
    o->device_type = list[chosen].type;
    snprintf(ctx->device_name, sizeof ctx->device_name, "%.120s / %.120s", list[chosen].platform_name,
             list[chosen].device_name);
    free(list);

    st = rs_ocl_query(ctx, o);
    if (st != REDSCAN_OK) return st;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)o->platform, 0};
    cl_int err;
    o->context = clCreateContext(props, 1, &o->device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        o->context = NULL;
        return rs_ocl_fail(ctx, err, "clCreateContext");
    }
    /* In order: a launch sees the results of the launches before it without events. */
    o->queue = clCreateCommandQueue(o->context, o->device, 0, &err);
    if (err != CL_SUCCESS) {
        o->queue = NULL;
        rs_ocl_close(o);
        return rs_ocl_fail(ctx, err, "clCreateCommandQueue");
    }
    return REDSCAN_OK;
}

/* The caller's queue: its context and device come from it, and all three are retained here and released by
 * rs_ocl_close, so the caller may release its own references at any time. */
redscan_status rs_ocl_attach(redscan_ctx *ctx, rs_ocl *o, cl_command_queue queue)
{
    cl_command_queue_properties props = 0;
    cl_context context = NULL;
    cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, NULL);
    if (err == CL_SUCCESS) err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof o->device, &o->device, NULL);
    if (err == CL_SUCCESS) err = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    if (err != CL_SUCCESS)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "argument 'queue' is not a valid cl_command_queue (clGetCommandQueueInfo: %s, %d)",
                            rs_ocl_error_name(err), (int)err);
    if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "argument 'queue' is an out-of-order queue (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE); "
                            "redscan's commands depend on each other through in-order execution: pass an in-order "
                            "queue");
    err = clGetDeviceInfo(o->device, CL_DEVICE_PLATFORM, sizeof o->platform, &o->platform, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceInfo(o->device, CL_DEVICE_TYPE, sizeof o->device_type, &o->device_type, NULL);
    if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, "clGetDeviceInfo (the queue's device)");
    char platform_name[128] = "", device_name[128] = "";
    (void)clGetPlatformInfo(o->platform, CL_PLATFORM_NAME, sizeof platform_name - 1, platform_name, NULL);
    (void)clGetDeviceInfo(o->device, CL_DEVICE_NAME, sizeof device_name - 1, device_name, NULL);
    snprintf(ctx->device_name, sizeof ctx->device_name, "%.120s / %.120s", platform_name, device_name);
    RS_OCL_TRY(rs_ocl_query(ctx, o));
    if ((err = clRetainContext(context)) != CL_SUCCESS) return rs_ocl_fail(ctx, err, "clRetainContext");
    o->context = context;
    if ((err = clRetainCommandQueue(queue)) != CL_SUCCESS) return rs_ocl_fail(ctx, err, "clRetainCommandQueue");
    o->queue = queue;
    o->attached = 1;
    o->queue_profiling = (props & CL_QUEUE_PROFILING_ENABLE) != 0;
    return REDSCAN_OK;
}

void rs_ocl_close(rs_ocl *o)
{
    if (o->queue) {
        clFinish(o->queue);
        clReleaseCommandQueue(o->queue);
        o->queue = NULL;
    }
    if (o->context) {
        clReleaseContext(o->context);
        o->context = NULL;
    }
}

redscan_status rs_ocl_probe(const char **reason)
{
    size_t count = 0;
    const char *why = NULL;
    rs_ocl_candidate *list = rs_ocl_candidates(&count, &why);
    const int found = list != NULL;
    free(list);
    if (!found) {
        if (reason) *reason = why;
        return REDSCAN_ERR_BACKEND_UNAVAILABLE;
    }
    if (reason) *reason = NULL;
    return REDSCAN_OK;
}
