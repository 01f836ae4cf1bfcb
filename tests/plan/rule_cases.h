/* Rule cases as table rows: a valid descriptor broken by a write or two into
 * named fields, the status it must get, and what the message must say. The
 * rule tests (plan/test_rules.c) and the API edge tests (api/test_api.c)
 * share it, so that a case is one row wherever it is written. */
#ifndef DMLS_PLAN_RULE_CASES_H
#define DMLS_PLAN_RULE_CASES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "support/dml_fixture.h"
#include "support/test.h"

typedef struct field_write {
    size_t at, size; /* size 0: no write */
    uint64_t value;  /* stored at the field's own width, so signed and unsigned alike */
} field_write;
#define FIELD_SET(type, field, v) {offsetof(type, field), sizeof(((type *)0)->field), (uint64_t)(v)}

/* A pointer is written as zero bytes: NULL on every platform the library
 * builds for. */
static inline void field_write_apply(void *base, const field_write *w) {
    unsigned char *at = (unsigned char *)base + w->at;
    if (w->size == sizeof(uint32_t)) {
        const uint32_t v = (uint32_t)w->value;
        memcpy(at, &v, sizeof v);
    } else if (w->size == sizeof(uint64_t)) {
        memcpy(at, &w->value, sizeof w->value);
    } else if (w->size != 0) {
        CHECK(false, "a table write of %zu bytes: only 4 and 8 are written", w->size);
    }
}

enum { RULE_FRAGS = 5 };

/* CHECK_MESSAGE for a rule held in a variable (the macro pastes a literal). */
static inline void check_rule_message(const char *rule, const char *const frags[RULE_FRAGS]) {
    char tag[40];
    snprintf(tag, sizeof tag, "(%s)", rule);
    CHECK(strcmp(dmls_last_error_rule(), rule) == 0, "rule %s, expected %s (message: %s)", dmls_last_error_rule(), rule,
          dmls_last_error());
    CHECK(strstr(dmls_last_error(), tag) != NULL, "message lacks %s: %s", tag, dmls_last_error());
    for (int k = 0; k < RULE_FRAGS && frags[k]; k++)
        CHECK(strstr(dmls_last_error(), frags[k]) != NULL, "%s case: message lacks \"%s\": %s", rule, frags[k],
              dmls_last_error());
}

/* A DirectML descriptor's case: support/dml_fixture.h's valid one, then the writes. */
typedef struct rule_case {
    const char *rule;
    DML_OPERATOR_TYPE type;
    DML_FEATURE_LEVEL level;
    dmls_status want;
    UINT rank; /* fixture_rank before the writes; 0 keeps 4 */
    field_write set[4];
    bool resize;                   /* fixture_sizes after the writes */
    const char *frags[RULE_FRAGS]; /* on an error, the message holds each (up to a NULL) */
} rule_case;
#define SET(field, v) FIELD_SET(fixture, field, v)
#define SET_NULL(field) SET(field, 0)

/* Runs rows[0..n) whose rule is `rule`, checking that a failed create hands
 * back no operator; the number run. */
static inline int run_rule_cases(const rule_case *rows, size_t n, const char *rule) {
    int run = 0;
    for (size_t i = 0; i < n; i++) {
        const rule_case *c = &rows[i];
        if (strcmp(c->rule, rule) != 0) continue;
        fixture f;
        fixture_init(&f, c->type);
        if (c->rank) fixture_rank(&f, c->rank);
        for (size_t k = 0; k < sizeof c->set / sizeof c->set[0]; k++) field_write_apply(&f, &c->set[k]);
        if (c->resize) fixture_sizes(&f);
        dmls_operator *op = NULL;
        const dmls_status got = dmls_create_dml(&f.op, c->level, &op);
        CHECK(got == c->want && (got == DMLS_OK || op == NULL), "%s row %zu: %s, expected %s%s; message: %s", rule, i,
              dmls_status_name(got), dmls_status_name(c->want), got != DMLS_OK && op ? " (and an operator)" : "",
              dmls_last_error());
        dmls_destroy(op);
        if (c->want != DMLS_OK) check_rule_message(rule, c->frags);
        run++;
    }
    return run;
}

#endif
