/* End-to-end tests of `dmlslice split` and `dmlslice crops`: every result
 * equals `dmlslice slice` run once per output (the oracle: slice is tested
 * against the reference executor), on random data of several element sizes
 * and layouts (Fortran order, big-endian, 16-byte items); ONNX Split-18's
 * num_outputs rule (R-SPLIT-COUNT), the split and crop rules' errors
 * (R-SPLIT-AXIS, R-SPLIT-SUM, R-CROP-SIZE, R-CROP-BOUNDS), usage errors, and
 * all-or-nothing outputs: when one output cannot be written, none exists
 * afterwards and no temporary file is left.
 * Usage: test_cli_batch PATH/TO/dmlslice SCRATCH_PARENT_DIR */
#define _DEFAULT_SOURCE
#ifndef _WIN32
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

#include "dmlslice/dmlslice.h"
#include "support/rng.h"
#include "support/tool.h"

/* A .npy file's data bytes (after its header), or NULL. */
static unsigned char *npy_data(const char *name, size_t *n) {
    size_t len;
    unsigned char *b = slurp(name, &len);
    if (b == NULL || len < 10) {
        free(b);
        return NULL;
    }
    const size_t h = 10 + (size_t)(b[8] | b[9] << 8);
    *n = len - h;
    memmove(b, b + h, *n);
    return b;
}



/* ---------------------------------------------------------------- split */

/* The outputs of a split, each against `slice --index` of its part. */
/* "--device cuda" when the tool sees a CUDA device (the outputs must then
 * equal the CPU's slice), else "". */
static const char *device = "";

static void check_split(const char *what, const char *in, int axis, int rank, const int64_t *sizes, int n,
                        const char *extra) {
    char outs[2048] = "";
    for (int k = 0; k < n; k++) {
        const size_t len = strlen(outs);
        snprintf(outs + len, sizeof outs - len, " -o part%d.npy", k);
        char name[32];
        snprintf(name, sizeof name, "part%d.npy", k);
        remove(name);
    }
    const int rc = run("split %s --axis %d %s %s%s", in, axis, extra, device, outs);
    CHECK(rc == 0, "%s: split exit %d", what, rc);
    if (rc != 0) err_has("");
    const int k_axis = axis < 0 ? axis + rank : axis;
    int64_t at = 0;
    for (int k = 0; k < n; k++) {
        char index[256] = "[", name[32];
        for (int i = 0; i < k_axis; i++) strcat(index, ":, ");
        snprintf(index + strlen(index), sizeof index - strlen(index), "%lld:%lld]", (long long)at,
                 (long long)(at + sizes[k]));
        at += sizes[k];
        remove("ref.npy");
        CHECK(run("slice %s -o ref.npy --index '%s'", in, index) == 0, "%s: slice %s", what, index);
        snprintf(name, sizeof name, "part%d.npy", k);
        CHECK(same_file(name, "ref.npy"), "%s: output %d differs from slice --index '%s'", what, k, index);
    }
}

/* R-SPLIT-AXIS, R-SPLIT-SUM, R-SPLIT-COUNT through the tool, on random
 * data of each element size and layout. */
