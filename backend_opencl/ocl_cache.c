/* OpenCL backend: on-disk cache of built program binaries (docs/CACHE.md).
 *
 * A PoCL build from source takes seconds, once per program per process; the cache keeps each built program's
 * binary in a file, so a new process loads it with clCreateProgramWithBinary instead.
 *
 * Key: the library version, platform name and version, device name and version, CL_DRIVER_VERSION (a driver
 * update must never get an old binary), the environment that changes what PoCL generates (POCL_WORK_GROUP_METHOD:
 * a PoCL binary carries the hash of the method it was built under, and PoCL then serves that method's compiled
 * work-group functions), the SHA-256 of the exact source text, and the exact build options. The file name is the
 * SHA-256 of the key text; the file holds the full key, so a different key under the same name is a miss.
 *
 * File: "RSCLPRG\0", format version (u32), key length (u32), binary length (u64), FNV-1a 64 of key and binary
 * (u64), key text, binary; numbers little-endian, the size exact. Anything else (short, long, bad magic, version
 * or checksum, a binary the driver refuses) is rejected: built from source again and the entry rewritten.
 *
 * Safety: an entry is written to a temporary file of a unique name in the same directory and renamed over the
 * final name, so a reader sees a whole old entry or a whole new one, never a mixture, and two processes writing
 * the same entry at once leave one valid file. A directory that cannot be created or written turns the cache off
 * for the context (stats say why); nothing here ever fails a call. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ocl_internal.h"

#define RS_CACHE_MAGIC "RSCLPRG" /* 8 bytes with its NUL */
#define RS_CACHE_FORMAT 1u
#define RS_CACHE_HEADER 32u
#define RS_CACHE_MAX_ENTRY ((uint64_t)1 << 30) /* larger is taken for damage, not read */
#define RS_CACHE_SUFFIX ".clprog"

struct rs_ocl_disk_cache {
    int enabled;
    int dir_ready;       /* the directory exists (made or checked once) */
    char *dir;           /* NULL when none could be determined */
    char *ident;         /* the key's lines that are the same for every program of the context */
    unsigned temp_count; /* makes temporary names unique within the context */
    uint64_t hits, misses, writes, rejected;
    char note[512];
};

static rs_ocl_disk_cache *rs_cache_of(rs_ocl *o) { return rs_ocl_full_of(o)->disk_cache; }

/* ---------------------------------------------------------------- text helpers */

/* s followed by the printf-formatted text (s may be NULL); NULL when out of host memory (s is then freed). */
static char *rs_cache_append(char *s, const char *fmt, const char *a, const char *b)
{
    const size_t have = s ? strlen(s) : 0;
    const int add = snprintf(NULL, 0, fmt, a, b);
    char *grown = add < 0 ? NULL : realloc(s, have + (size_t)add + 1);
    if (!grown) {
        free(s);
        return NULL;
    }
    snprintf(grown + have, (size_t)add + 1, fmt, a, b);
    return grown;
}

/* A platform or device string query, malloc'd; "?" when the query fails. */
static char *rs_cache_info(cl_platform_id platform, cl_device_id device, cl_uint what)
{
    size_t len = 0;
    cl_int err = platform ? clGetPlatformInfo(platform, what, 0, NULL, &len) : clGetDeviceInfo(device, what, 0, NULL, &len);
    char *text = malloc(err == CL_SUCCESS && len ? len + 1 : 2);
    if (!text) return NULL;
    if (err == CL_SUCCESS && len)
        err = platform ? clGetPlatformInfo(platform, what, len, text, NULL) : clGetDeviceInfo(device, what, len, text, NULL);
    if (err != CL_SUCCESS || !len) {
        strcpy(text, "?");
        return text;
    }
    text[len] = '\0';
    return text;
}

/* The key lines common to every program of the context; NULL when out of host memory. */
static char *rs_cache_ident(const rs_ocl *o)
{
    static const struct {
        cl_uint what;
        int of_platform;
        const char *label;
    } items[] = {{CL_PLATFORM_NAME, 1, "platform"},      {CL_PLATFORM_VERSION, 1, "platform version"},
                 {CL_DEVICE_NAME, 0, "device"},          {CL_DEVICE_VERSION, 0, "device version"},
                 {CL_DRIVER_VERSION, 0, "driver version"}};
    char format[16];
    snprintf(format, sizeof format, "%u", RS_CACHE_FORMAT);
    char *s = rs_cache_append(NULL, "redscan OpenCL program cache format %s\nlibrary %s\n", format,
                              REDSCAN_VERSION_STRING);
    for (size_t i = 0; s && i < sizeof items / sizeof items[0]; i++) {
        char *v = rs_cache_info(items[i].of_platform ? o->platform : NULL, o->device, items[i].what);
        if (v) {
            s = rs_cache_append(s, "%s %s\n", items[i].label, v);
            free(v);
        } else {
            free(s);
            s = NULL;
        }
    }
    const char *wg = getenv("POCL_WORK_GROUP_METHOD");
    if (s) s = rs_cache_append(s, "env POCL_WORK_GROUP_METHOD=%s%s\n", wg ? wg : "(unset)", "");
    return s;
}

