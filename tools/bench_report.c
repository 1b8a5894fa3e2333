/* redscan bench: one row of results as a table line and a CSV line, the pass / fail counts, the progress line.
 *
 * Columns (docs/PERFORMANCE.md): dev_ms is the median device time (CUDA or OpenCL events), host_ms the median of the
 * host clock around the call, i.e. what a caller waits. GB/s, %copy and vs_ref come from the device time where the
 * row has one, else from the host clock (the CSV's `timing` names which); vs_host compares host clocks. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_run.h"

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static const char *result_word(int r)
{
    switch (r) {
    case R_PASS: return "pass";
    case R_FAIL: return "FAIL";
    case R_UNSUP: return "unsupported";
    case R_REF: return "ref";
    case R_SKIP: return "skipped";
    default: return "ERROR";
    }
}

static void csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; ++s) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    fputc('"', f);
}

void bench_progress_clear(bench_state *st)
{
    if (st->tty)
        fprintf(stderr, "\r%*s\r", 110, "");
}

void bench_progress(bench_state *st, int counts, const char *op, const char *dtype, const char *algo, size_t n)
{
    if (counts)
        st->done++;
    if (!st->tty)
        return;
    fprintf(stderr, "\r[%4d/%d %5.0fs] %s %s %s n=%zu%-24s", st->done, st->total, bench_now() - st->t_start, op,
            dtype, algo, n, "");
    fflush(stderr);
}

static int has_time(const row_t *r) { return r->result == R_PASS || r->result == R_FAIL || r->result == R_REF; }

/* The primary clock: the device's where the row has it. */
static void primary(const row_t *r, double *med, double *mn)
{
    int dev = r->t.dev_med_s > 0;
    *med = dev ? r->t.dev_med_s : r->t.host_med_s;
    *mn = dev ? r->t.dev_min_s : r->t.host_min_s;
}

double row_gbs(const row_t *r)
{
    double med, mn;
    primary(r, &med, &mn);
    return has_time(r) && med > 0 ? r->bytes / med * 1e-9 : 0.0;
}

double row_host_gbs(const row_t *r)
{
    return has_time(r) && r->t.host_med_s > 0 ? r->bytes / r->t.host_med_s * 1e-9 : 0.0;
}

void bench_csv_header(FILE *f)
{
    fprintf(f, "kind,op,dtype,algo,n,bytes,nbuf,reps,median_ms,min_ms,gbps,frac_copy_peak,copy_gbps_same_n,ref,"
               "ref_gbps,ratio_vs_ref,timing,host_median_ms,host_min_ms,host_gbps,ref_host_gbps,host_ratio_vs_ref,"
               "check,detail\n");
}

void bench_table_header(void)
{
    printf("%-11s %-8s %-32s %10s %10s %10s %9s %6s %6s %7s %s\n", "op", "dtype", "algo", "n", "dev_ms", "host_ms",
           "GB/s", "%copy", "vs_ref", "vs_host", "check");
}

/* Counts the row; prints an unsupported (algorithm, reason) once, then only counts it. Returns the detail to print
 * (NULL: already printed once) or 0 when the row is not to be printed at all. */
static int count_row(bench_state *st, const row_t *r, const char **detail)
{
    int ours = !strcmp(r->kind, "ours");
    if (ours && r->result != R_SKIP) { /* a skipped size: its cases are counted by the caller */
        st->rows++;
        if (r->result == R_PASS)
            st->passed++;
        else if (r->result == R_UNSUP)
            st->unsupported++;
        else
            st->failed++;
    } else if (!ours && (r->result == R_FAIL || r->result == R_ERROR)) {
        st->ref_failed++;
    }
    if (r->result != R_UNSUP || !ours)
        return 1;
    char reason[200];
    snprintf(reason, sizeof reason, "%s", *detail ? *detail : "");
    for (int i = 0; i < st->nunsup; ++i)
        if (!strcmp(st->unsup[i].algo, r->algo) && !strcmp(st->unsup[i].reason, reason)) {
            st->unsup[i].count++;
            return 0;
        }
    for (int i = 0; i < st->nunsup; ++i)
        if (!strcmp(st->unsup[i].reason, reason))
            *detail = NULL; /* the reason was printed once already */
    if (st->nunsup < 64) {
        snprintf(st->unsup[st->nunsup].algo, sizeof st->unsup[0].algo, "%s", r->algo);
        memcpy(st->unsup[st->nunsup].reason, reason, sizeof reason);
        st->unsup[st->nunsup++].count = 1;
    }
    return 1;
}

