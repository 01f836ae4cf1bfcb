/* The platform layer's threads, clock, memory and environment
 * (src/platform/platform.h), on whatever system runs the test (Linux
 * natively, Windows under Wine): once runs once under a race, a timed wait
 * waits and a signal ends it, aligned blocks are aligned and writable,
 * guard pages open where asked, the environment is set and removed as
 * getenv sees it, the CPU facts are sane, folders are made with their
 * parents and a file is replaced whole (the Vulkan pipeline cache's). */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "platform/platform.h"
#include "support/test.h"

enum { RACERS = 8 };

static atomic_int once_runs;
static dmls_once once = DMLS_ONCE_INIT;
static void count_once(void) {
    dmls_sleep_ms(20); /* the other racers arrive meanwhile and must wait */
    atomic_fetch_add(&once_runs, 1);
}

typedef struct racer {
    int saw; /* once_runs right after this racer's dmls_once_run */
} racer;

static DMLS_THREAD_MAIN(race_once, arg) {
    dmls_once_run(&once, count_once);
    ((racer *)arg)->saw = atomic_load(&once_runs);
    DMLS_THREAD_RETURN;
}

static void test_once(void) {
    dmls_thread t[RACERS];
    racer r[RACERS];
    int started = 0;
    for (int i = 0; i < RACERS; i++) started += dmls_thread_start(&t[i], race_once, &r[i]) == 0;
    CHECK(started == RACERS, "%d of %d threads started", started, RACERS);
    for (int i = 0; i < started; i++) {
        dmls_thread_join(&t[i]);
        CHECK(r[i].saw == 1, "racer %d returned before the once function finished (saw %d runs)", i, r[i].saw);
    }
    CHECK(atomic_load(&once_runs) == 1, "the once function ran %d times", atomic_load(&once_runs));
}

typedef struct waiter {
    dmls_mutex mu;
    dmls_cond cv;
    int flag;
} waiter;

static DMLS_THREAD_MAIN(set_flag, arg) {
    waiter *w = arg;
    dmls_sleep_ms(30);
    dmls_mutex_lock(&w->mu);
    w->flag = 1;
    dmls_cond_signal(&w->cv);
    dmls_mutex_unlock(&w->mu);
    DMLS_THREAD_RETURN;
}

static void test_timed_wait(void) {
    waiter w = {.flag = 0};
    CHECK(dmls_mutex_init(&w.mu) == 0 && dmls_cond_init(&w.cv) == 0, "mutex and condition variable");
    /* Nobody signals: the wait ends by its timeout, not before. */
    dmls_mutex_lock(&w.mu);
    const uint64_t t0 = dmls_monotonic_ns();
    dmls_cond_wait_ms(&w.cv, &w.mu, 60);
    const double waited = 1e-6 * (double)(dmls_monotonic_ns() - t0);
    dmls_mutex_unlock(&w.mu);
    /* A spurious wake-up may end it early in principle; 50 of 60 ms leaves
     * room for clock granularity without passing a wait that never waited. */
    CHECK(waited >= 50.0, "a 60 ms timed wait returned after %.1f ms", waited);
    CHECK(waited < 5000.0, "a 60 ms timed wait took %.1f ms", waited);
    /* A signal ends the waits; the flag is then set. */
    dmls_thread t;
    CHECK(dmls_thread_start(&t, set_flag, &w) == 0, "thread start");
    dmls_mutex_lock(&w.mu);
    while (!w.flag) dmls_cond_wait(&w.cv, &w.mu);
    dmls_mutex_unlock(&w.mu);
    dmls_thread_join(&t);
    CHECK(w.flag == 1, "the flag");
    dmls_cond_destroy(&w.cv);
    dmls_mutex_destroy(&w.mu);
    /* The sleep sleeps. */
    const uint64_t s0 = dmls_monotonic_ns();
    dmls_sleep_ms(30);
    CHECK(dmls_monotonic_ns() - s0 >= 25000000u, "a 30 ms sleep took %.1f ms", 1e-6 * (double)(dmls_monotonic_ns() - s0));
}

