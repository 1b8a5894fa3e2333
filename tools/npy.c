/* redscan command-line tool: NumPy .npy and raw binary files (tools/npy.h). The .npy format: a 6-byte magic
 * "\x93NUMPY", a major and a minor version byte, the header length (2 bytes little-endian in version 1, 4 bytes in
 * versions 2 and 3), then the header, a Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...), }
 * padded with spaces and a newline so that the data start at a multiple of 64 (numpy writes 64; older files 16). */
#define _POSIX_C_SOURCE 200809L
#include "npy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char npy_magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

static const struct {
    const char *name;
    redscan_dtype dtype;
    const char *descr; /* numpy's little-endian descriptor */
} npy_types[] = {
    {"int32", REDSCAN_INT32, "<i4"},     {"uint32", REDSCAN_UINT32, "<u4"},   {"int64", REDSCAN_INT64, "<i8"},
    {"uint64", REDSCAN_UINT64, "<u8"},   {"float32", REDSCAN_FLOAT32, "<f4"}, {"float64", REDSCAN_FLOAT64, "<f8"},
    {"int8", REDSCAN_INT8, "|i1"},       {"uint8", REDSCAN_UINT8, "|u1"},     {"int16", REDSCAN_INT16, "<i2"},
    {"uint16", REDSCAN_UINT16, "<u2"},   {"float16", REDSCAN_FLOAT16, "<f2"},
    /* numpy has no bfloat16: raw data with --dtype bfloat16 in, and out as '<u2' (the bits; ml_dtypes' bfloat16
     * views them). Listed after uint16, so a '<u2' file reads as uint16. */
    {"bfloat16", REDSCAN_BFLOAT16, "<u2"},
};
#define NPY_NTYPES (sizeof npy_types / sizeof npy_types[0])

redscan_dtype npy_dtype_from_name(const char *name)
{
    for (size_t i = 0; i < NPY_NTYPES; i++)
        if (!strcmp(name, npy_types[i].name)) return npy_types[i].dtype;
    return (redscan_dtype)0;
}

static const char *npy_descr_of(redscan_dtype dt)
{
    for (size_t i = 0; i < NPY_NTYPES; i++)
        if (npy_types[i].dtype == dt) return npy_types[i].descr;
    return NULL;
}

/* The value of key in the header dict: a pointer just past "'key':" and its blanks, or NULL. */
static const char *npy_value(const char *h, size_t len, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, "'%s'", key);
    const size_t pl = strlen(pat);
    for (size_t i = 0; i + pl <= len; i++)
        if (!memcmp(h + i, pat, pl)) {
            size_t j = i + pl;
            while (j < len && h[j] == ' ') j++;
            if (j >= len || h[j] != ':') return NULL;
            j++;
            while (j < len && h[j] == ' ') j++;
            return j < len ? h + j : NULL;
        }
    return NULL;
}

