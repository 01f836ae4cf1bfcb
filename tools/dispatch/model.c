/* See model.h. The reader is in three parts: this file reads the root and
 * the commands, model_resources.c the resources, model_dispatchables.c the
 * operators; model_reader.c reads JSON values with their paths. The format
 * and DxDispatch's defaults are summarized in docs/dispatch.md; where
 * DxDispatch would silently read past an array or ignore a misspelt field,
 * this reader says so instead. */
#include "model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "json_text.h"
#include "model_reader.h"
#include "values.h"

/* ------------------------------------------------------------ commands */

static bool read_binding_source(reader *r, const json_t *v, const char *p, model_binding *b) {
    static const char *const keys[] = {"name", "elementOffset", "elementSizeInBytes", "elementCount", "elementStride",
                                       "format", "counter", "counterOffsetBytes", "shape", NULL};
    const char *name;
    char q[PATH_CAP];
    uint64_t element_offset = 0, element_size = 0;
    bool has_size = false, present;
    if (json_is_string(v)) {
        name = json_string_value(v);
        snprintf(q, sizeof q, "%s", p);
    } else if (json_is_object(v)) {
        /* format, elementCount, elementStride, counter and shape shape the
         * views of HLSL and ONNX dispatchables; DirectML operators take only
         * the buffer and its offset, so they are accepted and unused, as in
         * DxDispatch. */
        if (!reader_only_keys(r, v, p, keys) || !reader_get_string(r, v, "name", p, true, &name) ||
            !reader_get_u64(r, v, "elementOffset", p, UINT64_MAX, &present, &element_offset) ||
            !reader_get_u64(r, v, "elementSizeInBytes", p, UINT64_MAX, &has_size, &element_size))
            return false;
        path_key(q, p, "name");
    } else {
        return reader_fail(r, p, "expected a resource name or a binding object, got %s", json_kind(v));
    }
    b->resource = model_find_resource(r->m, name);
    if (b->resource < 0) return reader_fail(r, q, "binds resource '%.100s', which the model does not define", name);
    /* The offset counts elements of the binding's size, else of the
     * resource's initialValuesDataType (0 for a list: no offset). */
    if (!has_size) element_size = values_dtype_size(r->m->resources[b->resource].dtype);
    if (element_size && element_offset > UINT64_MAX / element_size)
        return reader_fail(r, p, "elementOffset %" PRIu64 " * %" PRIu64 " bytes overflows 64 bits", element_offset,
                    element_size);
    b->offset = element_offset * element_size;
    return true;
}

static bool read_dispatch(reader *r, model_command *c, const json_t *obj, const char *p) {
    static const char *const keys[] = {"type", "dispatchable", "bindings", "threadGroupCount", NULL};
    const char *name;
    if (!reader_only_keys(r, obj, p, keys) || !reader_get_string(r, obj, "dispatchable", p, true, &name)) return false;
    char q[PATH_CAP];
    path_key(q, p, "dispatchable");
    c->dispatchable = model_find_dispatchable(r->m, name);
    if (c->dispatchable < 0) return reader_fail(r, q, "dispatches '%.100s', which the model does not define", name);
    const model_dispatchable *d = &r->m->dispatchables[c->dispatchable];
    const json_t *bindings = json_object_get(obj, "bindings");
    path_key(q, p, "bindings");
    if (!bindings) return reader_fail(r, q, "required field missing");
    if (!reader_get_object(r, bindings, q)) return false;
    bool bound[2] = {false, false};
    const char *point;
    const json_t *v;
    json_object_foreach((json_t *)bindings, point, v) {
        char bq[PATH_CAP];
        path_key(bq, q, point);
        int k = strcmp(point, d->tensor_names[0]) == 0 ? 0 : strcmp(point, d->tensor_names[1]) == 0 ? 1 : -1;
        if (k < 0)
            return reader_fail(r, bq, "%s has no tensor '%.80s' (its tensors: %s, %s)", d->type_name, point,
                        d->tensor_names[0], d->tensor_names[1]);
        if (json_is_array(v)) {
            if (json_array_size(v) != 1)
                return reader_fail(r, bq, "%s takes 1 resource, but %zu were bound", point, json_array_size(v));
            char first[PATH_CAP];
            path_index(first, bq, 0);
            memcpy(bq, first, sizeof bq);
            v = json_array_get(v, 0);
        }
        if (!read_binding_source(r, v, bq, &c->bindings[k])) return false;
        bound[k] = true;
    }
    for (int k = 0; k < 2; k++)
        if (!bound[k]) return reader_fail(r, q, "nothing bound to %s", d->tensor_names[k]);
    const json_t *groups = json_object_get(obj, "threadGroupCount");
    if (groups) {
        path_key(q, p, "threadGroupCount");
        if (!json_is_array(groups) || json_array_size(groups) != 3)
            return reader_fail(r, q, "expected an array of 3 integers (unused by DirectML operators)");
    }
    return true;
}