static void test_split_results(void) {
    static const struct {
        const char *descr;
        size_t esize;
        bool fortran;
    } kinds[] = {{"<f4", 4, false}, {"<i2", 2, true}, {">i4", 4, false}, {"|u1", 1, false}, {"<c16", 16, false},
                 {"<f8", 8, true}};
    for (size_t t = 0; t < sizeof kinds / sizeof kinds[0]; t++) {
        const int64_t shape[3] = {9, 4, 5};
        unsigned char data[9 * 4 * 5 * 16];
        test_fill_random(data, sizeof data);
        write_npy("in.npy", kinds[t].descr, kinds[t].fortran, 3, shape, data, 9 * 4 * 5 * kinds[t].esize);
        char what[64];
        snprintf(what, sizeof what, "%s%s", kinds[t].descr, kinds[t].fortran ? " fortran" : "");
        /* ONNX Split-18: 9 into 4 gives 3, 3, 3, 0 (R-SPLIT-COUNT). */
        const int64_t onnx[4] = {3, 3, 3, 0};
        check_split(what, "in.npy", 0, 3, onnx, 4, "--num-outputs 4");
        const int64_t last[3] = {2, 0, 3};
        check_split(what, "in.npy", -1, 3, last, 3, "--sizes 2,0,3");
        const int64_t mid[2] = {1, 3};
        check_split(what, "in.npy", 1, 3, mid, 2, "--sizes 1,3 --threads 3");
        /* The other conventions (R-SPLIT-COUNT): NumPy's array_split and
         * PyTorch's tensor_split give the larger parts first, chunk parts of
         * ceil(d/N), as many as needed. */
        const int64_t larger_first[4] = {3, 2, 2, 2}, thirds[3] = {2, 1, 1}, chunks[3] = {2, 2, 1};
        check_split(what, "in.npy", 0, 3, larger_first, 4, "--num-outputs 4 --mode array_split");
        check_split(what, "in.npy", 1, 3, thirds, 3, "--num-outputs 3 --mode tensor_split");
        check_split(what, "in.npy", -1, 3, chunks, 3, "--num-outputs 3 --mode chunk");
        check_split(what, "in.npy", 0, 3, onnx, 4, "--num-outputs 4 --mode onnx");
    }
}

/* A float32 input of zeros, rows x cols: for the refusals, whose values
 * do not matter. */
static void write_zeros(const char *name, int64_t rows, int64_t cols) {
    const int64_t shape[2] = {rows, cols};
    float *x = calloc((size_t)(rows * cols), sizeof *x);
    if (x == NULL) abort();
    write_npy(name, "<f4", false, 2, shape, x, (size_t)(rows * cols) * sizeof *x);
    free(x);
}

