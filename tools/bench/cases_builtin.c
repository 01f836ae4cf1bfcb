/* The canonical bench cases built in; see cases.h. cases_json.inc is made
 * at build time from bench/cases.json by tools/bench/embed_text.cmake. */
#include "cases.h"

static const char cases_json[] =
#include "cases_json.inc"
    ;

int bench_builtin_cases(bench_case **cases, int *count, char *err, size_t err_size) {
    return bench_parse_cases(cases_json, "the built-in bench/cases.json", cases, count, err, err_size);
}
