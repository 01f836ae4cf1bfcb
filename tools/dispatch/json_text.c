/* See json_text.h. */
#include "json_text.h"

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* The position after the whitespace and comments that start at i; block
 * comments are not blanked here, only skipped. */
static size_t skip_blank(const char *t, size_t len, size_t i) {
    for (;;) {
        while (i < len && is_space(t[i])) i++;
        if (i + 1 < len && t[i] == '/' && t[i + 1] == '/') {
            while (i < len && t[i] != '\n') i++;
        } else if (i + 1 < len && t[i] == '/' && t[i + 1] == '*') {
            size_t j = i + 2;
            while (j + 1 < len && !(t[j] == '*' && t[j + 1] == '/')) j++;
            if (j + 1 >= len) return len;
            i = j + 2;
        } else {
            return i;
        }
    }
}

static void position(const char *t, size_t at, int *line, int *column) {
    int l = 1, c = 1;
    for (size_t i = 0; i < at; i++) {
        if (t[i] == '\n') l++, c = 1;
        else c++;
    }
    *line = l;
    *column = c;
}

bool json_text_relax(char *t, size_t len, int *line, int *column) {
    size_t i = 0;
    /* The last character outside comments and blanks: a comma right after
     * an opening bracket or another comma ends no member or element, so it
     * is no trailing comma and stays for the parser to refuse. */
    char last = '\0';
    while (i < len) {
        const char c = t[i], prev = last;
        if (!is_space(c) && !(c == '/' && i + 1 < len && (t[i + 1] == '/' || t[i + 1] == '*'))) last = c;
        if (c == '"') {
            /* A string runs to the next unescaped quote (or, if malformed,
             * to the end of the line, where the parser will complain). */
            i++;
            while (i < len && t[i] != '"' && t[i] != '\n') i += t[i] == '\\' && i + 1 < len ? 2 : 1;
            i++;
        } else if (c == '/' && i + 1 < len && t[i + 1] == '/') {
            while (i < len && t[i] != '\n') t[i++] = ' ';
        } else if (c == '/' && i + 1 < len && t[i + 1] == '*') {
            size_t j = i + 2;
            while (j + 1 < len && !(t[j] == '*' && t[j + 1] == '/')) j++;
            if (j + 1 >= len) {
                position(t, i, line, column);
                return false;
            }
            for (size_t k = i; k < j + 2; k++)
                if (t[k] != '\n' && t[k] != '\r') t[k] = ' ';
            i = j + 2;
        } else if (c == ',') {
            const size_t next = skip_blank(t, len, i + 1);
            const bool follows_value = prev != '{' && prev != '[' && prev != ',';
            if (follows_value && next < len && (t[next] == ']' || t[next] == '}')) t[i] = ' ';
            i++;
        } else {
            i++;
        }
    }
    return true;
}