static void test_split_errors(void) {
#define SPLIT_IN "split in.npy "
    static const tool_expect refused[] = {
        /* 5 into 4: ceil(5/4) = 2 each leaves -1 for the last; the error names
         * the other conventions and the option that picks them. */
        {SPLIT_IN "--num-outputs 4 -o e0.npy -o e1.npy -o e2.npy -o e3.npy", 1,
         .err = {"R-SPLIT-COUNT", "array_split", "--mode array_split"}},
        {SPLIT_IN "--num-outputs 0 -o e0.npy", 2, .err = {"R-SPLIT-COUNT"}},
        {SPLIT_IN "--sizes 2,2 -o e0.npy -o e1.npy", 1, .err = {"R-SPLIT-SUM"}, .what = "sizes summing to 4 of 5"},
        {SPLIT_IN "--sizes 6,-1 -o e0.npy -o e1.npy", 1, .err = {"R-SPLIT-SUM"}, .what = "a negative size"},
        {SPLIT_IN "--axis 2 --sizes 5 -o e0.npy", 1, .err = {"R-SPLIT-AXIS", "--axis 2"}},
        {SPLIT_IN "--axis -3 --sizes 5 -o e0.npy", 1, .err = {"R-SPLIT-AXIS"}},
        {SPLIT_IN "--sizes 2,3 -o e0.npy", 2, .err = {"gives 2 parts but -o names 1 output"}},
        {SPLIT_IN "--sizes 5 --num-outputs 1 -o e0.npy", 2, .err = {"either --sizes or --num-outputs"}},
        {SPLIT_IN "-o e0.npy", 2, .err = {"either --sizes or --num-outputs"}},
        {SPLIT_IN "--num-outputs 2 --mode numpy -o e0.npy -o e1.npy", 2, .err = {"--mode 'numpy'", "array_split"}},
        {SPLIT_IN "--sizes 2,3 --mode chunk -o e0.npy -o e1.npy", 2, .err = {"--mode reads --num-outputs"}},
        /* 5 into 4 by chunk: parts of 2, three of them, for four outputs. */
        {SPLIT_IN "--num-outputs 4 --mode chunk -o e0.npy -o e1.npy -o e2.npy -o e3.npy", 2,
         .err = {"gives 3 parts but -o names 4 outputs"}},
        {SPLIT_IN "--sizes 2,3", 2, .err = {"needs an input file"}, .what = "no -o"},
        {SPLIT_IN "--sizes 2,3 -o e0.npy -o ./e0.npy", 1, .err = {"are the same file"}},
        {SPLIT_IN "--sizes 2,3 -o e0.npy -o in.npy", 1, .err = {"the output is the input"}},
        /* A Vulkan device that is not there (or a build without the backend):
         * the device's error, no output. tests/vulkan/check_cli_vulkan.py runs
         * split and crops on a real one. */
        {SPLIT_IN "--sizes 2,3 --device vulkan:99 -o e0.npy -o e1.npy", 1, .err = {"DMLS_ERROR_NO_DEVICE"}},
    };
#undef SPLIT_IN
    write_zeros("in.npy", 5, 3);
    remove("e0.npy"), remove("e1.npy"), remove("e2.npy"), remove("e3.npy");
    CHECK_RUNS(refused);
    CHECK(!exists("e0.npy") && !exists("e1.npy") && no_temp_files(), "a failed split wrote an output");
    /* An existing output is kept without -f, replaced with it. */
    FILE *f = fopen("e1.npy", "wb");
    fputs("keep", f);
    fclose(f);
    CHECK(run("split in.npy --sizes 2,3 -o e0.npy -o e1.npy") == 1 && err_has("already exists"), "no -f");
    size_t n;
    unsigned char *kept = slurp("e1.npy", &n);
    CHECK(kept && n == 4 && memcmp(kept, "keep", 4) == 0 && !exists("e0.npy"), "no -f: e1.npy changed or e0 written");
    free(kept);
    CHECK(run("split in.npy --sizes 2,3 -f -o e0.npy -o e1.npy") == 0 && exists("e0.npy"), "-f replaces");
    /* Many outputs (-o repeats; any other option still once). */
    write_zeros("tall.npy", 70, 2);
    /* More words than run() splits: the argument array by hand. */
    static char names[70][16];
    const char *argv[160] = {tool, "split", "tall.npy", "--num-outputs", "70", "-f"};
    int na = 6;
    for (int k = 0; k < 70; k++) {
        snprintf(names[k], sizeof names[k], "m%d.npy", k);
        argv[na++] = "-o";
        argv[na++] = names[k];
    }
    const run_io io = {.out = "out.txt", .err = "err.txt"};
    argv[na++] = "--axis";
    argv[na++] = "0";
    argv[na++] = "--axis";
    argv[na++] = "0";
    CHECK(run_argv(argv, &io) == 2 && err_has("--axis given twice"), "--axis twice among 70 outputs");
    argv[na - 4] = NULL;
    CHECK(run_argv(argv, &io) == 0 && exists("m69.npy"), "70 outputs");
    CHECK(no_temp_files(), "temporary files after the split errors");
}

/* ---------------------------------------------------------------- atomic */

/* Runs a split whose second output cannot be created; the first must not
 * exist afterwards and no temporary file may remain. */
static void split_second_fails(const char *what, const char *second) {
    remove("first.npy");
    const int rc = run("split big.npy --sizes 1,63 -o first.npy -o %s", second);
    CHECK(rc == 1, "%s: exit %d, expected 1", what, rc);
    CHECK(!exists("first.npy"), "%s: the first output exists although the second failed", what);
    CHECK(no_temp_files(), "%s: temporary files left", what);
}

static void test_all_or_nothing(void) {
    write_zeros("big.npy", 64, 64);
#ifndef _WIN32
    /* The second output's folder unwritable (not for root, whom no
     * permission stops). */
    mkdir("locked", 0700);
    chmod("locked", 0500);
    if (geteuid() != 0) split_second_fails("unwritable folder", "locked/second.npy");
    chmod("locked", 0700);
    rmdir("locked");
    /* The file-size limit, which stops root too: the first output (a
     * 256-byte row) fits, the second (63 rows) does not. Each way of
     * creating files: unnamed (Linux) and named temporaries. */
    struct rlimit old;
    getrlimit(RLIMIT_FSIZE, &old);
    static const char *const ways[] = {NULL, "named", "named,write"};
    for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
        if (ways[w]) setenv("DMLSLICE_IO_FALLBACK", ways[w], 1);
        struct rlimit lim = {4096, old.rlim_max};
        setrlimit(RLIMIT_FSIZE, &lim);
        char what[64];
        snprintf(what, sizeof what, "file-size limit (%s)", ways[w] ? ways[w] : "default");
        split_second_fails(what, "second.npy");
        setrlimit(RLIMIT_FSIZE, &old);
        CHECK(err_has("second.npy") && err_has("cannot reserve"), "%s: the message names the output", what);
        unsetenv("DMLSLICE_IO_FALLBACK");
    }
