/* test_cache: the on-disk cache of built OpenCL programs (docs/CACHE.md), observed through
 * redscan_program_cache_stats and the files it leaves. Every case has a directory of its own below a temporary one,
 * set with REDSCAN_CACHE_DIR before the context is created; the work of a context is one float32 sum reduction and
 * one float32 sum scan, which use one program, so one entry.
 *   - the first build writes an entry (and makes the directory, mode 0700); a new context in the same process and a
 *     new process (this program re-executed) load it: a hit, no build, no write
 *   - results are the same bits with and without the cache (REDSCAN_CACHE=0), and the documented order's
 *   - a truncated entry, one cut inside its header, a flipped byte in the binary and one in the key text are
 *     rejected (the count goes up), built again, the result is right and the entry is valid again (the next context
 *     hits)
 *   - REDSCAN_CACHE=0 writes nothing; REDSCAN_CACHE other than 0 / 1 fails redscan_create, listing the values
 *   - a directory that cannot be made (below a regular file: chmod does not stop root) turns caching off with a
 *     note, never an error; the results are still right
 *   - two processes writing the same entry at once leave one valid entry and no temporary file
 *   - another POCL_WORK_GROUP_METHOD is another key (a PoCL binary would carry the first method's work-group code)
 *   - the directory defaults: $XDG_CACHE_HOME/redscan (absolute only), else $HOME/.cache/redscan
 * On CUDA the cache is not used (kernels are compiled ahead of time): the stats say so, then the program exits 77. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define N 5000 /* several tiles, two levels of the scan hierarchy */

static char g_root[256];     /* the temporary directory of this run */
static const char *g_self;   /* argv[0], re-executed as a child */
static float g_x[N];

typedef struct {
    float sum;
    uint64_t scan_hash; /* FNV-1a of the scan's bytes */
    int ok;
} work_result;

static uint64_t bytes_hash(const void *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
    return h;
}

/* Programs the work below builds: the tree reduction's and the kogge_stone scan's (one program per family,
 * backend_opencl/ocl_program_families.c), so one entry each. */
#define P 2

/* The work of one context: explicit algorithms, so the documented order is known. */
static work_result run_work(redscan_ctx *c)
{
    static float out[N];
    work_result r = {0, 0, 0};
    redscan_reduce_desc rd = {REDSCAN_SUM, REDSCAN_FLOAT32, 0, REDSCAN_REDUCE_TREE, 0};
    redscan_scan_desc sd = {REDSCAN_SUM, REDSCAN_FLOAT32, 0, 0, NULL, REDSCAN_BLOCK_KOGGE_STONE,
                            REDSCAN_GRID_HIERARCHICAL, 0};
    if (redscan_reduce_host_ex(c, &rd, g_x, N, &r.sum) != REDSCAN_OK) return r;
    if (redscan_scan_host_ex(c, &sd, g_x, out, N) != REDSCAN_OK) return r;
    r.scan_hash = bytes_hash(out, sizeof out);
    r.ok = 1;
    return r;
}

static int same_result(work_result a, work_result b)
{
    return a.ok && b.ok && memcmp(&a.sum, &b.sum, sizeof a.sum) == 0 && a.scan_hash == b.scan_hash;
}

static void make_input(void)
{
    h_rng r;
    h_rng_init(&r, h_seed(41, 0, 0, 0, 0, 0));
    h_generate(&r, REDSCAN_FLOAT32, REDSCAN_SUM, GEN_PLAIN, g_x, N);
}

/* ---------------------------------------------------------------- files */

static void path_of(char *out, size_t cap, const char *name) { snprintf(out, cap, "%s/%s", g_root, name); }

