/* redscan info: the on-disk program cache section (docs/CACHE.md): per usable backend, whether the cache is used
 * and enabled, its directory and what the directory holds. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "redscan.h"

/* Entries (*.clprog) in dir and their total size; -1 entries when the directory cannot be read. */
static void count_entries(const char *dir, long *entries, double *mib)
{
    *entries = -1;
    *mib = 0;
    DIR *d = opendir(dir);
    if (!d) return;
    *entries = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const size_t len = strlen(e->d_name);
        if (len <= 7 || strcmp(e->d_name + len - 7, ".clprog") != 0) continue;
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) == 0) *mib += (double)st.st_size / (1024.0 * 1024.0);
        (*entries)++;
    }
    closedir(d);
}

void cli_print_program_cache(void)
{
    static const redscan_backend list[] = {REDSCAN_BACKEND_OPENCL, REDSCAN_BACKEND_CUDA};
    printf("\nprogram cache (REDSCAN_CACHE, REDSCAN_CACHE_DIR; docs/CACHE.md):\n");
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) {
        const char *name = list[i] == REDSCAN_BACKEND_CUDA ? "cuda" : "opencl";
        redscan_ctx *ctx = NULL;
        if (redscan_backend_probe(list[i], NULL) != REDSCAN_OK || redscan_create(&ctx, list[i]) != REDSCAN_OK) {
            printf("  %-7s (no context here)\n", name);
            continue;
        }
        redscan_cache_stats s;
        if (redscan_program_cache_stats(ctx, &s) != REDSCAN_OK) {
            printf("  %-7s error: %s\n", name, redscan_last_error(ctx));
        } else if (!s.used) {
            printf("  %-7s %s\n", name, s.note);
        } else {
            long entries;
            double mib;
            count_entries(s.directory, &entries, &mib);
            printf("  %-7s %s%s%s\n", name, s.enabled ? "enabled" : "disabled", s.note[0] ? ": " : "", s.note);
            if (entries >= 0)
                printf("          directory %s: %ld entries, %.1f MiB\n", s.directory, entries, mib);
            else
                printf("          directory %s (not created yet or not readable)\n",
                       s.directory[0] ? s.directory : "(none)");
        }
        redscan_destroy(ctx);
    }
}