#else
    split_second_fails("a folder that does not exist", "nowhere/second.npy");
#endif
#ifndef _WIN32
    /* A signal while the outputs are on their way: every named temporary
     * file goes with the process (the third output, a FIFO no one reads,
     * holds the tool after the first two are made). */
    mkfifo("fifo", 0600);
    remove("first.npy"), remove("second.npy");
    setenv("DMLSLICE_IO_FALLBACK", "named", 1);
    const char *sig_argv[] = {tool, "split", "big.npy", "--sizes", "1,1,62", "-o", "first.npy", "-o", "second.npy",
                              "-o", "fifo", NULL};
    const run_io sig_io = {.out = "out.txt", .err = "err.txt"};
    const run_proc p = run_start(sig_argv, &sig_io);
    unsetenv("DMLSLICE_IO_FALLBACK");
    int temps = 0;
    for (int wait = 0; wait < 500 && temps < 2; wait++) {
        usleep(10000);
        temps = 0;
        DIR *d = opendir(".");
        for (struct dirent *e; d && (e = readdir(d)) != NULL;) temps += strncmp(e->d_name, ".dmlslice-", 10) == 0;
        if (d) closedir(d);
    }
    CHECK(temps == 2, "the two named temporary files did not appear (%d)", temps);
    kill(p, SIGTERM);
    run_wait(p);
    CHECK(no_temp_files() && !exists("first.npy") && !exists("second.npy"),
          "SIGTERM while two outputs were on their way left files");
    remove("fifo");
#endif
#ifdef __linux__
    /* Standard output is written last, after the files: when it fails
     * (a full device), the file already in place is removed again. */
    remove("first.npy");
    const char *argv[] = {tool, "split", "big.npy", "--sizes", "1,63", "-o", "first.npy", "-o", "-", NULL};
    const run_io io = {.out = "/dev/full", .err = "err.txt"};
    CHECK(run_argv(argv, &io) == 1 && err_has("<stdout>: write error"), "standard output on a full device");
    CHECK(!exists("first.npy"), "the file output stayed although standard output failed");
    CHECK(no_temp_files(), "standard output on a full device: temporary files left");
#endif
}

/* ---------------------------------------------------------------- crops */

/* The crops output, each crop against `slice --index` of its window. */
static void check_crops(const char *what, const char *in, int rank, const int64_t *size, const int64_t *starts,
                        int n) {
    remove("crops.npy");
    char sz[128] = "";
    for (int k = 0; k < rank; k++)
        snprintf(sz + strlen(sz), sizeof sz - strlen(sz), "%s%lld", k ? "," : "", (long long)size[k]);
    const int rc = run("crops %s --starts starts.npy --size %s %s -o crops.npy", in, sz, device);
    CHECK(rc == 0, "%s: crops exit %d", what, rc);
    if (rc != 0) err_has("");
    size_t got_n = 0;
    unsigned char *got = npy_data("crops.npy", &got_n);
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        char index[256] = "[";
        for (int k = 0; k < rank; k++)
            snprintf(index + strlen(index), sizeof index - strlen(index), "%s%lld:%lld", k ? ", " : "",
                     (long long)starts[i * rank + k], (long long)(starts[i * rank + k] + size[k]));
        strcat(index, "]");
        remove("ref.npy");
        CHECK(run("slice %s -o ref.npy --index '%s'", in, index) == 0, "%s: slice %s", what, index);
        size_t want_n = 0;
        unsigned char *want = npy_data("ref.npy", &want_n);
        CHECK(got && want && at + want_n <= got_n && memcmp(got + at, want, want_n) == 0,
              "%s: crop %d differs from slice --index '%s'", what, i, index);
        at += want_n;
        free(want);
    }
    CHECK(at == got_n, "%s: crops.npy holds %zu data bytes, the slices %zu", what, got_n, at);
    free(got);
}