/* ---------------------------------------------------------------- open, close, stats */

/* The directory: REDSCAN_CACHE_DIR, else $XDG_CACHE_HOME/redscan (an absolute XDG_CACHE_HOME only, as the XDG
 * base directory specification asks), else $HOME/.cache/redscan. Empty variables count as unset. */
static char *rs_cache_dir(void)
{
    const char *v = getenv("REDSCAN_CACHE_DIR");
    if (v && *v) return rs_cache_append(NULL, "%s%s", v, "");
    v = getenv("XDG_CACHE_HOME");
    if (v && v[0] == '/') return rs_cache_append(NULL, "%s%s", v, "/redscan");
    v = getenv("HOME");
    if (v && *v) return rs_cache_append(NULL, "%s%s", v, "/.cache/redscan");
    return NULL;
}

void rs_ocl_cache_open(redscan_ctx *ctx, rs_ocl *o)
{
    rs_ocl_disk_cache *c = calloc(1, sizeof *c);
    rs_ocl_full_of(o)->disk_cache = c;
    if (!c) return; /* stats report "out of host memory" */
    c->dir = rs_cache_dir();
    if (ctx->program_cache_off) {
        snprintf(c->note, sizeof c->note, "REDSCAN_CACHE=0");
        return;
    }
    if (!c->dir) {
        snprintf(c->note, sizeof c->note,
                 "no directory (REDSCAN_CACHE_DIR, XDG_CACHE_HOME and HOME are unset or empty)");
        return;
    }
    c->ident = rs_cache_ident(o);
    if (!c->ident) {
        snprintf(c->note, sizeof c->note, "out of host memory");
        return;
    }
    c->enabled = 1;
}

void rs_ocl_cache_close(rs_ocl *o)
{
    rs_ocl_disk_cache *c = rs_cache_of(o);
    if (!c) return;
    free(c->dir);
    free(c->ident);
    free(c);
    rs_ocl_full_of(o)->disk_cache = NULL;
}

void rs_ocl_cache_stats(redscan_ctx *ctx, redscan_cache_stats *stats)
{
    rs_ocl_disk_cache *c = rs_cache_of(rs_ocl_of(ctx));
    stats->used = 1;
    if (!c) {
        stats->note = "out of host memory";
        return;
    }
    stats->enabled = c->enabled;
    stats->hits = c->hits;
    stats->misses = c->misses;
    stats->writes = c->writes;
    stats->rejected = c->rejected;
    stats->directory = c->dir ? c->dir : "";
    stats->note = c->note;
}

/* Turn the cache off for the context, saying why (errno-style reason). */
static void rs_cache_disable(rs_ocl_disk_cache *c, const char *what, const char *path, int err)
{
    char reason[128];
    if (strerror_r(err, reason, sizeof reason) != 0) snprintf(reason, sizeof reason, "error %d", err);
    snprintf(c->note, sizeof c->note, "%s %.300s: %s", what, path, reason);
    c->enabled = 0;
}

/* ---------------------------------------------------------------- keys */

void rs_ocl_cache_key_init(rs_ocl *o, const char *source, const char *options, rs_ocl_cache_key *key)
{
    const rs_ocl_disk_cache *c = rs_cache_of(o);
    key->use = 0;
    if (!c || !c->enabled || strlen(options) >= sizeof key->options) return;
    rs_sha256_hex(source, strlen(source), key->source_sha256);
    strcpy(key->options, options);
    key->use = 1;
}

/* The full key text and the entry's path, malloc'd; 0 when out of host memory. */
static int rs_cache_key_text(const rs_ocl_disk_cache *c, const rs_ocl_cache_key *key, char **text, char **path)
{
    *path = NULL;
    *text = rs_cache_append(rs_cache_append(NULL, "%s%s", c->ident, ""), "source sha256 %s\noptions %s\n",
                            key->source_sha256, key->options);
    if (!*text) return 0;
    char name[65];
    rs_sha256_hex(*text, strlen(*text), name);
    *path = rs_cache_append(rs_cache_append(NULL, "%s/%s", c->dir, name), "%s%s", RS_CACHE_SUFFIX, "");
    if (*path) return 1;
    free(*text);
    *text = NULL;
    return 0;
}

