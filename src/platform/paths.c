/* The user's cache folder and making folders (platform.h): the same on
 * every system but for what this file's two conditions say, over the one
 * call that differs, dmls_dir_make_one (posix.c, win32.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

#if defined(_WIN32)
#define SEPARATORS "/\\"
#define DRIVES 1 /* "C:\" names a drive, not a folder to make */
#else
#define SEPARATORS "/"
#define DRIVES 0
#endif

char *dmls_user_cache_dir(void) {
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME"), *sub = "";
    const char *base = xdg != NULL && (xdg[0] == '/' || (xdg[0] != '\0' && xdg[1] == ':')) ? xdg : NULL;
    if (base == NULL && home != NULL && home[0] != '\0') base = home, sub = "/.cache";
#if defined(_WIN32)
    if (base == NULL) base = getenv("LOCALAPPDATA"), sub = "";
#endif
    if (base == NULL) return NULL;
    const size_t n = strlen(base) + strlen(sub) + 1;
    char *path = malloc(n);
    if (path != NULL) snprintf(path, n, "%s%s", base, sub);
    return path;
}

int dmls_dirs_make(const char *path) {
    char *p = malloc(strlen(path) + 1);
    if (p == NULL) return ENOMEM;
    strcpy(p, path);
    int err = 0;
    /* Each folder from the top down; one that exists is no error. */
    for (char *at = p + 1; err == 0; at++) {
        const char c = *at;
        if (c != '\0' && strchr(SEPARATORS, c) == NULL) continue;
        if (DRIVES && c != '\0' && at[-1] == ':') continue;
        *at = '\0';
        err = dmls_dir_make_one(p);
        *at = c;
        if (c == '\0') break;
    }
    free(p);
    return err;
}