/* Entries (*.clprog) and temporary files (*.tmp.*) in dir; the first entry's path in first (may be NULL). */
static void scan_dir(const char *dir, int *entries, int *temps, char *first, size_t cap)
{
    *entries = *temps = 0;
    if (first) first[0] = '\0';
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const size_t len = strlen(e->d_name);
        if (strstr(e->d_name, ".tmp.")) (*temps)++;
        else if (len > 7 && strcmp(e->d_name + len - 7, ".clprog") == 0) {
            if (first && !*entries) snprintf(first, cap, "%s/%s", dir, e->d_name);
            (*entries)++;
        }
    }
    closedir(d);
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char sub[1024];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            remove_tree(sub);
        }
        if (d) closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* ---------------------------------------------------------------- contexts and children */

static redscan_ctx *ctx_in(const char *dir)
{
    setenv("REDSCAN_CACHE_DIR", dir, 1);
    redscan_ctx *c = NULL;
    redscan_status st = redscan_create(&c, REDSCAN_BACKEND_AUTO);
    CHECK(st == REDSCAN_OK, "redscan_create with REDSCAN_CACHE_DIR=%s: %s: %s", dir, redscan_status_string(st),
          redscan_last_error(NULL));
    return st == REDSCAN_OK ? c : NULL;
}

static redscan_cache_stats stats_of(redscan_ctx *c)
{
    redscan_cache_stats s;
    memset(&s, 0, sizeof s);
    CHECK_STATUS(redscan_program_cache_stats(c, &s), REDSCAN_OK, "redscan_program_cache_stats");
    return s;
}

/* One context in dir: its work and its stats at the end. */
static work_result work_in(const char *dir, redscan_cache_stats *s)
{
    work_result r = {0, 0, 0};
    redscan_ctx *c = ctx_in(dir);
    if (!c) return r;
    r = run_work(c);
    CHECK(r.ok, "work in %s: %s", dir, redscan_last_error(c));
    *s = stats_of(c);
    /* the strings belong to the context: keep copies */
    static char directory[1024], note[1024];
    snprintf(directory, sizeof directory, "%s", s->directory ? s->directory : "(null)");
    snprintf(note, sizeof note, "%s", s->note ? s->note : "(null)");
    s->directory = directory;
    s->note = note;
    redscan_destroy(c);
    return r;
}

#define CHECK_COUNTS(s, h, m, w, rj)                                                                               \
    CHECK((s).hits == (h) && (s).misses == (m) && (s).writes == (w) && (s).rejected == (rj),                       \
          "stats hits %" PRIu64 " misses %" PRIu64 " writes %" PRIu64 " rejected %" PRIu64                           \
          ", want %d %d %d %d (enabled %d, note \"%s\")",                                                          \
          (s).hits, (s).misses, (s).writes, (s).rejected, (h), (m), (w), (rj), (s).enabled, (s).note)

/* Child mode (argv: --child [go_fd]): one context with the inherited environment, its work (after go_fd reaches
 * end of file, when given), one line of results on stdout. */
static int child_main(int argc, char **argv)
{
    make_input();
    redscan_ctx *c = NULL;
    if (redscan_create(&c, REDSCAN_BACKEND_AUTO) != REDSCAN_OK) return 3;
    if (argc > 2) {
        char b;
        const int fd = atoi(argv[2]);
        while (read(fd, &b, 1) > 0) {
        }
    }
    work_result r = run_work(c);
    redscan_cache_stats s;
    if (!r.ok || redscan_program_cache_stats(c, &s) != REDSCAN_OK) return 4;
    uint32_t bits;
    memcpy(&bits, &r.sum, 4);
    printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %08" PRIx32 " %016" PRIx64 "\n", s.hits, s.misses,
           s.writes, s.rejected, bits, r.scan_hash);
    redscan_destroy(c);
    return 0;
}

typedef struct {
    pid_t pid;
    int out; /* read end of its stdout */
} child;

