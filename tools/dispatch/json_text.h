/* The JSON that DxDispatch accepts beyond RFC 8259: comments (// and block)
 * and trailing commas before a closing bracket or brace. Its parser allows
 * both, and its own guide's examples use them; Jansson allows neither, so
 * they are blanked out before parsing. */
#ifndef DMLSLICE_TOOLS_DISPATCH_JSON_TEXT_H
#define DMLSLICE_TOOLS_DISPATCH_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Replaces every comment and every trailing comma (one after a member or
 * element, before a closing bracket or brace) in text[0..len) with spaces,
 * in place; a comma with no member or element before it ("{,}", "[1,,]")
 * is left for the parser to refuse. Newlines inside block comments are kept and nothing
 * moves, so the line and column of any later syntax error are those of the
 * file as written. Strings are left alone. Returns false only for a block
 * comment that never ends, with *line and *column (1-based) where it began. */
bool json_text_relax(char *text, size_t len, int *line, int *column);

#endif