static void rs_put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void rs_put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t rs_get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static uint64_t rs_get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* ---------------------------------------------------------------- load */

typedef enum { RS_ENTRY_ABSENT, RS_ENTRY_DAMAGED, RS_ENTRY_OTHER_KEY, RS_ENTRY_OK } rs_entry_state;

/* Read the whole file at path into *data (malloc'd); ABSENT when it cannot be opened, DAMAGED when it cannot be
 * read in full or is implausibly large. */
static rs_entry_state rs_cache_read(const char *path, unsigned char **data, size_t *size)
{
    *data = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return RS_ENTRY_ABSENT;
    struct stat st;
    rs_entry_state state = RS_ENTRY_DAMAGED;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= RS_CACHE_HEADER &&
        (uint64_t)st.st_size <= RS_CACHE_MAX_ENTRY && (*data = malloc((size_t)st.st_size)) != NULL) {
        size_t got = 0;
        while (got < (size_t)st.st_size) {
            ssize_t r = read(fd, *data + got, (size_t)st.st_size - got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            got += (size_t)r;
        }
        if (got == (size_t)st.st_size) {
            *size = got;
            state = RS_ENTRY_OK;
        }
    }
    close(fd);
    if (state != RS_ENTRY_OK) {
        free(*data);
        *data = NULL;
    }
    return state;
}

/* Check an entry's frame against key; on OK, *binary and *binary_len point into data. */
static rs_entry_state rs_cache_check(const unsigned char *data, size_t size, const char *key, const unsigned char **binary,
                                     size_t *binary_len)
{
    if (memcmp(data, RS_CACHE_MAGIC, 8) != 0 || rs_get_u32(data + 8) != RS_CACHE_FORMAT) return RS_ENTRY_DAMAGED;
    const uint64_t klen = rs_get_u32(data + 12), blen = rs_get_u64(data + 16);
    if (blen == 0 || blen > RS_CACHE_MAX_ENTRY || RS_CACHE_HEADER + klen + blen != (uint64_t)size)
        return RS_ENTRY_DAMAGED;
    const uint64_t sum = rs_fnv1a64(RS_FNV1A64_INIT, data + RS_CACHE_HEADER, size - RS_CACHE_HEADER);
    if (sum != rs_get_u64(data + 24)) return RS_ENTRY_DAMAGED;
    if (klen != strlen(key) || memcmp(data + RS_CACHE_HEADER, key, klen) != 0) return RS_ENTRY_OTHER_KEY;
    *binary = data + RS_CACHE_HEADER + klen;
    *binary_len = (size_t)blen;
    return RS_ENTRY_OK;
}

/* A program from a checked binary, built; NULL when the driver refuses it. */
static cl_program rs_cache_program(rs_ocl *o, const unsigned char *binary, size_t len, const char *options)
{
    cl_int status = CL_SUCCESS, err = CL_SUCCESS;
    cl_program prog = clCreateProgramWithBinary(o->context, 1, &o->device, &len, &binary, &status, &err);
    if (err != CL_SUCCESS || status != CL_SUCCESS) {
        if (err == CL_SUCCESS && prog) clReleaseProgram(prog);
        return NULL;
    }
    if (clBuildProgram(prog, 1, &o->device, options, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(prog);
        return NULL;
    }
    return prog;
}

int rs_ocl_cache_load(rs_ocl *o, const rs_ocl_cache_key *key, cl_program *program)
{
    rs_ocl_disk_cache *c = rs_cache_of(o);
    if (!key->use || !c || !c->enabled) return 0;
    char *text = NULL, *path = NULL;
    if (!rs_cache_key_text(c, key, &text, &path)) return 0;
    unsigned char *data = NULL;
    size_t size = 0, binary_len = 0;
    const unsigned char *binary = NULL;
    rs_entry_state state = rs_cache_read(path, &data, &size);
    if (state == RS_ENTRY_OK) state = rs_cache_check(data, size, text, &binary, &binary_len);
    cl_program prog = NULL;
    if (state == RS_ENTRY_OK && !(prog = rs_cache_program(o, binary, binary_len, key->options)))
        state = RS_ENTRY_DAMAGED;
    free(data);
    free(text);
    free(path);
    if (state == RS_ENTRY_DAMAGED) c->rejected++;
    if (!prog) {
        c->misses++;
        return 0;
    }
    c->hits++;
    *program = prog;
    return 1;
}

/* ---------------------------------------------------------------- store */

/* mkdir -p with mode 0700 for the directories it makes; 0 on success, else errno. */
static int rs_cache_mkdirs(const char *dir)
{
    char *path = rs_cache_append(NULL, "%s%s", dir, "");
    if (!path) return ENOMEM;
    int err = 0;
    struct stat st;
    for (char *p = path + 1; !err; p++) {
        if (*p != '/' && *p != '\0') continue;
        const char saved = *p;
        *p = '\0';
        /* An existing directory may answer EEXIST or, where its parent is not writable, EACCES / EROFS. */
        if (mkdir(path, 0700) != 0) {
            const int why = errno;
            if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) err = why == EEXIST ? ENOTDIR : why;
        }
        *p = saved;
        if (saved == '\0') break;
    }
    free(path);
    return err;
}