static void test_memory(void) {
    const size_t aligns[] = {sizeof(void *), 16, 64, 4096};
    for (size_t k = 0; k < sizeof aligns / sizeof aligns[0]; k++) {
        for (size_t size = 0; size <= 1000; size += 333) {
            unsigned char *p = dmls_aligned_alloc(aligns[k], size);
            CHECK(p != NULL && (uintptr_t)p % aligns[k] == 0, "aligned_alloc(%zu, %zu) = %p", aligns[k], size,
                  (void *)p);
            if (p) memset(p, 0xA5, size);
            dmls_aligned_free(p);
        }
    }
    dmls_aligned_free(NULL);
    const size_t page = dmls_page_size();
    CHECK(page >= 4096 && (page & (page - 1)) == 0, "page size %zu", page);
    unsigned char *pages = dmls_pages_reserve(3 * page);
    CHECK(pages != NULL, "reserve 3 pages");
    if (pages) {
        CHECK(dmls_pages_open(pages + page, page) == 0, "open the middle page");
        memset(pages + page, 1, page); /* writable; its neighbours would fault */
        CHECK(pages[page] == 1 && pages[2 * page - 1] == 1, "the opened page holds what was written");
        dmls_pages_release(pages, 3 * page);
    }
}

static void test_environment_and_cpu(void) {
    CHECK(dmls_env_set("DMLS_PLATFORM_TEST", "a b=c") == 0, "set");
    const char *v = getenv("DMLS_PLATFORM_TEST");
    CHECK(v && strcmp(v, "a b=c") == 0, "getenv after set: %s", v ? v : "(unset)");
    CHECK(dmls_env_set("DMLS_PLATFORM_TEST", NULL) == 0, "remove");
    CHECK(getenv("DMLS_PLATFORM_TEST") == NULL, "getenv after remove");
    const int cpus = dmls_cpu_count();
    CHECK(cpus >= 1 && cpus <= 1 << 20, "cpu count %d", cpus);
    const uint64_t cache = dmls_cpu_cache_bytes();
    CHECK(cache == 0 || (cache >= 4096 && cache <= (uint64_t)1 << 40), "cache %llu bytes", (unsigned long long)cache);
    CHECK(dmls_thread_self() == dmls_thread_self(), "thread identity changes within one thread");
}

/* The file at path holds exactly want (n bytes). */
static bool holds(const char *path, const char *want, size_t n) {
    char got[64];
    FILE *f = fopen(path, "rb");
    if (f == NULL) return false;
    const size_t k = fread(got, 1, sizeof got, f);
    fclose(f);
    return k == n && memcmp(got, want, n) == 0;
}

static void test_files(void) {
    /* In the test's working folder (the build tree), relative: any system. */
    CHECK(dmls_dirs_make("platform-files/a/b") == 0, "dirs_make of a new path failed");
    CHECK(dmls_dirs_make("platform-files/a/b") == 0, "dirs_make of an existing path failed");
    FILE *f = fopen("platform-files/a/plain", "wb");
    CHECK(f != NULL, "cannot make platform-files/a/plain");
    if (f != NULL) fclose(f);
    CHECK(dmls_dirs_make("platform-files/a/plain/c") != 0, "dirs_make through a regular file succeeded");
    CHECK(dmls_file_replace("platform-files/a/b/x.bin", "hello", 5) == 0 &&
              holds("platform-files/a/b/x.bin", "hello", 5),
          "file_replace of a new file");
    CHECK(dmls_file_replace("platform-files/a/b/x.bin", "bye", 3) == 0 && holds("platform-files/a/b/x.bin", "bye", 3),
          "file_replace over an existing file");
    CHECK(dmls_file_replace("platform-files/none/x.bin", "x", 1) != 0, "file_replace into a missing folder succeeded");
    f = fopen("platform-files/none/x.bin", "rb");
    CHECK(f == NULL, "a failed file_replace left a file");
    if (f != NULL) fclose(f);
    remove("platform-files/a/b/x.bin"), remove("platform-files/a/plain");
    remove("platform-files/a/b"), remove("platform-files/a"), remove("platform-files");
}

int main(void) {
    test_once();
    test_timed_wait();
    test_memory();
    test_environment_and_cpu();
    test_files();
    TEST_MAIN_END();
}
