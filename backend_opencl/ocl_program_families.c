/* OpenCL backend: which kernels go into which program.
 *
 * A call builds only the program of its own family: the first float32 sum does not compile the scans, top-k or the
 * other reductions (issue 12: a monolithic program cost PoCL 44 s of kernel compilation on two cores before the
 * first result, NVIDIA's compiler 9.4 s). Each family lists the embedded kernels_cl files it is made of, in
 * concatenation order (common.clh first), and the -D options that select its kernels inside shared files (one
 * block scan of scan_grid.cl / scan_single_pass.cl, one shape of reduce_coarsened.cl, the argmin/argmax subset of
 * topk.cl). A program is then built once per (family, input dtype, output dtype, op) per context
 * (ocl_program.c). Measured costs per program and per kernel: docs/PERFORMANCE.md, "Time to the first result". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl_internal.h"

/* Generated at build time by cmake/embed_cl.cmake; ends with {NULL, NULL}. */
typedef struct {
    const char *name;
    const char *text;
} rs_cl_source;
extern const rs_cl_source rs_cl_sources[];

#define RS_FAMILY_MAX_FILES 7

typedef struct {
    const char *name;                            /* for messages and `redscan first-result` */
    const char *files[RS_FAMILY_MAX_FILES + 1];  /* NULL-terminated, in concatenation order */
    const char *options;                         /* appended to the -DRS_DTYPE=... options */
} rs_ocl_family_info;

#define RS_SCAN_FILES(BLOCK_HEADER) "common.clh", "scan_io.clh", BLOCK_HEADER