static void write_starts(const char *name, const char *descr, bool fortran, const int64_t *starts, int n, int rank) {
    unsigned char b[64 * 8 * 8];
    const size_t es = descr[2] == '8' ? 8 : 4;
    const bool big = descr[0] == '>';
    for (int i = 0; i < n; i++)
        for (int k = 0; k < rank; k++) {
            const int64_t v = starts[i * rank + k];
            const size_t cell = (size_t)(fortran ? k * n + i : i * rank + k) * es;
            for (size_t j = 0; j < es; j++) b[cell + (big ? es - 1 - j : j)] = (unsigned char)((uint64_t)v >> (8 * j));
        }
    const int64_t shape[2] = {n, rank};
    write_npy(name, descr, fortran, 2, shape, b, (size_t)(n * rank) * es);
}

static void test_crops_results(void) {
    static const struct {
        const char *descr;
        size_t esize;
        bool fortran;
    } kinds[] = {{"<f4", 4, false}, {"<i2", 2, true}, {">f8", 8, false}, {"<c16", 16, false}};
    static const char *const starts_types[] = {"<i4", "<i8", ">i8", ">i4"};
    for (size_t t = 0; t < sizeof kinds / sizeof kinds[0]; t++) {
        const int64_t shape[3] = {3, 12, 10}, size[3] = {2, 4, 3};
        unsigned char data[3 * 12 * 10 * 16];
        test_fill_random(data, sizeof data);
        write_npy("img.npy", kinds[t].descr, kinds[t].fortran, 3, shape, data, 3 * 12 * 10 * kinds[t].esize);
        int64_t starts[40 * 3];
        const int n = (int)test_range(1, 40);
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) starts[i * 3 + k] = test_range(0, shape[k] - size[k]);
        write_starts("starts.npy", starts_types[t], t % 2 == 1, starts, n, 3);
        char what[64];
        snprintf(what, sizeof what, "crops of %s, starts %s", kinds[t].descr, starts_types[t]);
        check_crops(what, "img.npy", 3, size, starts, n);
    }
    /* No crops: an output of shape (0, *size). */
    write_starts("starts.npy", "<i4", false, NULL, 0, 3);
    const int64_t size[3] = {1, 1, 1};
    check_crops("no crops", "img.npy", 3, size, NULL, 0);
}

static void test_crops_errors(void) {
#define CROPS_IMG "crops img.npy "
    /* starts.npy's crop 1 starts at row 4: rows 4..6 leave the 6 rows;
     * negative.npy's crop 0 starts at column -1. */
    static const tool_expect refused[] = {
        {CROPS_IMG "--starts starts.npy --size 3,2 -o c.npy", 1,
         .err = {"R-CROP-BOUNDS", "crop 1", "start[0] = 4", "size 3"}},
        {CROPS_IMG "--starts negative.npy --size 1,1 -o c.npy", 1, .err = {"R-CROP-BOUNDS", "crop 0", "start[1] = -1"}},
        {CROPS_IMG "--starts negative.npy --size 7,1 -o c.npy", 1, .err = {"R-CROP-SIZE"}},
        {CROPS_IMG "--starts negative.npy --size 1 -o c.npy", 1,
         .err = {"R-CROP-SIZE", "--size has 1 value but the input img.npy has 2 axes"}},
        {CROPS_IMG "--starts columns3.npy --size 1,1 -o c.npy", 1, .err = {"an (N, 2) array"}},
        {CROPS_IMG "--starts float.npy --size 1,1 -o c.npy", 1, .err = {"int32 or int64"}},
        {CROPS_IMG "--size 1,1 -o c.npy", 2, .err = {"--starts"}},
        {CROPS_IMG "--starts float.npy --size 1,1 -o float.npy -f", 1, .err = {"the input"},
         .what = "the output over the starts"},
        {CROPS_IMG "--starts missing.npy --size 1,1 -o c.npy", 1, .err = {"missing.npy"}},
        {CROPS_IMG "--starts good.npy --size 1,1 --device vulkan:99 -o c.npy", 1, .err = {"DMLS_ERROR_NO_DEVICE"}},
    };
#undef CROPS_IMG
    write_zeros("img.npy", 6, 5);
    /* Each starts file under its own name, as the table runs them in turn. */
    const int64_t starts[6] = {0, 0, 4, 1, 1, 3}, negative[2] = {0, -1}, good[2] = {1, 1};
    write_starts("starts.npy", "<i8", false, starts, 3, 2);
    write_starts("negative.npy", "<i4", false, negative, 1, 2);
    write_starts("columns3.npy", "<i4", false, starts, 2, 3);
    write_zeros("float.npy", 6, 5);
    write_starts("good.npy", "<i4", false, good, 1, 2);
    remove("c.npy");
    CHECK_RUNS(refused);
    CHECK(!exists("c.npy") && no_temp_files(), "a failed crops wrote something");
}

