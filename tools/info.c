/* redscan info: backends compiled in and usable, version, OpenCL platforms/devices, the selection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "redscan.h"

#ifdef REDSCAN_HAVE_OPENCL
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#endif

static const char *env_or_unset(const char *name)
{
    const char *v = getenv(name);
    return (v && *v) ? v : "(unset)";
}

static const char *backend_label(redscan_backend b)
{
    return b == REDSCAN_BACKEND_CUDA ? "cuda" : b == REDSCAN_BACKEND_OPENCL ? "opencl" : "auto";
}

static void print_backends(void)
{
    static const redscan_backend list[] = {REDSCAN_BACKEND_OPENCL, REDSCAN_BACKEND_CUDA};
    printf("backends:\n");
    for (size_t i = 0; i < sizeof list / sizeof list[0]; ++i) {
        const char *reason = NULL;
        int compiled = redscan_backend_compiled(list[i]);
        redscan_status st = redscan_backend_probe(list[i], &reason);
        printf("  %-7s %-16s ", backend_label(list[i]), compiled ? "compiled in," : "not compiled in,");
        if (st == REDSCAN_OK)
            printf("usable here\n");
        else
            printf("not usable here: %s (%s)\n", reason && *reason ? reason : "no reason given",
                   redscan_status_string(st));
    }
}

/* Create a context for backend b and print what it picked; copy the device name out (may be NULL). */
static int print_selection(const char *label, redscan_backend b, char *device, size_t device_size)
{
    redscan_ctx *ctx = NULL;
    redscan_status st = redscan_create(&ctx, b);
    if (device && device_size)
        device[0] = '\0';
    if (st != REDSCAN_OK) {
        const char *err = redscan_last_error(NULL);
        printf("  %-26s error: %s%s%s\n", label, redscan_status_string(st), err && *err ? ": " : "",
               err ? err : "");
        return 1;
    }
    const char *name = redscan_device_name(ctx);
    printf("  %-26s %s: %s\n", label, redscan_backend_name(ctx), name ? name : "?");
    if (device && device_size && name) {
        strncpy(device, name, device_size - 1);
        device[device_size - 1] = '\0';
    }
    redscan_destroy(ctx);
    return 0;
}

#ifdef REDSCAN_HAVE_OPENCL
static void str_info_platform(cl_platform_id p, cl_platform_info what, char *buf, size_t size)
{
    buf[0] = '\0';
    if (clGetPlatformInfo(p, what, size, buf, NULL) != CL_SUCCESS)
        snprintf(buf, size, "?");
    buf[size - 1] = '\0';
}

static void str_info_device(cl_device_id d, cl_device_info what, char *buf, size_t size)
{
    buf[0] = '\0';
    if (clGetDeviceInfo(d, what, size, buf, NULL) != CL_SUCCESS)
        snprintf(buf, size, "?");
    buf[size - 1] = '\0';
}

static const char *device_type_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU)
        return "GPU";
    if (t & CL_DEVICE_TYPE_CPU)
        return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR)
        return "accelerator";
    return "other";
}

static void human_bytes(unsigned long long b, char *buf, size_t size)
{
    if (b >= (1ull << 30))
        snprintf(buf, size, "%.1f GiB", (double)b / (double)(1ull << 30));
    else if (b >= (1ull << 20))
        snprintf(buf, size, "%.1f MiB", (double)b / (double)(1ull << 20));
    else
        snprintf(buf, size, "%llu KiB", b >> 10);
}

/* Case-insensitive substring test. */
static int contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return 0;
    for (; *hay; ++hay) {
        size_t i = 0;
        while (i < n && hay[i]) {
            char a = hay[i], b = needle[i];
            if (a >= 'A' && a <= 'Z')
                a = (char)(a - 'A' + 'a');
            if (b >= 'A' && b <= 'Z')
                b = (char)(b - 'A' + 'a');
            if (a != b)
                break;
            ++i;
        }
        if (i == n)
            return 1;
    }
    return 0;
}

int cli_device_is_cpu(const char *backend, const char *device_name)
{
    if (!backend || strcmp(backend, "opencl") || !device_name)
        return backend && !strcmp(backend, "cuda") ? 0 : -1;
    cl_uint np = 0;
    if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0)
        return -1;
    cl_platform_id *plats = calloc(np, sizeof *plats);
    if (!plats || clGetPlatformIDs(np, plats, NULL) != CL_SUCCESS) {
        free(plats);
        return -1;
    }
    int result = -1;
    for (cl_uint p = 0; p < np && result < 0; ++p) {
        char pname[256];
        str_info_platform(plats[p], CL_PLATFORM_NAME, pname, sizeof pname);
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || nd == 0)
            continue;
        cl_device_id *devs = calloc(nd, sizeof *devs);
        if (devs && clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, devs, NULL) == CL_SUCCESS) {
            for (cl_uint d = 0; d < nd && result < 0; ++d) {
                char dname[256];
                cl_device_type type = 0;
                str_info_device(devs[d], CL_DEVICE_NAME, dname, sizeof dname);
                if (contains_ci(device_name, dname) && contains_ci(device_name, pname) &&
                    clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS)
                    result = (type & CL_DEVICE_TYPE_CPU) ? 1 : 0;
            }
        }
        free(devs);
    }
    free(plats);
    return result;
}

