/* Signal handling for the tool's files; see signals.h. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, SA_SIGINFO under -std=c11 (glibc) */
#define _DARWIN_C_SOURCE
#include "signals.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ------------------------------------------------------------ mapping guards */

#define SLOTS 4

static struct {
    char *volatile base;
    volatile size_t len;
    volatile int prot;
    volatile sig_atomic_t active, faulted;
} slots[SLOTS];
static uintptr_t page_mask;
static bool bus_installed;

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
            slots[k].faulted = 1;
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

int sig_guard_range(void *addr, size_t len, bool writable) {
    if (!bus_installed) {
        page_mask = (uintptr_t)sysconf(_SC_PAGESIZE) - 1;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_bus;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGBUS, &sa, NULL) != 0) return -1;
        bus_installed = true;
    }
    for (int k = 0; k < SLOTS; k++) {
        if (slots[k].active) continue;
        slots[k].base = addr;
        slots[k].len = len;
        slots[k].prot = writable ? PROT_READ | PROT_WRITE : PROT_READ;
        slots[k].faulted = 0;
        slots[k].active = 1;
        return k;
    }
    return -1;
}

bool sig_guard_faulted(int slot) { return slot >= 0 && slot < SLOTS && slots[slot].faulted; }

void sig_unguard_range(int slot) {
    if (slot >= 0 && slot < SLOTS) slots[slot].active = 0;
}

/* ------------------------------------------------------------ temporary file cleanup */

static char pending[4096];
static volatile sig_atomic_t pending_set;
static bool cleanup_installed;

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

static void cleanup_now(void) {
    if (pending_set) unlink(pending);
    pending_set = 0;
}

static void on_terminate(int sig) {
    cleanup_now();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    raise(sig); /* delivered with the default action once this returns */
}

void sig_cleanup_file(const char *path) {
    pending_set = 0;
    if (path == NULL) return;
    snprintf(pending, sizeof pending, "%s", path);
    pending_set = 1;
    if (cleanup_installed) return;
    cleanup_installed = true;
    for (size_t k = 0; k < sizeof terminating / sizeof terminating[0]; k++) {
        struct sigaction old, sa;
        if (sigaction(terminating[k], NULL, &old) != 0) continue;
        /* Only signals at their default action: one ignored at start (nohup)
         * stays ignored. */
        if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_terminate;
        sigemptyset(&sa.sa_mask);
        sigaction(terminating[k], &sa, NULL);
    }
}

void sig_ignore_file_size_limit(void) {
    struct sigaction old;
    if (sigaction(SIGXFSZ, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL) {
        struct sigaction ign;
        memset(&ign, 0, sizeof ign);
        ign.sa_handler = SIG_IGN;
        sigemptyset(&ign.sa_mask);
        sigaction(SIGXFSZ, &ign, NULL);
    }
}