/* Start this program as a child (fork, then exec at once: nothing of OpenCL runs between the two). */
static child start_child(int go_fd)
{
    child ch = {-1, -1};
    int fds[2];
    if (!CHECK(pipe(fds) == 0, "pipe")) return ch;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC); /* a later child must not hold this one's pipe */
    char go[16];
    snprintf(go, sizeof go, "%d", go_fd);
    fflush(stdout);
    ch.pid = fork();
    if (ch.pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execl(g_self, g_self, "--child", go_fd >= 0 ? go : (char *)NULL, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    ch.out = fds[0];
    CHECK(ch.pid > 0, "fork");
    return ch;
}

/* Wait for a child; its stats and result. */
static work_result finish_child(child ch, redscan_cache_stats *s)
{
    work_result r = {0, 0, 0};
    memset(s, 0, sizeof *s);
    if (ch.pid <= 0) return r;
    char line[256] = "";
    FILE *f = fdopen(ch.out, "r");
    if (f) {
        if (!fgets(line, sizeof line, f)) line[0] = '\0';
        fclose(f);
    }
    int status = 0;
    waitpid(ch.pid, &status, 0);
    uint32_t bits = 0;
    const int fields = sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNx32 " %" SCNx64, &s->hits,
                              &s->misses, &s->writes, &s->rejected, &bits, &r.scan_hash);
    if (!CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0 && fields == 6,
               "child process: exit status %d, output \"%s\"", WIFEXITED(status) ? WEXITSTATUS(status) : -1, line))
        return r;
    memcpy(&r.sum, &bits, 4);
    r.ok = 1;
    return r;
}

/* ---------------------------------------------------------------- cases */

static work_result g_want; /* built from source, no cache */

static void case_no_cache(void)
{
    if (!h_case("REDSCAN_CACHE=0: results from source, nothing written")) return;
    char dir[512];
    path_of(dir, sizeof dir, "off");
    setenv("REDSCAN_CACHE", "0", 1);
    redscan_cache_stats s;
    g_want = work_in(dir, &s);
    unsetenv("REDSCAN_CACHE");
    CHECK(s.used == 1 && s.enabled == 0 && strstr(s.note, "REDSCAN_CACHE=0"), "stats used %d enabled %d note \"%s\"",
          s.used, s.enabled, s.note);
    CHECK_COUNTS(s, 0, 0, 0, 0);
    CHECK(file_size(dir) < 0, "%s exists after a run with REDSCAN_CACHE=0", dir);
    /* the documented order: the results are right, so the cached ones can be compared with these */
    float scan[N];
    ref_val want_sum = ref_reduce_emulate(REDSCAN_REDUCE_TREE, REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, g_x, N);
    ref_scan_emulate(REDSCAN_BLOCK_KOGGE_STONE, REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, 0, NULL, g_x, scan, N);
    CHECK(g_want.ok && memcmp(&g_want.sum, &want_sum.f32, 4) == 0 && g_want.scan_hash == bytes_hash(scan, sizeof scan),
          "results without the cache differ from the documented order");
}

static void case_first_and_hits(const char *dir)
{
    if (!h_case("first build writes an entry, a new context and a new process hit")) return;
    redscan_cache_stats s;
    work_result r = work_in(dir, &s);
    CHECK(same_result(r, g_want), "first build: results differ from the uncached ones");
    CHECK(s.used == 1 && s.enabled == 1 && s.note[0] == '\0', "stats used %d enabled %d note \"%s\"", s.used,
          s.enabled, s.note);
    CHECK(strcmp(s.directory, dir) == 0, "stats directory \"%s\", want \"%s\"", s.directory, dir);
    CHECK_COUNTS(s, 0, P, P, 0);
    int entries, temps;
    scan_dir(dir, &entries, &temps, NULL, 0);
    CHECK(entries == P && temps == 0, "%d entries and %d temporary files in %s, want %d and 0", entries, temps, dir, P);
    struct stat st;
    CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700, "directory mode %o, want 700",
          (unsigned)(st.st_mode & 0777));

    r = work_in(dir, &s);
    CHECK(same_result(r, g_want), "new context: results differ");
    CHECK_COUNTS(s, P, 0, 0, 0);

    setenv("REDSCAN_CACHE_DIR", dir, 1);
    r = finish_child(start_child(-1), &s);
    CHECK(same_result(r, g_want), "new process: results differ");
    CHECK_COUNTS(s, P, 0, 0, 0);
}