/* A platform's name without leading or trailing white space, as the library compares it. */
static const char *trimmed_platform_name(cl_platform_id p, char *buf, size_t size)
{
    str_info_platform(p, CL_PLATFORM_NAME, buf, size);
    size_t len = strlen(buf);
    while (len > 0 && (buf[len - 1] == ' ' || buf[len - 1] == '\t' || buf[len - 1] == '\n'))
        buf[--len] = '\0';
    const char *s = buf;
    while (*s == ' ' || *s == '\t' || *s == '\n')
        ++s;
    return s;
}

/* The library's platform order (backend_opencl/ocl_device.c): by name in byte order, platforms of the same name in
 * the ICD loader's order; the indices printed are then the REDSCAN_OPENCL_DEVICE indices. */
static void sort_platforms_by_name(cl_platform_id *plats, cl_uint np)
{
    for (cl_uint p = 1; p < np; ++p) {
        cl_platform_id id = plats[p];
        char name_buf[128], other_buf[128];
        const char *name = trimmed_platform_name(id, name_buf, sizeof name_buf);
        cl_uint q = p;
        for (; q > 0; --q) {
            if (strcmp(trimmed_platform_name(plats[q - 1], other_buf, sizeof other_buf), name) <= 0)
                break;
            plats[q] = plats[q - 1];
        }
        plats[q] = id;
    }
}