/* A header-only starts file: int64, shape (n, 0), no data. */
static void write_empty_starts(uint64_t n) {
    char dict[128];
    snprintf(dict, sizeof dict, "{'descr': '<i8', 'fortran_order': False, 'shape': (%llu, 0), }",
             (unsigned long long)n);
    write_npy_dict("st.npy", 1, dict, NULL, 0);
}

/* The sizes a starts file's header implies are checked before use: 2^61
 * crops of a rank-0 complex input (each item copied in two parts) are
 * refused with the figures, not a heap overflow. */
static void test_crops_header_sizes(void) {
    const double c[2] = {1, 2};
    write_npy("c.npy", "<c16", false, 0, NULL, c, sizeof c);
    write_empty_starts(2305843009213693952ull);
    remove("o.npy");
    CHECK(run("crops c.npy --starts st.npy --size '' -o o.npy") == 1 && err_has("2305843009213693952 crops") &&
              err_has("16 bytes"),
          "2^61 crops of a complex scalar: refused with the figures");
    CHECK(!exists("o.npy") && no_temp_files(), "2^61 crops: an output was written");
}

/* Memory is bounded by the work, not by the starts file's header: 2^24
 * crops of a one-byte scalar (a 16 MiB output) from a 128-byte starts file
 * take well under the ~1.6 GB a batch of them all would. */
static void test_crops_memory(void) {
    const unsigned char v = 0xa5;
    write_npy("s.npy", "|u1", false, 0, NULL, &v, 1);
    /* Where the peak is not measured, 2^20 crops still cross four blocks, at
     * a sixteenth of the time a sanitizer or an emulator takes for 2^24. */
    const uint64_t n = getenv("DMLS_TEST_PEAK_UNMEASURED") ? 1u << 20 : 1u << 24;
    write_empty_starts(n);
    remove("o.npy");
    CHECK(run("crops s.npy --starts st.npy --size '' --threads 2 -o o.npy") == 0, "%llu crops of a scalar",
          (unsigned long long)n);
    size_t len;
    unsigned char *b = npy_data("o.npy", &len);
    bool all = b && len == n;
    for (size_t i = 0; all && i < len; i++) all = b[i] == v;
    free(b);
    CHECK(all, "%llu crops of a scalar: %zu bytes, not %llu of 0xa5", (unsigned long long)n, len,
          (unsigned long long)n);
#ifndef _WIN32
    /* The largest peak of any child so far: this one's (about 50 MiB, 16
     * of them the output's pages; a batch of all the crops took 1.7 GB). */
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    if (getenv("DMLS_TEST_PEAK_UNMEASURED"))
        printf("note: crops' peak memory not checked under a sanitizer or an emulator (%ld KiB)\n", (long)ru.ru_maxrss);
    else
        CHECK(ru.ru_maxrss < 320 * 1024, "2^24 crops of a scalar took %ld KiB at most", (long)ru.ru_maxrss);
#endif
    remove("o.npy");
}

/* Crops beyond the first block (the tool plans them in blocks): each in
 * its place, and a bad one named by its index in the file. */
