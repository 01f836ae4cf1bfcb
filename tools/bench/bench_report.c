/* dmlslice bench's table and JSON file; see bench.h. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "bench.h"

static double gbps(uint64_t bytes, double ms) { return 2.0 * (double)bytes / (ms * 1e6); }

void bench_print_header(void) {
    printf("%-14s %10s %10s %9s %10s %9s %7s %9s %6s\n", "case", "out MiB", "slice ms", "GB/s", "copy ms", "GB/s",
           "ratio", "memcpy1", "batch");
}

void bench_print_row(const bench_row *r) {
    const double g = gbps(r->out_bytes, r->ms), cg = gbps(r->out_bytes, r->copy_ms);
    printf("%-14s %10.1f %10.4f %9.1f %10.4f %9.1f %7.2f ", r->name, (double)r->out_bytes / 1048576.0, r->ms, g,
           r->copy_ms, cg, g / cg);
    if (r->memcpy1_ms > 0) printf("%9.1f", gbps(r->out_bytes, r->memcpy1_ms));
    else printf("%9s", "-");
    /* A fast wrong answer is no result: say so in the row (the run fails). */
    printf(" %6d%s\n", r->batch, r->correct ? "" : "  WRONG OUTPUT");
    fflush(stdout);
}

/* "crops_1024_3x4x4_f32  call 12.3 us (83.2 M items/s, 63.9 GB/s) | loop_execute 450.1 us (36.6x) | ..." */
void bench_print_batch_row(const bench_batch_row *r) {
    printf("%-26s %s %.2f us", r->name, r->timing, r->us);
    if (r->items > 1) printf(" (%.1f M items/s", (double)r->items / r->us);
    if (r->items > 1 && r->out_bytes) printf(", %.1f GB/s", 2.0 * (double)r->out_bytes / (r->us * 1e3));
    if (r->items > 1) printf(")");
    for (int k = 0; k < r->nyard; k++)
        printf(" | %s %.2f us (%.2fx)", r->yard[k].name, r->yard[k].us, r->yard[k].us / r->us);
    printf("%s\n", r->correct ? "" : "  WRONG OUTPUT");
    fflush(stdout);
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

/* The elements of a JSON array, one a line: the n rows of size bytes each
 * that were timed (one that was not, skipped or failed, has no figures). */
static void json_array(FILE *f, const void *rows, size_t size, int n, bool (*timed)(const void *row),
                       void (*write)(FILE *f, const void *row)) {
    bool first = true;
    for (int k = 0; k < n; k++) {
        const void *row = (const char *)rows + (size_t)k * size;
        if (!timed(row)) continue;
        fputs(first ? "\n" : ",\n", f);
        write(f, row);
        first = false;
    }
}

/* JSON has no NaN or infinity: such a figure (a zero time, a failed
 * measure) is null. */
static void json_number(FILE *f, const char *fmt, double v) {
    if (isfinite(v)) fprintf(f, fmt, v);
    else fputs("null", f);
}

static bool row_timed(const void *row) { return ((const bench_row *)row)->timed; }

static void json_row(FILE *f, const void *row) {
    const bench_row *r = row;
    fputs("  {\"case\": ", f);
    json_string(f, r->name);
    fprintf(f, ", \"out_bytes\": %llu, \"ms\": ", (unsigned long long)r->out_bytes);
    json_number(f, "%.6f", r->ms);
    fputs(", \"GBps\": ", f);
    json_number(f, "%.3f", gbps(r->out_bytes, r->ms));
    fputs(", \"copy_ms\": ", f);
    json_number(f, "%.6f", r->copy_ms);
    fputs(", \"copy_GBps\": ", f);
    json_number(f, "%.3f", gbps(r->out_bytes, r->copy_ms));
    fputs(", \"ratio\": ", f);
    json_number(f, "%.4f", gbps(r->out_bytes, r->ms) / gbps(r->out_bytes, r->copy_ms));
    if (r->memcpy1_ms > 0) {
        fputs(", \"memcpy1_GBps\": ", f);
        json_number(f, "%.3f", gbps(r->out_bytes, r->memcpy1_ms));
    }
    fprintf(f, ", \"batch\": %d, \"correct\": %s}", r->batch, r->correct ? "true" : "false");
}

/* Times are microseconds per call; each yardstick's ratio is its time over
 * the batch's (above 1: the batch is faster). */
static bool batch_row_timed(const void *row) { return ((const bench_batch_row *)row)->timed; }

static void json_batch_row(FILE *f, const void *row) {
    const bench_batch_row *r = row;
    fputs("  {\"case\": ", f);
    json_string(f, r->name);
    fputs(", \"timing\": ", f);
    json_string(f, r->timing);
    fprintf(f, ", \"items\": %llu, \"out_bytes\": %llu, \"us\": ", (unsigned long long)r->items,
            (unsigned long long)r->out_bytes);
    json_number(f, "%.3f", r->us);
    fputs(", \"yardsticks\": {", f);
    for (int k = 0; k < r->nyard; k++) {
        fputs(k ? ", " : "", f);
        json_string(f, r->yard[k].name);
        fputs(": {\"us\": ", f);
        json_number(f, "%.3f", r->yard[k].us);
        fputs(", \"ratio\": ", f);
        json_number(f, "%.3f", r->yard[k].us / r->us);
        fputs("}", f);
    }
    fprintf(f, "}, \"correct\": %s}", r->correct ? "true" : "false");
}

bool bench_write_json(const char *path, const char *device, const char *gpu, int threads, int reps, bool quick,
                      const bench_row *rows, int n, const bench_batch_row *batch_rows, int nbatch) {
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "dmlslice bench: %s: %s\n", path, strerror(errno));
        return false;
    }
    fputs("{\n \"device\": ", f);
    json_string(f, device);
    if (gpu) {
        fputs(", \"gpu\": ", f);
        json_string(f, gpu);
    }
    fprintf(f, ", \"threads\": %d, \"reps\": %d, \"quick\": %s, \"version\": ", threads, reps, quick ? "true" : "false");
    json_string(f, dmls_version());
    fputs(",\n \"cases\": [", f);
    json_array(f, rows, sizeof *rows, n, row_timed, json_row);
    fputs("\n ],\n \"batches\": [", f);
    json_array(f, batch_rows, sizeof *batch_rows, nbatch, batch_row_timed, json_batch_row);
    fputs("\n ]\n}\n", f);
    if (ferror(f) | fclose(f)) {
        fprintf(stderr, "dmlslice bench: %s: write failed\n", path);
        return false;
    }
    return true;
}
