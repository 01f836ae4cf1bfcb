/* What the model reader's parts share (model.c: the root and the commands;
 * model_resources.c; model_dispatchables.c): the reader's state, and JSON
 * values read with their place in the model, as a JSON path such as
 * $.dispatchables.s.desc.Sizes[2], named in every message. Internal to
 * tools/dispatch/. */
#ifndef DMLSLICE_TOOLS_DISPATCH_MODEL_READER_H
#define DMLSLICE_TOOLS_DISPATCH_MODEL_READER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* Room for a JSON path in a message. */
#define PATH_CAP 512

typedef struct reader {
    char *err;
    const char *name;
    const char *base_dir;
    const model_reach *reach;
    model *m;
    uint64_t initial_total; /* initial values' bytes so far */
    uint64_t size_total;    /* resources' bytes so far */
} reader;

/* Sets r->err to "NAME: PATH: message" and returns false. */
bool reader_fail(reader *r, const char *path, const char *fmt, ...);

/* A malloc'd copy (strdup is POSIX, not C11). */
char *text_copy(const char *s);

/* "$.a.b", or "$.a["odd name"]" for a key that is not an identifier; and
 * "$.a[3]". dst holds PATH_CAP bytes. */
void path_key(char *dst, const char *parent, const char *key);
void path_index(char *dst, const char *parent, size_t i);

/* "an object", "an integer", ...: what v is, for messages. */
const char *json_kind(const json_t *v);

/* Each returns false with the message set when the value is not what is
 * asked for; a missing optional field is no failure. */
bool reader_only_keys(reader *r, const json_t *obj, const char *path, const char *const *keys);
bool reader_get_object(reader *r, const json_t *v, const char *path);
bool reader_get_string(reader *r, const json_t *obj, const char *key, const char *path, bool required,
                       const char **out);
bool reader_as_u64(reader *r, const json_t *v, const char *p, uint64_t max, uint64_t *out);
bool reader_get_u64(reader *r, const json_t *obj, const char *key, const char *path, uint64_t max, bool *present,
                    uint64_t *out);
bool reader_get_int_array(reader *r, const json_t *v, const char *p, bool is_signed, UINT **out, size_t *n);
bool reader_get_dtype(reader *r, const json_t *v, const char *p, DML_TENSOR_DATA_TYPE *type);

/* model_resources.c and model_dispatchables.c: one entry of "resources" or
 * "dispatchables", and a name's index (-1 when the model has none). */
bool model_read_resource(reader *r, model_resource *res, const char *name, const json_t *obj, const char *p);
int model_find_resource(const model *m, const char *name);
bool model_read_dispatchable(reader *r, model_dispatchable *d, const char *name, const json_t *obj, const char *p);
int model_find_dispatchable(const model *m, const char *name);

#endif