/* Parse the header text; on success the dtype and element count. */
static int npy_parse_header(const char *h, size_t len, redscan_dtype *dt, size_t *n, char *err, size_t err_len)
{
    const char *end = h + len;
    const char *d = npy_value(h, len, "descr");
    if (!d) return snprintf(err, err_len, "no 'descr' in the .npy header"), -1;
    if (*d == '[') return snprintf(err, err_len, "a structured dtype (record fields): redscan reads plain numbers"), -1;
    if (*d != '\'' && *d != '"') return snprintf(err, err_len, "the .npy header's 'descr' does not parse"), -1;
    const char q = *d++;
    const char *de = memchr(d, q, (size_t)(end - d));
    if (!de || de - d >= 16) return snprintf(err, err_len, "the .npy header's 'descr' does not parse"), -1;
    char descr[16];
    memcpy(descr, d, (size_t)(de - d));
    descr[de - d] = '\0';
    *dt = (redscan_dtype)0;
    for (size_t i = 0; i < NPY_NTYPES; i++)
        if (!*dt && !strcmp(descr, npy_types[i].descr)) *dt = npy_types[i].dtype; /* the first: '<u2' is uint16 */
    if (!*dt) {
        if (descr[0] == '>' && descr[1] && strchr("iuf", descr[1]))
            return snprintf(err, err_len, "big-endian data ('%s'): redscan reads little-endian .npy files; "
                                          "numpy: a.astype(a.dtype.newbyteorder('<'))", descr), -1;
        if (!strcmp(descr, "|O") || !strcmp(descr, "O"))
            return snprintf(err, err_len, "an object array ('%s'): redscan reads numbers", descr), -1;
        return snprintf(err, err_len, "dtype '%s' is not one redscan has (int8, uint8, int16, uint16, int32, uint32, "
                                      "int64, uint64, float16, float32, float64; bfloat16 as raw data)", descr), -1;
    }
    const char *f = npy_value(h, len, "fortran_order");
    if (!f) return snprintf(err, err_len, "no 'fortran_order' in the .npy header"), -1;
    if (end - f >= 4 && !memcmp(f, "True", 4))
        return snprintf(err, err_len, "a Fortran-order array: redscan reads C order; numpy: np.ascontiguousarray(a)"),
               -1;
    if (end - f < 5 || memcmp(f, "False", 5)) return snprintf(err, err_len, "'fortran_order' does not parse"), -1;
    const char *s = npy_value(h, len, "shape");
    if (!s || *s != '(') return snprintf(err, err_len, "no 'shape' tuple in the .npy header"), -1;
    s++;
    uint64_t count = 1;
    for (;;) {
        while (s < end && (*s == ' ' || *s == ',')) s++;
        if (s < end && *s == ')') break;
        if (s >= end || *s < '0' || *s > '9') return snprintf(err, err_len, "the .npy 'shape' does not parse"), -1;
        uint64_t dim = 0;
        while (s < end && *s >= '0' && *s <= '9') {
            if (dim > (UINT64_MAX - 9) / 10) return snprintf(err, err_len, "a dimension of 'shape' is too large"), -1;
            dim = dim * 10 + (uint64_t)(*s++ - '0');
        }
        if (s < end && *s == 'L') s++; /* Python 2 longs */
        if (dim && count > UINT64_MAX / dim) return snprintf(err, err_len, "the .npy 'shape' is too large"), -1;
        count *= dim;
    }
    if (count > SIZE_MAX) return snprintf(err, err_len, "the .npy 'shape' is too large"), -1;
    *n = (size_t)count;
    return 0;
}