static bool read_command(reader *r, model_command *c, const json_t *obj, const char *p) {
    const char *type, *res;
    if (!reader_get_object(r, obj, p) || !reader_get_string(r, obj, "type", p, true, &type)) return false;
    char q[PATH_CAP];
    if (ascii_equal_nocase(type, "dispatch")) {
        c->kind = CMD_DISPATCH;
        return read_dispatch(r, c, obj, p);
    }
    static const char *const print_keys[] = {"type", "resource", "verbose", NULL};
    static const char *const write_keys[] = {"type", "resource", "targetPath", "dimensions", NULL};
    if (ascii_equal_nocase(type, "print")) c->kind = CMD_PRINT;
    else if (ascii_equal_nocase(type, "writeFile")) c->kind = CMD_WRITE_FILE;
    else {
        path_key(q, p, "type");
        return reader_fail(r, q, "unknown command type \"%.60s\" (dispatch, print or writeFile)", type);
    }
    if (!reader_only_keys(r, obj, p, c->kind == CMD_PRINT ? print_keys : write_keys) ||
        !reader_get_string(r, obj, "resource", p, true, &res))
        return false;
    path_key(q, p, "resource");
    c->resource = model_find_resource(r->m, res);
    if (c->resource < 0)
        return reader_fail(r, q, "%s resource '%.100s', which the model does not define",
                    c->kind == CMD_PRINT ? "prints" : "writes", res);
    if (c->kind == CMD_PRINT) {
        const json_t *verbose = json_object_get(obj, "verbose");
        path_key(q, p, "verbose");
        if (verbose && !json_is_boolean(verbose)) return reader_fail(r, q, "expected true or false");
        c->verbose = json_is_true(verbose);
        return true;
    }
    const char *target;
    if (!reader_get_string(r, obj, "targetPath", p, true, &target)) return false;
    c->target_path = text_copy(target);
    if (!c->target_path) return reader_fail(r, p, "out of memory");
    const json_t *dims = json_object_get(obj, "dimensions");
    if (dims) {
        path_key(q, p, "dimensions");
        size_t n;
        UINT *a;
        if (!reader_get_int_array(r, dims, q, false, &a, &n)) return false;
        c->dimensions = a;
        c->dimension_count = n;
    }
    return true;
}

/* ------------------------------------------------------------ model */

static bool read_root(reader *r, const json_t *root) {
    static const char *const keys[] = {"$schema", "resources", "dispatchables", "commands", NULL};
    model *m = r->m;
    if (!reader_get_object(r, root, "$") || !reader_only_keys(r, root, "$", keys)) return false;
    const json_t *resources = json_object_get(root, "resources"), *dispatchables = json_object_get(root, "dispatchables"),
                 *commands = json_object_get(root, "commands");
    if (!resources) return reader_fail(r, "$.resources", "required field missing");
    if (!reader_get_object(r, resources, "$.resources")) return false;
    if (!dispatchables) return reader_fail(r, "$.dispatchables", "required field missing");
    if (!reader_get_object(r, dispatchables, "$.dispatchables")) return false;
    if (!commands) return reader_fail(r, "$.commands", "required field missing");
    if (!json_is_array(commands)) return reader_fail(r, "$.commands", "expected an array, got %s", json_kind(commands));

    m->resources = calloc(json_object_size(resources) + 1, sizeof *m->resources);
    m->dispatchables = calloc(json_object_size(dispatchables) + 1, sizeof *m->dispatchables);
    m->commands = calloc(json_array_size(commands) + 1, sizeof *m->commands);
    if (!m->resources || !m->dispatchables || !m->commands) return reader_fail(r, "$", "out of memory");
    const char *key;
    const json_t *v;
    char p[PATH_CAP];
    json_object_foreach((json_t *)resources, key, v) {
        path_key(p, "$.resources", key);
        if (!model_read_resource(r, &m->resources[m->resource_count++], key, v, p)) return false;
    }
    json_object_foreach((json_t *)dispatchables, key, v) {
        path_key(p, "$.dispatchables", key);
        if (!model_read_dispatchable(r, &m->dispatchables[m->dispatchable_count++], key, v, p)) return false;
    }
    for (size_t i = 0; i < json_array_size(commands); i++) {
        model_command *c = &m->commands[m->command_count++];
        path_index(p, "$.commands", i);
        snprintf(c->where, sizeof c->where, "$.commands[%zu]", i);
        if (!read_command(r, c, json_array_get(commands, i), p)) return false;
    }
    return true;
}

bool model_read(char *text, size_t len, const char *name, const char *base_dir, const model_reach *reach, model *m,
                char *err) {
    memset(m, 0, sizeof *m);
    err[0] = '\0';
    int line, column;
    if (!json_text_relax(text, len, &line, &column)) {
        snprintf(err, MODEL_ERR_LEN, "%s:%d:%d: JSON syntax error: a /* comment is never closed", name, line, column);
        return false;
    }
    json_error_t je;
    /* Duplicate names would make "which resource?" ambiguous; DxDispatch's
     * parser keeps both and looks up one of them. */
    m->root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!m->root) {
        snprintf(err, MODEL_ERR_LEN, "%s:%d:%d: JSON syntax error: %s", name, je.line, je.column, je.text);
        return false;
    }
    reader r = {err, name, base_dir, reach, m, 0, 0};
    if (!read_root(&r, m->root)) {
        model_free(m);
        return false;
    }
    return true;
}

void model_free(model *m) {
    for (size_t i = 0; i < m->resource_count; i++) {
        free(m->resources[i].name);
        free(m->resources[i].file_data);
    }
    for (size_t i = 0; i < m->dispatchable_count; i++) {
        free(m->dispatchables[i].name);
        for (int k = 0; k < 7; k++) free(m->dispatchables[i].arrays[k]);
    }
    for (size_t i = 0; i < m->command_count; i++) {
        free(m->commands[i].target_path);
        free(m->commands[i].dimensions);
    }
    free(m->resources);
    free(m->dispatchables);
    free(m->commands);
    if (m->root) json_decref(m->root);
    memset(m, 0, sizeof *m);
}