static const rs_ocl_family_info rs_ocl_families[RS_OCL_PROG_COUNT] = {
    [RS_OCL_PROG_REDUCE_TREE] = {"reduce_tree", {"common.clh", "reduce_common.clh", "reduce_tree.cl"}, ""},
    [RS_OCL_PROG_REDUCE_INTERLEAVED] = {"reduce_interleaved", {"common.clh", "reduce_interleaved.cl"}, ""},
    [RS_OCL_PROG_REDUCE_COARSENED] = {"reduce_coarsened", {"common.clh", "reduce_common.clh", "reduce_coarsened.cl"},
                                      ""},
    [RS_OCL_PROG_REDUCE_COARSENED_CPU] = {"reduce_coarsened_cpu",
                                          {"common.clh", "cpu_shape.clh", "reduce_common.clh", "reduce_coarsened.cl"},
                                          " -DRS_SHAPE_CPU=1"},
    /* The language option (-cl-std) of the sub-group program is added by ocl_program.c: it depends on the device. */
    [RS_OCL_PROG_REDUCE_SUBGROUP] = {"reduce_subgroup",
                                     {"common.clh", "reduce_common.clh", "reduce_shuffle.cl", "reduce_warp_sync.cl"},
                                     " -DRS_SUBGROUPS=1"},
    [RS_OCL_PROG_ARGEXT] = {"argext", {"common.clh", "argext.cl", "topk.cl"}, ""},
    /* one program per first-pass kernel of top-k, each with topk_pairs */
    [RS_OCL_PROG_TOPK_1] = {"topk_1", {"common.clh", "topk.cl"}, " -DRS_TOPK_SMALL=1"},
    [RS_OCL_PROG_TOPK_2] = {"topk_2", {"common.clh", "topk.cl"}, " -DRS_TOPK_SMALL=2"},
    [RS_OCL_PROG_TOPK_8] = {"topk_8", {"common.clh", "topk.cl"}, " -DRS_TOPK_SMALL=8"},
    [RS_OCL_PROG_TOPK_LARGE] = {"topk_large", {"common.clh", "topk.cl"}, " -DRS_TOPK_SMALL=0"},
    [RS_OCL_PROG_SCAN_KS] = {"scan_ks", {RS_SCAN_FILES("scan_kogge_stone.clh"), "scan_grid.cl"}, " -DRS_SCAN_BLOCK_KS=1"},
    [RS_OCL_PROG_SCAN_KSDB] = {"scan_ksdb", {RS_SCAN_FILES("scan_kogge_stone_db.clh"), "scan_grid.cl"},
                               " -DRS_SCAN_BLOCK_KSDB=1"},
    [RS_OCL_PROG_SCAN_BK] = {"scan_bk", {RS_SCAN_FILES("scan_brent_kung.clh"), "scan_grid.cl"}, " -DRS_SCAN_BLOCK_BK=1"},
    [RS_OCL_PROG_SCAN_COARSE] = {"scan_coarse", {RS_SCAN_FILES("scan_coarsened.clh"), "scan_grid.cl"},
                                 " -DRS_SCAN_BLOCK_COARSE=1"},
    /* The CPU shape of coarsened x reduce_then_scan: its two kernels, and the GPU-shaped totals scan of scan_grid.cl
     * (about 1/2048 of the data) that runs between them. */
    [RS_OCL_PROG_SCAN_COARSE_CPU] = {"scan_coarse_cpu",
                                     {RS_SCAN_FILES("scan_coarsened.clh"), "cpu_shape.clh", "scan_grid.cl",
                                      "scan_coarsened_cpu.cl"},
                                     " -DRS_SCAN_BLOCK_COARSE=1 -DRS_SHAPE_CPU=1"},
    [RS_OCL_PROG_SINGLE_PASS_KS] = {"single_pass_ks", {RS_SCAN_FILES("scan_kogge_stone.clh"), "lookback.clh", "scan_single_pass.cl"},
                                    " -DRS_SCAN_BLOCK_KS=1"},
    [RS_OCL_PROG_SINGLE_PASS_KSDB] = {"single_pass_ksdb",
                                      {RS_SCAN_FILES("scan_kogge_stone_db.clh"), "lookback.clh", "scan_single_pass.cl"},
                                      " -DRS_SCAN_BLOCK_KSDB=1"},
    [RS_OCL_PROG_SINGLE_PASS_BK] = {"single_pass_bk", {RS_SCAN_FILES("scan_brent_kung.clh"), "lookback.clh", "scan_single_pass.cl"},
                                    " -DRS_SCAN_BLOCK_BK=1"},
    [RS_OCL_PROG_SINGLE_PASS_COARSE] = {"single_pass_coarse",
                                        {RS_SCAN_FILES("scan_coarsened.clh"), "lookback.clh", "scan_single_pass.cl"},
                                        " -DRS_SCAN_BLOCK_COARSE=1"},
    /* segmented reductions of one (dtype, out dtype, op); argmin / argmax are built with RS_OP = MIN / MAX */
    [RS_OCL_PROG_SEGMENTED] = {"segmented", {"common.clh", "segmented.cl"}, ""},
    [RS_OCL_PROG_SEGMENTED_ARGEXT] = {"segmented_argext", {"common.clh", "segmented.cl"}, " -DRS_SEG_ARGEXT=1"},
    /* segmented scans (and scan by key) of one (dtype, out dtype, op): seg_check from segmented.cl, the coarsened
     * block scan, the section loads / stores of the scans and the single-pass look-back (lookback.clh) */
    [RS_OCL_PROG_SEGMENTED_SCAN] = {"segmented_scan",
                                    {RS_SCAN_FILES("scan_coarsened.clh"), "lookback.clh", "segmented.cl", "keys.clh",
                                     "segmented_scan.cl"},
                                    " -DRS_SEG_SCAN=1 -DRS_SCAN_BLOCK_COARSE=1"},
    /* scan by key in one pass of one exact (dtype, op): the look-back's slots and the keys' heads, nothing of the
     * segmented scan (a scan by key of an exact operator builds this program alone) */
    [RS_OCL_PROG_SCAN_BY_KEY] = {"scan_by_key",
                                 {RS_SCAN_FILES("scan_coarsened.clh"), "lookback.clh", "keys.clh", "scan_by_key.cl"},
                                 " -DRS_SCAN_BLOCK_COARSE=1"},
};

const char *rs_ocl_family_name(rs_ocl_family family)
{
    return (unsigned)family < RS_OCL_PROG_COUNT ? rs_ocl_families[family].name : "?";
}

const char *rs_ocl_family_options(rs_ocl_family family)
{
    return (unsigned)family < RS_OCL_PROG_COUNT ? rs_ocl_families[family].options : "";
}

static const rs_cl_source *rs_ocl_source_find(const char *name)
{
    for (const rs_cl_source *s = rs_cl_sources; s->name; s++)
        if (strcmp(s->name, name) == 0) return s;
    return NULL;
}

char *rs_ocl_family_source(rs_ocl_family family)
{
    if ((unsigned)family >= RS_OCL_PROG_COUNT) return NULL;
    const char *const *files = rs_ocl_families[family].files;
    size_t total = 1;
    for (const char *const *f = files; *f; f++) {
        const rs_cl_source *s = rs_ocl_source_find(*f);
        if (!s) return NULL; /* a table entry naming a file that is not embedded: caught by every test */
        total += strlen(s->name) + strlen(s->text) + 32;
    }
    char *text = malloc(total);
    if (!text) return NULL;
    size_t at = 0;
    text[0] = '\0';
    /* #line before each file, so that a build log names the file and line */
    for (const char *const *f = files; *f; f++) {
        const rs_cl_source *s = rs_ocl_source_find(*f);
        at += (size_t)snprintf(text + at, total - at, "\n#line 1 \"%s\"\n%s\n", s->name, s->text);
    }
    return text;
}