/* The binary of a built program for o's device (malloc'd); NULL when the driver gives none. */
static unsigned char *rs_cache_binary_of(rs_ocl *o, cl_program program, size_t *len)
{
    cl_uint devices = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof devices, &devices, NULL) != CL_SUCCESS ||
        devices != 1)
        return NULL; /* the backend builds for its one device */
    *len = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof *len, len, NULL) != CL_SUCCESS || *len == 0 ||
        *len > RS_CACHE_MAX_ENTRY / 2)
        return NULL;
    unsigned char *binary = malloc(*len);
    if (binary && clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL) != CL_SUCCESS) {
        free(binary);
        binary = NULL;
    }
    (void)o;
    return binary;
}

static int rs_cache_write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return w < 0 ? errno : EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Create a temporary file beside path, with a name no other writer uses (pid, context, counter, clock; O_EXCL
 * settles the rest); fd, or -1 with errno. */
static int rs_cache_temp(rs_ocl_disk_cache *c, const char *path, char **temp)
{
    *temp = NULL;
    for (int attempt = 0; attempt < 16; attempt++) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        char suffix[96];
        snprintf(suffix, sizeof suffix, ".tmp.%ld.%lx.%u.%ld", (long)getpid(), (unsigned long)(uintptr_t)c,
                 c->temp_count++, (long)now.tv_nsec);
        free(*temp);
        if (!(*temp = rs_cache_append(NULL, "%s%s", path, suffix))) {
            errno = ENOMEM;
            return -1;
        }
        int fd = open(*temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}

void rs_ocl_cache_store(rs_ocl *o, const rs_ocl_cache_key *key, cl_program program)
{
    rs_ocl_disk_cache *c = rs_cache_of(o);
    if (!key->use || !c || !c->enabled) return;
    size_t blen = 0;
    unsigned char *binary = rs_cache_binary_of(o, program, &blen);
    char *text = NULL, *path = NULL, *temp = NULL;
    if (!binary || !rs_cache_key_text(c, key, &text, &path)) goto done; /* nothing to keep, or out of memory */
    const size_t klen = strlen(text);
    if (klen > UINT32_MAX) goto done;
    if (!c->dir_ready) {
        int err = rs_cache_mkdirs(c->dir);
        if (err) {
            rs_cache_disable(c, "cannot create the cache directory", c->dir, err);
            goto done;
        }
        c->dir_ready = 1;
    }
    unsigned char header[RS_CACHE_HEADER];
    memcpy(header, RS_CACHE_MAGIC, 8);
    rs_put_u32(header + 8, RS_CACHE_FORMAT);
    rs_put_u32(header + 12, (uint32_t)klen);
    rs_put_u64(header + 16, (uint64_t)blen);
    rs_put_u64(header + 24, rs_fnv1a64(rs_fnv1a64(RS_FNV1A64_INIT, text, klen), binary, blen));
    int fd = rs_cache_temp(c, path, &temp);
    if (fd < 0) {
        rs_cache_disable(c, "cannot write in the cache directory", c->dir, errno);
        goto done;
    }
    int err = rs_cache_write_all(fd, header, sizeof header);
    if (!err) err = rs_cache_write_all(fd, (const unsigned char *)text, klen);
    if (!err) err = rs_cache_write_all(fd, binary, blen);
    if (close(fd) != 0 && !err) err = errno;
    if (!err && rename(temp, path) != 0) err = errno;
    if (err) {
        unlink(temp);
        rs_cache_disable(c, "cannot write the cache entry", path, err);
        goto done;
    }
    c->writes++;
done:
    free(binary);
    free(text);
    free(path);
    free(temp);
}
