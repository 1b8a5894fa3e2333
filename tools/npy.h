/* redscan command-line tool: NumPy .npy files and raw binary files as arrays (tools/npy.c). Not part of the library.
 *
 * A file is mapped read-only (never read into a second copy); the array is its data, flattened in C order. .npy:
 * format versions 1.0, 2.0 and 3.0, little-endian ('<') or byte-free ('|') descriptors of the dtypes redscan has
 * (int32, uint32, int64, uint64, float32, float64), C order, any shape. Everything else is refused with a message
 * saying what and why: Fortran order, big-endian, object, structured, unknown or (not yet supported) narrow dtypes,
 * a header that does not parse, a file shorter than its shape says. */
#ifndef REDSCAN_NPY_H
#define REDSCAN_NPY_H

#include <stddef.h>

#include "redscan.h"

typedef struct {
    void *map;          /* the whole mapping (munmap at close); NULL for an empty raw file */
    size_t map_bytes;
    const void *data;   /* the first element */
    size_t n;           /* elements */
    redscan_dtype dtype;
} npy_array;

/* Open path as a .npy file (dtype 0: the file says) or, with dtype != 0, as raw little-endian elements of that dtype
 * (a .npy file given with --dtype must agree with it). 0 on success; else -1 with a message in err. */
int npy_open(const char *path, redscan_dtype dtype, npy_array *a, char *err, size_t err_len);
void npy_close(npy_array *a);

/* Create path as a 1-D .npy array of n elements of dtype, mapped for writing: *data receives the element area
 * (a caller writes the elements there, then calls npy_finish). 0 on success; else -1 with a message in err. */
typedef struct {
    void *map;
    size_t map_bytes;
    int fd;
} npy_out;
int npy_create(const char *path, redscan_dtype dtype, size_t n, npy_out *o, void **data, char *err, size_t err_len);
int npy_finish(npy_out *o, char *err, size_t err_len); /* unmaps and closes; -1 with err when the write failed */

/* dtype <-> "int32" ... "float64"; 0 for an unknown name. */
redscan_dtype npy_dtype_from_name(const char *name);

#endif /* REDSCAN_NPY_H */