static void print_opencl_devices(const char *picked)
{
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &np);
    printf("\nOpenCL platforms and devices (index = REDSCAN_OPENCL_DEVICE index, * = picked by the opencl "
           "backend):\n");
    if (err != CL_SUCCESS || np == 0) {
        printf("  none (clGetPlatformIDs: %d%s)\n", (int)err,
               err == -1001 ? ", CL_PLATFORM_NOT_FOUND_KHR: no ICD installed, e.g. apt-get install pocl-opencl-icd"
                            : "");
        return;
    }
    cl_platform_id *plats = calloc(np, sizeof *plats);
    if (!plats)
        return;
    clGetPlatformIDs(np, plats, NULL);
    sort_platforms_by_name(plats, np);
    /* The device the backend picked is identified by name: prefer a "platform device" match, then a device
     * name match; mark the first such device only. */
    int marked = 0;
    unsigned flat = 0;
    /* First find the flat index to mark. */
    long mark_index = -1, mark_index_dev_only = -1;
    {
        unsigned k = 0;
        for (cl_uint p = 0; p < np; ++p) {
            char pname[256];
            str_info_platform(plats[p], CL_PLATFORM_NAME, pname, sizeof pname);
            cl_uint nd = 0;
            if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS)
                nd = 0;
            cl_device_id *devs = nd ? calloc(nd, sizeof *devs) : NULL;
            if (devs && clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, devs, NULL) != CL_SUCCESS)
                nd = 0;
            for (cl_uint d = 0; d < nd; ++d, ++k) {
                char dname[256];
                str_info_device(devs[d], CL_DEVICE_NAME, dname, sizeof dname);
                if (picked && *picked) {
                    if (mark_index < 0 && contains_ci(picked, dname) && contains_ci(picked, pname))
                        mark_index = (long)k;
                    if (mark_index_dev_only < 0 && contains_ci(picked, dname))
                        mark_index_dev_only = (long)k;
                }
            }
            free(devs);
        }
        if (mark_index < 0)
            mark_index = mark_index_dev_only;
    }

    for (cl_uint p = 0; p < np; ++p) {
        char pname[256], pvendor[256], pversion[256];
        str_info_platform(plats[p], CL_PLATFORM_NAME, pname, sizeof pname);
        str_info_platform(plats[p], CL_PLATFORM_VENDOR, pvendor, sizeof pvendor);
        str_info_platform(plats[p], CL_PLATFORM_VERSION, pversion, sizeof pversion);
        printf("  platform %u: %s (%s; %s)\n", (unsigned)p, pname, pvendor, pversion);
        cl_uint nd = 0;
        err = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
        if (err != CL_SUCCESS || nd == 0) {
            printf("    no devices (clGetDeviceIDs: %d)\n", (int)err);
            continue;
        }
        cl_device_id *devs = calloc(nd, sizeof *devs);
        if (!devs)
            break;
        clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, devs, NULL);
        for (cl_uint d = 0; d < nd; ++d, ++flat) {
            char dname[256], dversion[256], driver[256], ext[8192], lmem[32], gmem[32], amem[32];
            cl_uint cus = 0;
            size_t wg = 0;
            cl_ulong local = 0, global = 0, maxalloc = 0;
            cl_device_type type = 0;
            cl_device_fp_config fp64 = 0;
            str_info_device(devs[d], CL_DEVICE_NAME, dname, sizeof dname);
            str_info_device(devs[d], CL_DEVICE_VERSION, dversion, sizeof dversion);
            str_info_device(devs[d], CL_DRIVER_VERSION, driver, sizeof driver);
            str_info_device(devs[d], CL_DEVICE_EXTENSIONS, ext, sizeof ext);
            clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
            clGetDeviceInfo(devs[d], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
            clGetDeviceInfo(devs[d], CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
            clGetDeviceInfo(devs[d], CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
            clGetDeviceInfo(devs[d], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
            clGetDeviceInfo(devs[d], CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof maxalloc, &maxalloc, NULL);
            if (clGetDeviceInfo(devs[d], CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL) != CL_SUCCESS)
                fp64 = 0;
            int has_fp64 = fp64 != 0 || strstr(ext, "cl_khr_fp64") != NULL;
            human_bytes(local, lmem, sizeof lmem);
            human_bytes(global, gmem, sizeof gmem);
            human_bytes(maxalloc, amem, sizeof amem);
            int is_picked = !marked && mark_index == (long)flat;
            if (is_picked)
                marked = 1;
            printf("  %c [%u] device %u.%u: %s (%s)\n", is_picked ? '*' : ' ', flat, (unsigned)p, (unsigned)d,
                   dname, device_type_name(type));
            printf("        compute units %u, local memory %s, max work-group size %zu, fp64 %s\n", (unsigned)cus,
                   lmem, wg, has_fp64 ? "yes" : "no");
            printf("        global memory %s (max allocation %s); %s; driver %s\n", gmem, amem, dversion, driver);
            if (wg < 256)
                printf("        note: max work-group size below 256: redscan reports this device as unsupported\n");
        }
        free(devs);
    }
    free(plats);
    if (picked && *picked && !marked)
        printf("  (the opencl backend picked \"%s\", not matched to a listed device)\n", picked);
}
#endif

int cli_info(int argc, char **argv)
{
    if (argc > 1) {
        if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
            cli_usage(stdout);
            return 0;
        }
        fprintf(stderr, "redscan info: unexpected argument '%s'\n\n", argv[1]);
        cli_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    printf("redscan %s\n\n", REDSCAN_VERSION_STRING);
    print_backends();

    printf("\nenvironment:\n");
    static const char *vars[] = {"REDSCAN_BACKEND",    "REDSCAN_OPENCL_DEVICE", "REDSCAN_CUDA_DEVICE",
                                 "REDSCAN_REDUCE_ALGO", "REDSCAN_SCAN_BLOCK",    "REDSCAN_SCAN_GRID",
                                 "REDSCAN_CACHE",       "REDSCAN_CACHE_DIR"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i)
        printf("  %-22s %s\n", vars[i], env_or_unset(vars[i]));

    printf("\nselection:\n");
    char label[96];
    const char *eb = getenv("REDSCAN_BACKEND");
    snprintf(label, sizeof label, "REDSCAN_BACKEND=%s ->", eb && *eb ? eb : "(unset: auto)");
    int rc = print_selection(label, REDSCAN_BACKEND_AUTO, NULL, 0);
    char picked[512] = "";
    if (redscan_backend_compiled(REDSCAN_BACKEND_OPENCL))
        print_selection("opencl backend ->", REDSCAN_BACKEND_OPENCL, picked, sizeof picked);
    if (redscan_backend_compiled(REDSCAN_BACKEND_CUDA))
        print_selection("cuda backend ->", REDSCAN_BACKEND_CUDA, NULL, 0);

    cli_print_program_cache(); /* tools/cache_info.c */

#ifdef REDSCAN_HAVE_OPENCL
    print_opencl_devices(picked);
#else
    printf("\nOpenCL: this tool was built without OpenCL; no device listing.\n");
#endif
    return rc;
}

#ifndef REDSCAN_HAVE_OPENCL
int cli_device_is_cpu(const char *backend, const char *device_name)
{
    (void)device_name;
    return backend && !strcmp(backend, "cuda") ? 0 : -1;
}
#endif