int npy_open(const char *path, redscan_dtype dtype, npy_array *a, char *err, size_t err_len)
{
    memset(a, 0, sizeof *a);
    const int fd = open(path, O_RDONLY);
    if (fd < 0) return snprintf(err, err_len, "%s: %s", path, strerror(errno)), -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, err_len, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    const size_t bytes = (size_t)st.st_size;
    void *map = NULL;
    if (bytes > 0) {
        map = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            snprintf(err, err_len, "%s: cannot map it: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
    }
    close(fd);
    a->map = map;
    a->map_bytes = bytes;
    const unsigned char *p = map;
    const int is_npy = bytes >= 6 && !memcmp(p, npy_magic, 6);
    size_t offset = 0, n = 0;
    redscan_dtype file_dt = dtype;
    if (is_npy) {
        if (bytes < 10) goto truncated;
        const unsigned major = p[6];
        size_t hlen, hstart;
        if (major == 1) {
            hlen = (size_t)p[8] | (size_t)p[9] << 8;
            hstart = 10;
        } else if (major == 2 || major == 3) {
            if (bytes < 12) goto truncated;
            hlen = (size_t)p[8] | (size_t)p[9] << 8 | (size_t)p[10] << 16 | (size_t)p[11] << 24;
            hstart = 12;
        } else {
            snprintf(err, err_len, "%s: .npy format version %u.%u is not one redscan reads (1, 2, 3)", path, major,
                     (unsigned)p[7]);
            goto fail;
        }
        if (hlen > bytes - hstart) goto truncated;
        char why[256];
        if (npy_parse_header((const char *)p + hstart, hlen, &file_dt, &n, why, sizeof why) != 0) {
            snprintf(err, err_len, "%s: %s", path, why);
            goto fail;
        }
        if (dtype && dtype != file_dt) {
            snprintf(err, err_len, "%s: --dtype %s, but the file holds %s", path, redscan_dtype_name(dtype),
                     redscan_dtype_name(file_dt));
            goto fail;
        }
        offset = hstart + hlen;
        const size_t size = redscan_dtype_size(file_dt);
        if (n > (bytes - offset) / size) {
            snprintf(err, err_len, "%s: truncated: the header says %zu elements of %s (%zu bytes), the file has %zu "
                                   "bytes of data", path, n, redscan_dtype_name(file_dt), n * size, bytes - offset);
            goto fail;
        }
    } else {
        if (!dtype) {
            snprintf(err, err_len, "%s: not a .npy file (no \\x93NUMPY magic); for raw binary data give --dtype", path);
            goto fail;
        }
        const size_t size = redscan_dtype_size(dtype);
        if (bytes % size) {
            snprintf(err, err_len, "%s: %zu bytes is not a whole number of %s elements (%zu bytes each)", path, bytes,
                     redscan_dtype_name(dtype), size);
            goto fail;
        }
        n = bytes / size;
    }
    static const double no_elements; /* an empty raw file maps nothing: still a valid pointer for n = 0 */
    a->data = p ? (const void *)(p + offset) : (const void *)&no_elements;
    a->n = n;
    a->dtype = file_dt;
    return 0;
truncated:
    snprintf(err, err_len, "%s: truncated .npy header (%zu bytes)", path, bytes);
fail:
    npy_close(a);
    return -1;
}

void npy_close(npy_array *a)
{
    if (a->map) munmap(a->map, a->map_bytes);
    memset(a, 0, sizeof *a);
}

int npy_create(const char *path, redscan_dtype dtype, size_t n, npy_out *o, void **data, char *err, size_t err_len)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    const char *descr = npy_descr_of(dtype);
    if (!descr) return snprintf(err, err_len, "no .npy descriptor for dtype %d", (int)dtype), -1;
    char header[128];
    int hl = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (%zu,), }", descr, n);
    /* pad with spaces and end with a newline so that the data start at a multiple of 64 (10-byte preamble) */
    size_t total = 10 + (size_t)hl + 1;
    size_t pad = (64 - total % 64) % 64;
    if ((size_t)hl + pad + 1 >= sizeof header) return snprintf(err, err_len, "internal: .npy header too long"), -1;
    memset(header + hl, ' ', pad);
    header[hl + pad] = '\n';
    const size_t hlen = (size_t)hl + pad + 1, offset = 10 + hlen;
    const size_t size = redscan_dtype_size(dtype);
    if (n > (SIZE_MAX - offset) / size) return snprintf(err, err_len, "%s: too large", path), -1;
    const size_t bytes = offset + n * size;
    o->fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (o->fd < 0) return snprintf(err, err_len, "%s: %s", path, strerror(errno)), -1;
    if (ftruncate(o->fd, (off_t)bytes) != 0) {
        snprintf(err, err_len, "%s: %s", path, strerror(errno));
        close(o->fd);
        return -1;
    }
    o->map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, o->fd, 0);
    if (o->map == MAP_FAILED) {
        snprintf(err, err_len, "%s: cannot map it: %s", path, strerror(errno));
        close(o->fd);
        o->map = NULL;
        return -1;
    }
    o->map_bytes = bytes;
    unsigned char *p = o->map;
    memcpy(p, npy_magic, 6);
    p[6] = 1;
    p[7] = 0;
    p[8] = (unsigned char)(hlen & 0xff);
    p[9] = (unsigned char)(hlen >> 8);
    memcpy(p + 10, header, hlen);
    *data = p + offset;
    return 0;
}

int npy_finish(npy_out *o, char *err, size_t err_len)
{
    int rc = 0;
    if (o->map && msync(o->map, o->map_bytes, MS_SYNC) != 0) {
        snprintf(err, err_len, "writing the output: %s", strerror(errno));
        rc = -1;
    }
    if (o->map) munmap(o->map, o->map_bytes);
    if (o->fd >= 0 && close(o->fd) != 0 && rc == 0) {
        snprintf(err, err_len, "closing the output: %s", strerror(errno));
        rc = -1;
    }
    memset(o, 0, sizeof *o);
    o->fd = -1;
    return rc;
}
