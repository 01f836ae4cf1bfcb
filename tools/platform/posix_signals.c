/* The signal handling of posix_files.c (see posix_signals.h): mapping
 * guards, the removal of temporary files, the file-size limit, broken
 * pipes. */
#define _GNU_SOURCE /* MAP_ANONYMOUS under -std=c11 */
#define _DARWIN_C_SOURCE
#include "posix_signals.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "platform.h"

/* Handlers use only async-signal-safe calls (unlinkat, linkat, renameat,
 * fstatat, mmap, sigaction, raise), relative to the folders the atomic
 * files hold open. */

#define SLOTS 4

static struct {
    char *volatile base;
    volatile size_t len;
    volatile int prot;
    volatile sig_atomic_t active;
    atomic_int faulted; /* set by handlers on several threads at once: lock-free, so signal-safe */
} slots[SLOTS];
static uintptr_t page_mask;
static int bus_installed;

static void cleanup_now(void);

static void on_bus(int sig, siginfo_t *si, void *ctx) {
    (void)ctx;
    const uintptr_t a = (uintptr_t)si->si_addr;
    for (int k = 0; k < SLOTS; k++) {
        const uintptr_t base = (uintptr_t)slots[k].base;
        if (!slots[k].active || a < base || a - base >= slots[k].len) continue;
        const uintptr_t page = a & ~page_mask, end = base + slots[k].len;
        /* Zero pages from the fault to the range's end: later reads (or
         * writes) there no longer fault, and the flag reports the loss. */
        if (mmap((void *)page, end - page, slots[k].prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
            MAP_FAILED) {
            atomic_store_explicit(&slots[k].faulted, 1, memory_order_relaxed);
            return;
        }
    }
    /* A fault outside every guard is a bug: clean up, then let it kill us
     * (the faulting instruction runs again under the default action). */
    cleanup_now();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
}

int posix_guard_range(void *addr, size_t len, int writable) {
    if (!bus_installed) {
        page_mask = (uintptr_t)dmls_page_size() - 1;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_bus;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGBUS, &sa, NULL) != 0) return -1;
        bus_installed = 1;
    }
    for (int k = 0; k < SLOTS; k++) {
        if (slots[k].active) continue;
        slots[k].base = addr;
        slots[k].len = len;
        slots[k].prot = writable ? PROT_READ | PROT_WRITE : PROT_READ;
        atomic_store_explicit(&slots[k].faulted, 0, memory_order_relaxed);
        slots[k].active = 1;
        return k;
    }
    return -1;
}

int posix_guard_faulted(int slot) {
    return slot >= 0 && slot < SLOTS && atomic_load_explicit(&slots[slot].faulted, memory_order_relaxed);
}

void posix_unguard_range(int slot) {
    if (slot >= 0 && slot < SLOTS) slots[slot].active = 0;
}

/* The temporary files' names a signal removes: one per output on its way
 * (split writes many at once). A slot holds the file's own tmp_name and
 * its folder, both published before the pointer, which is cleared before
 * the name is freed. */
#define PENDING 1024
static char *volatile pending[PENDING];
static volatile int pending_dir[PENDING];
static int cleanup_installed;

/* Every signal whose default action ends the process and that a handler
 * can catch, except the synchronous faults (SIGSEGV, SIGILL, SIGFPE) that
 * sanitizers and debuggers own; SIGBUS cleans up in on_bus. */
static const int terminating[] = {
    SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF,
    SIGABRT, SIGSYS, SIGTRAP,
#ifdef SIGPOLL
    SIGPOLL,
#endif
#ifdef SIGPWR
    SIGPWR,
#endif
#ifdef SIGSTKFLT
    SIGSTKFLT,
#endif
};

/* Armed undoable commits, each published whole before its pointer and
 * cleared before it is freed. */
static posix_undo *volatile undos[PENDING];

/* Moves from to the name to in the folder dir without replacing anything
 * there (a file system without hard links: a rename, only while to is
 * free). */
