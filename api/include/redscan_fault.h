/* redscan fault injection: a TEST-ONLY interface, present in libraries built with -DREDSCAN_FAULT_INJECTION=ON
 * (never in a normal build: these symbols do not exist there, so a program using them does not link against a
 * production library). See docs/RELIABILITY.md.
 *
 * Every device allocation, host<->device transfer, program build and kernel launch the library makes is a
 * "point" of one kind. redscan_fault_arm(kind, n) makes the n-th point of that kind from now on fail, once, the way
 * the real API call fails (the call is not made; the backend gets a realistic error code and takes its normal
 * error path):
 *   ALLOC     clCreateBuffer: CL_MEM_OBJECT_ALLOCATION_FAILURE   cudaMalloc: cudaErrorMemoryAllocation
 *   TRANSFER  clEnqueue{Read,Write,Copy,Fill}Buffer: CL_OUT_OF_RESOURCES
 *             cudaMemcpyAsync / cudaMemsetAsync: cudaErrorInvalidValue
 *   BUILD     clBuildProgram: CL_BUILD_PROGRAM_FAILURE            (CUDA builds nothing at run time: no points)
 *   LAUNCH    clEnqueueNDRangeKernel: CL_OUT_OF_RESOURCES
 *             CUDA kernel launchers: cudaErrorLaunchOutOfResources (reported where the launch result is checked)
 * Live counters follow the objects the library holds (created or retained: +1, released: -1), so a test can see
 * that a context, once destroyed, left nothing behind.
 *
 * The state is process-wide (atomic counters): meant for single-threaded tests. */
#ifndef REDSCAN_FAULT_H
#define REDSCAN_FAULT_H

#include "redscan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    REDSCAN_FAULT_ALLOC = 0,
    REDSCAN_FAULT_TRANSFER,
    REDSCAN_FAULT_BUILD,
    REDSCAN_FAULT_LAUNCH,
    REDSCAN_FAULT_KINDS
} redscan_fault_kind;

typedef enum {
    REDSCAN_LIVE_MEMORY = 0, /* cl_mem references / cudaMalloc allocations */
    REDSCAN_LIVE_PROGRAM,    /* cl_program references */
    REDSCAN_LIVE_KERNEL,     /* cl_kernel references */
    REDSCAN_LIVE_EVENT,      /* cl_event references / CUDA events */
    REDSCAN_LIVE_KINDS
} redscan_live_kind;

/* Restart counting points of `kind` at 0 and make the n-th point from now fail (n = 0: none fails). */
REDSCAN_API void redscan_fault_arm(redscan_fault_kind kind, uint64_t n);
/* Points of `kind` passed since its last redscan_fault_arm (the failed one included). */
REDSCAN_API uint64_t redscan_fault_count(redscan_fault_kind kind);
/* How many injected failures of `kind` have happened since the last redscan_fault_arm (0 or 1). */
REDSCAN_API uint64_t redscan_fault_fired(redscan_fault_kind kind);
/* Objects of `kind` the library holds now, over every context of the process. */
REDSCAN_API long redscan_fault_live(redscan_live_kind kind);
/* Name of a kind ("alloc", "transfer", "build", "launch"; "memory", "program", "kernel", "event"). */
REDSCAN_API const char *redscan_fault_kind_name(redscan_fault_kind kind);
REDSCAN_API const char *redscan_live_kind_name(redscan_live_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* REDSCAN_FAULT_H */
