/* Element values of DxDispatch models: data type names, JSON numbers
 * converted to each DirectML data type the way DxDispatch converts them,
 * and elements formatted the way its print command shows them. */
#ifndef DMLSLICE_TOOLS_DISPATCH_VALUES_H
#define DMLSLICE_TOOLS_DISPATCH_VALUES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dmlslice/dml.h"

/* "FLOAT32" or "DML_TENSOR_DATA_TYPE_FLOAT32" (and every other
 * DML_TENSOR_DATA_TYPE, UNKNOWN included). False for any other text. */
bool values_parse_dtype(const char *text, DML_TENSOR_DATA_TYPE *type);

/* The short name ("FLOAT32"); "UNKNOWN" for UNKNOWN or a value not listed. */
const char *values_dtype_name(DML_TENSOR_DATA_TYPE type);

/* Bytes per element: 1, 2, 4 or 8; 0 for UNKNOWN and the 4-bit types. */
size_t values_dtype_size(DML_TENSOR_DATA_TYPE type);

/* One element: out receives values_dtype_size(type) bytes. Floating types
 * take any JSON number or the strings "nan", "inf", "-inf" (any case); the
 * integer types take a JSON integer within their range. On failure writes
 * why (e.g. "300 does not fit UINT8 (0 to 255)") into why (200 bytes). */
bool values_parse(const json_t *value, DML_TENSOR_DATA_TYPE type, unsigned char *out, char *why);

/* The element after prev in a sequence: prev + delta in the data type's
 * own arithmetic (integers wrap as DxDispatch's C++ additions do; FLOAT16
 * rounds to the nearest half after each step). */
void values_step(DML_TENSOR_DATA_TYPE type, unsigned char *value, const unsigned char *delta);

/* Writes one element as DxDispatch's print does (floats like C++ streams,
 * %g; integers in decimal). */
void values_print(FILE *f, DML_TENSOR_DATA_TYPE type, const unsigned char *element);

/* IEEE half <-> single conversions (round to nearest even). */
uint16_t values_float_to_half(float f);
float values_half_to_float(uint16_t h);

#endif