static void test_crops_many(void) {
    int32_t x[1000];
    for (int i = 0; i < 1000; i++) x[i] = i * 3 + 1;
    const int64_t shape[1] = {1000};
    /* '=': the host's byte order, as the arrays are written (s390x too). */
    write_npy("line.npy", "=i4", false, 1, shape, x, sizeof x);
    enum { N = 600000 };
    int32_t *st = malloc(N * sizeof *st);
    for (int i = 0; i < N; i++) st[i] = (i * 7) % 999;
    const int64_t sshape[2] = {N, 1};
    write_npy("many.npy", "=i4", true, 2, sshape, st, N * sizeof *st);
    remove("o.npy");
    CHECK(run("crops line.npy --starts many.npy --size 2 -o o.npy") == 0, "600,000 crops");
    size_t len;
    int32_t *got = (int32_t *)npy_data("o.npy", &len);
    bool ok = got && len == (size_t)N * 8;
    for (int i = 0; ok && i < N; i++) ok = got[2 * i] == x[st[i]] && got[2 * i + 1] == x[st[i] + 1];
    free(got);
    CHECK(ok, "600,000 crops: an output crop differs from its window");
    remove("o.npy");
    st[555555] = 999;
    write_npy("many.npy", "=i4", true, 2, sshape, st, N * sizeof *st);
    CHECK(run("crops line.npy --starts many.npy --size 2 -o o.npy") == 1 && err_has("crop 555555:") &&
              err_has("start[0] = 999") && err_has("R-CROP-BOUNDS"),
          "crop 555555 out of bounds is named by its index in the file");
    CHECK(!exists("o.npy") && no_temp_files(), "a bad crop past the first block: an output was written");
    free(st);
}

int main(int argc, char **argv) {
    if (tool_setup(argc, argv, "cli_batch_scratch") != 0) return 2;
    test_seed_rng();
    test_split_results();
    test_crops_results();
    /* The same on the GPU, one launch per command, where there is one;
     * elsewhere --device cuda runs on the CPU and says so. */
    /* Only the list matters: under LeakSanitizer a Vulkan driver's own
     * leaks can make the listing exit non-zero. */
    run("info --devices");
    size_t n;
    unsigned char *devices = slurp("out.txt", &n);
    const bool gpu = devices && strstr((char *)devices, "cuda:0") != NULL;
    free(devices);
    device = "--device cuda";
    if (gpu) {
        printf("device: CUDA (split and crops on the GPU)\n");
        test_split_results();
        test_crops_results();
    } else {
        remove("cpu0.npy"), remove("cpu1.npy");
        CHECK(run("split in.npy --sizes 4,5 --device cuda -o cpu0.npy -o cpu1.npy") == 0 &&
                  err_has("--device cuda") && err_has("running on the CPU"),
              "--device cuda without a GPU runs on the CPU and says so");
        CHECK(run("slice in.npy -o ref.npy -f --index '[4:]'") == 0 && same_file("cpu1.npy", "ref.npy"),
              "--device cuda without a GPU: the CPU's result");
        /* crops too, as docs/cli.md says: its crops are the CPU's. */
        const int64_t starts[2] = {1, 3}, size[1] = {2}, shape[1] = {6};
        const float x[6] = {0, 1, 2, 3, 4, 5};
        write_npy("line.npy", "<f4", false, 1, shape, x, sizeof x);
        write_starts("starts.npy", "<i8", false, starts, 2, 1);
        check_crops("crops --device cuda without a GPU", "line.npy", 1, size, starts, 2);
        CHECK(run("crops line.npy --starts starts.npy --size 2 --device cuda -f -o crops.npy") == 0 &&
                  err_has("--device cuda") && err_has("running on the CPU"),
              "crops --device cuda without a GPU runs on the CPU and says so");
    }
    device = "";
    test_split_errors();
    test_all_or_nothing();
    test_crops_errors();
    test_crops_header_sizes();
    test_crops_many();
    test_crops_memory(); /* last: it reads the largest size of any child so far */
    tool_finish();
    TEST_MAIN_END();
}