/* Damage one of the P entries in dir with how(path), then: rejected, rebuilt, right, and valid again. */
static void damaged(const char *dir, const char *what, void (*how)(const char *path, long size))
{
    if (!h_case("damaged entry: %s", what)) return;
    char path[1024];
    int entries, temps;
    scan_dir(dir, &entries, &temps, path, sizeof path);
    if (!CHECK(entries == P, "%d entries in %s, want %d", entries, dir, P)) return;
    how(path, file_size(path));
    redscan_cache_stats s;
    work_result r = work_in(dir, &s);
    CHECK(same_result(r, g_want), "%s: results differ", what);
    CHECK_COUNTS(s, P - 1, 1, 1, 1);
    r = work_in(dir, &s);
    CHECK(same_result(r, g_want), "%s, rewritten entry: results differ", what);
    CHECK_COUNTS(s, P, 0, 0, 0);
    scan_dir(dir, &entries, &temps, NULL, 0);
    CHECK(entries == P && temps == 0, "%d entries and %d temporary files, want %d and 0", entries, temps, P);
}

static void cut_half(const char *path, long size) { CHECK(truncate(path, size / 2) == 0, "truncate %s", path); }
static void cut_header(const char *path, long size)
{
    (void)size;
    CHECK(truncate(path, 20) == 0, "truncate %s", path);
}
static void flip_at(const char *path, long at)
{
    int fd = open(path, O_RDWR);
    unsigned char b = 0;
    int ok = fd >= 0 && pread(fd, &b, 1, at) == 1;
    b ^= 0x10;
    ok = ok && pwrite(fd, &b, 1, at) == 1;
    if (fd >= 0) close(fd);
    CHECK(ok, "flip a byte of %s at %ld", path, at);
}
static void flip_binary(const char *path, long size) { flip_at(path, size - size / 3); }
static void flip_key(const char *path, long size)
{
    (void)size;
    flip_at(path, 40); /* past the 32-byte header: the key text */
}

static void case_unusable_dir(void)
{
    if (!h_case("unusable directory (below a regular file): caching off, results right")) return;
    char file[512], dir[600];
    path_of(file, sizeof file, "afile");
    FILE *f = fopen(file, "w");
    if (!CHECK(f != NULL, "create %s", file)) return;
    fclose(f);
    snprintf(dir, sizeof dir, "%s/sub", file);
    redscan_cache_stats s;
    work_result r = work_in(dir, &s);
    CHECK(same_result(r, g_want), "results differ");
    CHECK(s.enabled == 0 && strstr(s.note, "cannot create") != NULL, "stats enabled %d note \"%s\"", s.enabled, s.note);
    CHECK_COUNTS(s, 0, 1, 0, 0); /* the first program's failed write turns caching off: later builds are not misses */
}

