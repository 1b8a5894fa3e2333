/* Whether the MPI library takes CUDA device pointers: asked at run time (the same binary may meet an MPI built
 * with or without CUDA support), where the MPI says how to ask (Open MPI's <mpi-ext.h>). */
#include "mpi_internal.h"

#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> /* Open MPI: MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support */
#endif
#endif

int redscan_mpi_cuda_aware(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}
