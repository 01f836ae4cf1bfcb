/* The progress line (tools/progress.c) as text: the fraction of the bytes
 * done and the time left at the rate so far, formatted as a terminal shows
 * it. */
#include "progress.h"
#include "support/test.h"

static void expect(uint64_t bytes, uint64_t done, double seconds, const char *want) {
    char line[PROGRESS_LINE_MAX];
    progress_format(line, sizeof line, "slicing into", bytes, done, seconds);
    CHECK(strcmp(line, want) == 0, "%llu of %llu bytes at %.2f s: \"%s\", want \"%s\"", (unsigned long long)done,
          (unsigned long long)bytes, seconds, line, want);
}

int main(void) {
    const uint64_t mib = 1 << 20, gib = (uint64_t)1 << 30;
    /* Nothing done yet (or the work is one piece): no rate, only the time. */
    expect(3 * gib / 2, 0, 1.25, "dmlslice: slicing into 1.50 GiB: 1.2 s");
    /* Half done in 2 s: 2 s left. */
    expect(3 * gib / 2, 3 * gib / 4, 2.0, "dmlslice: slicing into 1.50 GiB: 50%, 2.0 s, about 2.0 s left");
    /* A quarter in 30 s: 90 s left, in minutes. */
    expect(400 * mib, 100 * mib, 30.0, "dmlslice: slicing into 400.0 MiB: 25%, 30.0 s, about 1 min 30 s left");
    /* The percentage is rounded down: 99% until every byte is done. */
    expect(1000 * mib, 999 * mib + mib / 2, 10.0, "dmlslice: slicing into 1000.0 MiB: 99%, 10.0 s, about 0.0 s left");
    /* Hours. */
    expect(100 * gib, gib, 100.0, "dmlslice: slicing into 100.00 GiB: 1%, 1 min 40 s, about 2 h 45 min left");
    /* Every byte copied: what remains is the sync to disk. */
    expect(gib, gib, 5.0, "dmlslice: slicing into 1.00 GiB: 100%, syncing to disk, 5.0 s");
    /* Truncated to the buffer, never past it. */
    char small[12];
    progress_format(small, sizeof small, "slicing into", gib, 0, 1.0);
    CHECK(strlen(small) == sizeof small - 1 && strncmp(small, "dmlslice: s", 11) == 0, "truncated: \"%s\"", small);
    TEST_MAIN_END();
}