static void case_concurrent(void)
{
    if (!h_case("two processes write the same entry at once")) return;
    char dir[512];
    path_of(dir, sizeof dir, "race");
    setenv("REDSCAN_CACHE_DIR", dir, 1);
    int go[2];
    if (!CHECK(pipe(go) == 0, "pipe")) return;
    fcntl(go[1], F_SETFD, FD_CLOEXEC); /* only the parent holds the write end: closing it starts both */
    child a = start_child(go[0]), b = start_child(go[0]);
    close(go[0]);
    close(go[1]); /* both children start their build now */
    redscan_cache_stats sa, sb;
    work_result ra = finish_child(a, &sa), rb = finish_child(b, &sb);
    CHECK(same_result(ra, g_want) && same_result(rb, g_want), "results differ");
    CHECK(sa.writes + sb.writes >= 1 && sa.rejected + sb.rejected == 0,
          "writes %" PRIu64 " + %" PRIu64 ", rejected %" PRIu64 " + %" PRIu64, sa.writes, sb.writes, sa.rejected,
          sb.rejected);
    int entries, temps;
    scan_dir(dir, &entries, &temps, NULL, 0);
    CHECK(entries == P && temps == 0, "%d entries and %d temporary files, want %d and 0", entries, temps, P);
    redscan_cache_stats s;
    work_result r = work_in(dir, &s);
    CHECK(same_result(r, g_want), "after the race: results differ");
    CHECK_COUNTS(s, P, 0, 0, 0);
}

static void case_work_group_method(const char *dir)
{
    const char *now = getenv("POCL_WORK_GROUP_METHOD");
    const char *other = now && strcmp(now, "workitemloops") == 0 ? "loopvec" : "workitemloops";
    if (!h_case("POCL_WORK_GROUP_METHOD=%s is another key", other)) return;
    char *saved = now ? strcpy((char *)h_malloc(strlen(now) + 1), now) : NULL;
    setenv("POCL_WORK_GROUP_METHOD", other, 1);
    setenv("REDSCAN_CACHE_DIR", dir, 1);
    redscan_cache_stats s;
    work_result r = finish_child(start_child(-1), &s);
    if (saved) setenv("POCL_WORK_GROUP_METHOD", saved, 1);
    else unsetenv("POCL_WORK_GROUP_METHOD");
    free(saved);
    CHECK(same_result(r, g_want), "results differ");
    CHECK_COUNTS(s, 0, P, P, 0);
    int entries, temps;
    scan_dir(dir, &entries, &temps, NULL, 0);
    CHECK(entries == 2 * P, "%d entries, want %d (one per program and work-group method)", entries, 2 * P);
}

static void case_env_values(void)
{
    static const char *const bad[] = {"", "yes", "2", "off"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (!h_case("REDSCAN_CACHE='%s' is refused", bad[i])) continue;
        setenv("REDSCAN_CACHE", bad[i], 1);
        redscan_ctx *c = NULL;
        redscan_status st = redscan_create(&c, REDSCAN_BACKEND_AUTO);
        const char *msg = redscan_last_error(NULL);
        CHECK(st == REDSCAN_ERR_INVALID_ARGUMENT && !c && strstr(msg, "REDSCAN_CACHE") && strstr(msg, "accepted values") &&
                  strstr(msg, "0 (") && strstr(msg, "1 ("),
              "status %s, message \"%s\"", redscan_status_string(st), msg);
        redscan_destroy(c);
    }
    unsetenv("REDSCAN_CACHE");
    if (h_case("REDSCAN_CACHE=1 is accepted, stats argument checks")) {
        setenv("REDSCAN_CACHE", "1", 1);
        redscan_ctx *c = NULL;
        CHECK_STATUS(redscan_create(&c, REDSCAN_BACKEND_AUTO), REDSCAN_OK, "redscan_create with REDSCAN_CACHE=1");
        unsetenv("REDSCAN_CACHE");
        if (c) {
            CHECK(stats_of(c).enabled == 1, "REDSCAN_CACHE=1: not enabled");
            CHECK_STATUS(redscan_program_cache_stats(c, NULL), REDSCAN_ERR_INVALID_ARGUMENT, "stats NULL");
            redscan_destroy(c);
        }
        redscan_cache_stats s;
        CHECK_STATUS(redscan_program_cache_stats(NULL, &s), REDSCAN_ERR_INVALID_ARGUMENT, "ctx NULL");
    }
}