static void csv_row(FILE *f, const row_t *r, double frac, double ratio, double host_ratio)
{
    double med, mn;
    primary(r, &med, &mn);
    fprintf(f, "%s,%s,%s,%s,%zu,%.0f,%d,%d,%.6f,%.6f,%.3f,%.4f,%.3f,%s,%.3f,%.4f,%s,%.6f,%.6f,%.3f,%.3f,%.4f,%s,",
            r->kind, r->op, r->dtype, r->algo, r->n, r->bytes, r->nbuf, r->reps, med * 1e3, mn * 1e3, row_gbs(r),
            frac, r->copy_n_gbs, r->ref ? r->ref : "", r->ref_gbs, ratio, r->timing ? r->timing : "",
            r->t.host_med_s * 1e3, r->t.host_min_s * 1e3, row_host_gbs(r), r->ref_host_gbs, host_ratio,
            result_word(r->result));
    csv_field(f, r->detail);
    fputc('\n', f);
    fflush(f);
}

static void fmt_or_dash(char *buf, size_t len, const char *fmt, double v)
{
    if (v > 0)
        snprintf(buf, len, fmt, v);
    else
        snprintf(buf, len, "-");
}

/* %copy, vs_ref and vs_host of a row (0 where not known). */
static void row_ratios(const bench_state *st, const row_t *r, double *frac, double *ratio, double *host_ratio)
{
    double gbs = row_gbs(r), hgbs = row_host_gbs(r);
    *frac = st->copy_peak_gbs > 0 ? gbs / st->copy_peak_gbs : 0.0;
    *ratio = r->ref && r->ref_gbs > 0 && gbs > 0 ? gbs / r->ref_gbs : 0.0;
    *host_ratio = r->ref && r->ref_host_gbs > 0 && hgbs > 0 ? hgbs / r->ref_host_gbs : 0.0;
}

int bench_record(bench_state *st, const row_t *r, const char **detail)
{
    double frac, ratio, host_ratio;
    row_ratios(st, r, &frac, &ratio, &host_ratio);
    *detail = r->detail;
    int print = count_row(st, r, detail);
    if (st->csv)
        csv_row(st->csv, r, frac, ratio, host_ratio);
    return print;
}

void bench_report(bench_state *st, const row_t *r)
{
    double gbs = row_gbs(r), frac, ratio, host_ratio;
    row_ratios(st, r, &frac, &ratio, &host_ratio);
    const char *detail;
    if (!bench_record(st, r, &detail))
        return;
    bench_progress_clear(st);
    char dev_s[16], host_s[16], gbs_s[16], frac_s[16], ratio_s[16], hratio_s[16];
    int timed = has_time(r);
    fmt_or_dash(dev_s, sizeof dev_s, "%.4f", timed ? r->t.dev_med_s * 1e3 : 0);
    fmt_or_dash(host_s, sizeof host_s, "%.4f", timed ? r->t.host_med_s * 1e3 : 0);
    fmt_or_dash(gbs_s, sizeof gbs_s, "%.2f", gbs);
    fmt_or_dash(frac_s, sizeof frac_s, "%.1f", 100.0 * frac);
    fmt_or_dash(ratio_s, sizeof ratio_s, "%.2f", ratio);
    fmt_or_dash(hratio_s, sizeof hratio_s, "%.2f", host_ratio);
    printf("%-11s %-8s %-32s %10zu %10s %10s %9s %6s %6s %7s %s\n", r->op, r->dtype, r->algo, r->n, dev_s, host_s,
           gbs_s, frac_s, ratio_s, hratio_s, result_word(r->result));
    int show_detail = r->result == R_FAIL || r->result == R_ERROR || r->result == R_UNSUP || r->result == R_SKIP ||
                      (r->result == R_PASS && !strcmp(r->kind, "ours"));
    if (show_detail && detail && *detail) {
        /* keep the table readable: the first lines of the detail (a build log can be long) */
        char buf[DETAIL_MAX];
        snprintf(buf, sizeof buf, "%s", detail);
        int lines = 0;
        for (char *line = buf; line && lines < (r->result == R_FAIL || r->result == R_ERROR ? 12 : 1); ++lines) {
            char *nl = strchr(line, '\n');
            if (nl)
                *nl = '\0';
            printf("    %s\n", line);
            line = nl ? nl + 1 : NULL;
        }
    }
    fflush(stdout);
}

void bench_status_detail(redscan_ctx *ctx, redscan_status s, char *detail)
{
    const char *e = redscan_last_error(ctx);
    if (s == REDSCAN_ERR_UNSUPPORTED && e && *e) /* the reason says it all */
        snprintf(detail, DETAIL_MAX, "%s", e);
    else
        snprintf(detail, DETAIL_MAX, "%s%s%s", redscan_status_string(s), e && *e ? ": " : "", e ? e : "");
}
