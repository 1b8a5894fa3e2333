/* Fault injection hooks for the backends (see api/include/redscan_fault.h and docs/RELIABILITY.md).
 *
 * Built with -DREDSCAN_FAULT_INJECTION (CMake option REDSCAN_FAULT_INJECTION=ON): RS_FAULT_HIT(kind) counts one
 * point of `kind` and is nonzero when it is the armed one; RS_FAULT_TRACK(kind, delta) follows live objects.
 * Otherwise both are constants that the compiler removes: a normal build pays nothing.
 *
 * The backends do not call these at their call sites: backend_opencl/ocl_fault.h and backend_cuda/cuda_fault.h
 * put wrappers in place of the OpenCL / CUDA functions, so that every call site is covered and an injected
 * failure takes the same error path as a real one. */
#ifndef REDSCAN_FAULT_INTERNAL_H
#define REDSCAN_FAULT_INTERNAL_H

typedef enum { RS_FAULT_ALLOC = 0, RS_FAULT_TRANSFER, RS_FAULT_BUILD, RS_FAULT_LAUNCH, RS_FAULT_KINDS } rs_fault_kind;
typedef enum { RS_LIVE_MEMORY = 0, RS_LIVE_PROGRAM, RS_LIVE_KERNEL, RS_LIVE_EVENT, RS_LIVE_KINDS } rs_live_kind;

#ifdef REDSCAN_FAULT_INJECTION
#ifdef __cplusplus
extern "C" {
#endif
int rs_fault_hit(rs_fault_kind kind);
void rs_fault_track(rs_live_kind kind, int delta);
#ifdef __cplusplus
}
#endif
#define RS_FAULT_HIT(kind) rs_fault_hit(kind)
#define RS_FAULT_TRACK(kind, delta) rs_fault_track((kind), (delta))
#else
#define RS_FAULT_HIT(kind) 0
#define RS_FAULT_TRACK(kind, delta) ((void)0)
#endif

#endif /* REDSCAN_FAULT_INTERNAL_H */
