/* The DxDispatch model reader and runner (tools/dispatch/) on arbitrary
 * bytes: it must accept or refuse with a message, never crash, leak, hang
 * or touch anything outside its folders. Models run in a sandbox folder of
 * their own, which is the current folder too, holding what a hostile model
 * would aim at: regular files (raw and .npy), a FIFO, links inside, out
 * and to nothing, and a folder. File initializers read there, writeFile
 * writes there (with -f, so replacing runs too), and the sandbox is put
 * back as it was after every input. Seeds: the shipped models under
 * examples/dispatch/ and fuzz/model_seeds/ (which name the sandbox's files).
 *
 * The target changes its current folder: give libFuzzer absolute paths for
 * its corpus and artifacts (fuzz/run.sh does). POSIX only, like libFuzzer
 * builds here. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, mkfifo, symlink */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"
#include "model.h"
#include "reach.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char sandbox[] = "/tmp/dmlslice-fuzz-model-XXXXXX";
static model_reach reach;

static void put(const char *name, const void *bytes, size_t n) {
    FILE *f = fopen(name, "wb");
    if (f == NULL || fwrite(bytes, 1, n, f) != n || fclose(f) != 0) abort();
}

/* Removes what folder holds but the FIFO and the folder sub. */
static void clear(const char *folder) {
    DIR *d = opendir(folder);
    if (d == NULL) abort();
    char path[512];
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || strcmp(e->d_name, "fifo") == 0 ||
            strcmp(e->d_name, "sub") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        unlink(path);
    }
    closedir(d);
}

/* The files and links are made again, so a replaced one is back for the
 * next input. */
static void reset_sandbox(void) {
    clear(".");
    clear("sub");
    static const unsigned char raw[16] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0};
    static const char npy[] = "\x93NUMPY\x01\x00\x76\x00{'descr': '<u2', 'fortran_order': False, 'shape': (2, 2), }";
    unsigned char file[128 + 8];
    memset(file, ' ', 128);
    memcpy(file, npy, sizeof npy - 1);
    file[127] = '\n';
    memcpy(file + 128, "\x05\x00\x06\x00\x07\x00\x08\x00", 8);
    put("a.bin", raw, sizeof raw);
    put("a.npy", file, sizeof file);
    if (symlink("a.bin", "link.bin") != 0 || symlink("/etc/passwd", "out.bin") != 0 ||
        symlink("nowhere", "dangling.bin") != 0 || symlink("/tmp", "out_dir") != 0)
        abort();
}

/* The FIFO's reader, so that a writeFile to it is drained, never stuck.
 * Opened for reading and writing, it never waits for a writer nor sees the
 * end of the data. */
static void *drain(void *arg) {
    (void)arg;
    const int fd = open("fifo", O_RDWR);
    char buf[4096];
    while (fd >= 0 && read(fd, buf, sizeof buf) >= 0) {}
    return NULL;
}

static void remove_sandbox(void) {
    clear("sub");
    clear(".");
    rmdir("sub");
    unlink("fifo");
    if (chdir("/") == 0) rmdir(sandbox);
    reach_free(&reach);
}

static void make_sandbox(void) {
    char why[REACH_WHY_LEN];
    pthread_t reader;
    if (mkdtemp(sandbox) == NULL || chdir(sandbox) != 0 || mkfifo("fifo", 0600) != 0 || mkdir("sub", 0700) != 0)
        abort();
    reset_sandbox();
    if (!reach_init(&reach, "", NULL, why)) abort();
    atexit(remove_sandbox);
    /* The reader lives as long as the process. */
    if (pthread_create(&reader, NULL, drain, NULL) != 0 || pthread_detach(reader) != 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready;
    if (!ready) {
        make_sandbox();
        ready = 1;
    }
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    model m;
    char err[MODEL_ERR_LEN];
    if (model_read(text, size, "fuzz", "", &reach, &m, err)) {
        uint64_t total = 0;
        for (size_t i = 0; i < m.resource_count; i++) total += m.resources[i].size;
        if (total <= (1u << 20)) {
            FILE *sink = fopen("/dev/null", "w");
            if (sink) {
                const execute_options o = {DML_FEATURE_LEVEL_6_4, false, sink, "fuzz", "fuzz.json", true, &reach};
                model_execute(&m, &o, err);
                fclose(sink);
            }
        }
        model_free(&m);
        reset_sandbox();
    } else if (err[0] == '\0') {
        abort(); /* a refusal always says why */
    }
    free(text);
    return 0;
}