static void put_back(int dir, const char *from, const char *to) {
    if (linkat(dir, from, dir, to, 0) == 0) {
        unlinkat(dir, from, 0);
        return;
    }
    const int e = errno;
    struct stat st;
    if (e != EEXIST && fstatat(dir, to, &st, AT_SYMLINK_NOFOLLOW) != 0) renameat(dir, from, dir, to);
}

void posix_undo_now(const posix_undo *u) {
    /* Moved aside first, so that what is removed is what was checked. */
    if (renameat(u->dir, u->final_name, u->dir, u->aside_name) == 0) {
        struct stat st;
        if (fstatat(u->dir, u->aside_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (uint64_t)st.st_dev == u->dev &&
            (uint64_t)st.st_ino == u->ino)
            unlinkat(u->dir, u->aside_name, 0);
        else
            put_back(u->dir, u->aside_name, u->final_name); /* not ours: it stays */
    }
    if (u->backup_name) {
        put_back(u->dir, u->backup_name, u->final_name);
        unlinkat(u->dir, u->backup_name, 0); /* when the name is another's now */
    }
}

static void cleanup_now(void) {
    const int saved = errno;
    for (int k = PENDING - 1; k >= 0; k--) { /* the newest first */
        posix_undo *u = undos[k];
        undos[k] = NULL;
        if (u) posix_undo_now(u);
    }
    for (int k = 0; k < PENDING; k++) {
        char *name = pending[k];
        pending[k] = NULL;
        if (name) unlinkat(pending_dir[k], name, 0);
    }
    errno = saved;
}

static void on_terminate(int sig) {
    cleanup_now();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    raise(sig); /* delivered with the default action once this returns */
}

void posix_keep_on_signal(const char *name) {
    for (int k = 0; name && k < PENDING; k++)
        if (pending[k] == name) pending[k] = NULL;
}

/* The handlers, installed once: each blocks the other signals while it
 * cleans up, so that a second one cannot cut an undo short. */
static void install_cleanup(void) {
    if (cleanup_installed) return;
    cleanup_installed = 1;
    for (size_t k = 0; k < sizeof terminating / sizeof terminating[0]; k++) {
        struct sigaction old, sa;
        if (sigaction(terminating[k], NULL, &old) != 0) continue;
        /* Only signals at their default action: one ignored at start (nohup)
         * stays ignored. */
        if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_terminate;
        sigfillset(&sa.sa_mask);
        sigaction(terminating[k], &sa, NULL);
    }
}

int posix_remove_on_signal(int dir, char *name) {
    int slot = 0;
    while (slot < PENDING && pending[slot] != NULL) slot++;
    if (slot == PENDING) return ENFILE;
    pending_dir[slot] = dir;
    pending[slot] = name;
    install_cleanup();
    return 0;
}

int posix_undo_on_signal(posix_undo *u) {
    int slot = 0;
    while (slot < PENDING && undos[slot] != NULL) slot++;
    if (slot == PENDING) return ENFILE;
    undos[slot] = u;
    install_cleanup();
    return 0;
}

void posix_undo_keep(const posix_undo *u) {
    for (int k = 0; u && k < PENDING; k++)
        if (undos[k] == u) undos[k] = NULL;
}

void posix_ignore_file_size_limit(void) {
    struct sigaction old;
    if (sigaction(SIGXFSZ, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL) {
        struct sigaction ign;
        memset(&ign, 0, sizeof ign);
        ign.sa_handler = SIG_IGN;
        sigemptyset(&ign.sa_mask);
        sigaction(SIGXFSZ, &ign, NULL);
    }
}

void dmls_ignore_broken_pipe(void) {
    struct sigaction old;
    /* on_terminate stands in for the default action (the tool set it, not
     * the caller): a closed pipe is then an error, its outputs taken back. */
    if (sigaction(SIGPIPE, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
        (old.sa_handler == SIG_DFL || old.sa_handler == on_terminate))
        signal(SIGPIPE, SIG_IGN);
}

