/* DxDispatch models (DirectML's JSON format for resources, dispatchables and
 * commands), read and checked without running anything. Only what dmlslice
 * can run is accepted: buffer resources and the slice operators (SLICE,
 * SLICE1, SLICE_GRAD); anything else is an error that names it. See
 * docs/dispatch.md for the format and what is supported.
 *
 * Every error names the place in the model as a JSON path, e.g.
 *   $.dispatchables.slice.desc.Sizes[2]: expected an unsigned integer
 * and a syntax error carries the line and column. */
#ifndef DMLSLICE_TOOLS_DISPATCH_MODEL_H
#define DMLSLICE_TOOLS_DISPATCH_MODEL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dmlslice/dml.h"
#include "reach.h"

#define MODEL_ERR_LEN 1024

/* What a model may make this process hold, checked as it is read, before
 * anything is allocated: its resources' bytes (sizeInBytes) together, and
 * the bytes their initializers write together (file initializers
 * included). */
#define MODEL_MAX_RESOURCE_BYTES ((uint64_t)4 << 30)
#define MODEL_MAX_INITIAL_BYTES ((uint64_t)1 << 30)

typedef enum model_init_kind {
    INIT_ARRAY,    /* [1, 2, 3] */
    INIT_CONSTANT, /* { "valueCount": n, "value": v } */
    INIT_SEQUENCE, /* { "valueCount": n, "valueStart": a, "valueDelta": d } */
    INIT_LIST,     /* [{ "type": "UINT32", "value": 6 }, ...] with initialValuesDataType UNKNOWN */
    INIT_FILE      /* { "sourcePath": "x.npy" } (.npy or raw bytes) */
} model_init_kind;

typedef struct model_resource {
    char *name;
    DML_TENSOR_DATA_TYPE dtype;  /* initialValuesDataType (a .npy file's own type if absent) */
    model_init_kind kind;
    const json_t *values;        /* ARRAY and LIST: the JSON array; CONSTANT/SEQUENCE: the object */
    uint32_t count;              /* CONSTANT and SEQUENCE: valueCount */
    unsigned char *file_data;    /* FILE: the data bytes */
    uint64_t initial_bytes;      /* bytes the initializer writes */
    uint64_t offset;             /* initialValuesOffsetInBytes */
    uint64_t size;               /* sizeInBytes, computed as DxDispatch does when absent */
} model_resource;

/* A buffer bound to one of an operator's tensors. */
typedef struct model_binding {
    int resource;                /* index into model.resources */
    uint64_t offset;             /* bytes: elementOffset * element size */
} model_binding;

typedef struct model_dispatchable {
    char *name;
    const char *type_name;       /* "DML_OPERATOR_SLICE", ... */
    const char *tensor_names[2]; /* the bind points: input, output */
    DML_OPERATOR_DESC op;        /* points into the fields below */
    DML_TENSOR_DESC tensors[2];
    DML_BUFFER_TENSOR_DESC buffers[2];
    UINT *arrays[7];             /* tensor sizes/strides, window arrays: owned */
    union {
        DML_SLICE_OPERATOR_DESC slice;
        DML_SLICE1_OPERATOR_DESC slice1;
        DML_SLICE_GRAD_OPERATOR_DESC grad;
    } desc;
} model_dispatchable;

typedef enum model_command_kind { CMD_DISPATCH, CMD_PRINT, CMD_WRITE_FILE } model_command_kind;

typedef struct model_command {
    model_command_kind kind;
    char where[48];              /* "$.commands[3]", for messages */
    int dispatchable;            /* DISPATCH */
    model_binding bindings[2];   /* DISPATCH: input, output */
    int resource;                /* PRINT, WRITE_FILE */
    bool verbose;                /* PRINT */
    char *target_path;           /* WRITE_FILE, as written in the model */
    uint32_t *dimensions;        /* WRITE_FILE (.npy): NULL = one dimension */
    size_t dimension_count;
} model_command;

typedef struct model {
    json_t *root;
    model_resource *resources;
    size_t resource_count;
    model_dispatchable *dispatchables;
    size_t dispatchable_count;
    model_command *commands;
    size_t command_count;
} model;

/* Reads a model from text (len bytes; modified in place: comments and
 * trailing commas are blanked). base_dir is the model's folder as the start
 * of its path, separator included ("models/", "C:\m\"; "" for the
 * current folder: platform.h's dmls_path_folder_len): a relative file
 * initializer is looked up there first, then in the current folder, as
 * DxDispatch does, and read only beneath reach's folders; base_dir or reach
 * NULL reads no files (a file initializer is then an error). name is the
 * model's name for messages. On failure returns false with err
 * (MODEL_ERR_LEN bytes) set and *m empty. */
bool model_read(char *text, size_t len, const char *name, const char *base_dir, const model_reach *reach, model *m,
                char *err);

/* Releases everything model_read made. Safe on a zeroed or failed model. */
void model_free(model *m);

/* Writes the initial contents of resource r into buf, which holds r->size
 * zero bytes (the zero fill past the initial values is DxDispatch's). */
void model_fill(const model_resource *r, unsigned char *buf);

#endif