/* Where the directory is when REDSCAN_CACHE_DIR is unset or empty (no program is built). */
static void case_default_dirs(void)
{
    if (!h_case("default directories")) return;
    const char *home = getenv("HOME"), *xdg = getenv("XDG_CACHE_HOME");
    char *saved_home = home ? strcpy((char *)h_malloc(strlen(home) + 1), home) : NULL;
    char *saved_xdg = xdg ? strcpy((char *)h_malloc(strlen(xdg) + 1), xdg) : NULL;
    char want[600], value[512];
    static const struct {
        const char *dir, *xdg, *home, *want; /* "@" = the temporary root */
    } cases[] = {
        {"", "@/xdg", "@/home", "@/xdg/redscan"},
        {NULL, "@/xdg", "@/home", "@/xdg/redscan"},
        {NULL, "relative/xdg", "@/home", "@/home/.cache/redscan"},
        {NULL, "", "@/home", "@/home/.cache/redscan"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].dir) setenv("REDSCAN_CACHE_DIR", cases[i].dir, 1);
        else unsetenv("REDSCAN_CACHE_DIR");
        snprintf(value, sizeof value, "%s%s", cases[i].xdg[0] == '@' ? g_root : "", cases[i].xdg + (cases[i].xdg[0] == '@'));
        setenv("XDG_CACHE_HOME", value, 1);
        snprintf(value, sizeof value, "%s%s", g_root, cases[i].home + 1);
        setenv("HOME", value, 1);
        snprintf(want, sizeof want, "%s%s", g_root, cases[i].want + 1);
        redscan_ctx *c = NULL;
        if (CHECK_STATUS(redscan_create(&c, REDSCAN_BACKEND_AUTO), REDSCAN_OK, "redscan_create")) {
            redscan_cache_stats s = stats_of(c);
            CHECK(strcmp(s.directory, want) == 0 && s.enabled == 1, "case %zu: directory \"%s\" (enabled %d), want \"%s\"",
                  i, s.directory, s.enabled, want);
            redscan_destroy(c);
        }
    }
    if (saved_home) setenv("HOME", saved_home, 1);
    else unsetenv("HOME");
    if (saved_xdg) setenv("XDG_CACHE_HOME", saved_xdg, 1);
    else unsetenv("XDG_CACHE_HOME");
    free(saved_home);
    free(saved_xdg);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--child") == 0) return child_main(argc, argv);
    g_self = argv[0];
    h_open("test_cache");
    if (strcmp(redscan_backend_name(h_ctx), "opencl") != 0) {
        redscan_cache_stats s = stats_of(h_ctx);
        CHECK(s.used == 0 && s.enabled == 0 && s.note[0] && s.directory[0] == '\0',
              "stats on %s: used %d enabled %d directory \"%s\" note \"%s\"", redscan_backend_name(h_ctx), s.used,
              s.enabled, s.directory, s.note);
        if (h_failures()) return h_done();
        printf("SKIP test_cache: the on-disk cache is for OpenCL programs (the %s backend compiles its kernels "
               "ahead of time: \"%s\")\n",
               redscan_backend_name(h_ctx), s.note);
        h_done();
        return H_SKIP;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(g_root, sizeof g_root, "%s/redscan-test-cache-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_root)) {
        printf("FAIL test_cache: mkdtemp %s failed\n", g_root);
        return 1;
    }
    make_input();
    unsetenv("REDSCAN_CACHE");

    char dir[512];
    path_of(dir, sizeof dir, "main/sub"); /* two levels to make */
    case_no_cache();
    case_first_and_hits(dir);
    damaged(dir, "truncated to half", cut_half);
    damaged(dir, "cut inside the header", cut_header);
    damaged(dir, "a byte of the binary flipped", flip_binary);
    damaged(dir, "a byte of the key text flipped", flip_key);
    case_unusable_dir();
    case_concurrent();
    case_work_group_method(dir);
    case_env_values();
    case_default_dirs();

    remove_tree(g_root);
    return h_done();
}
