#!/bin/sh
# `dmlslice dispatch` end to end: every initializer, every command, the
# binding forms, and malformed models, each with the error it must give.
# Usage: check_models.sh DMLSLICE SCRATCH_DIR [SYSTEM]
# SYSTEM is CMake's name of the system the tool runs on (Windows adds its
# own path forms: backslashes).
set -eu
tool=$1 dir=$2 system=${3:-}
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
fail=0

# run NAME [OPTION...]: runs model NAME.json; stdout in NAME.out, stderr in NAME.err.
run() {
  rc=0
  n=$1; shift
  "$tool" dispatch "$n.json" "$@" >"$n.out" 2>"$n.err" || rc=$?
  set -- "$n"
  # A sanitizer build reports there; any report fails the case.
  if grep -q -e 'Sanitizer' -e 'runtime error' "$1.err"; then echo "$1: sanitizer report:"; cat "$1.err"; fail=1; fi
  return $rc
}
ok() { # NAME EXPECTED-STDOUT [OPTION...]
  name=$1 want=$2; shift 2
  if ! run "$name" "$@"; then echo "$name: failed: $(cat "$name.err")"; fail=1; return; fi
  [ "$(cat "$name.out")" = "$want" ] || { echo "$name: printed:"; cat "$name.out"; echo "expected:"; echo "$want"; fail=1; }
}
bad() { # NAME FRAGMENT...: exits 1, prints nothing, stderr has every fragment
  name=$1; shift
  if run "$name"; then echo "$name: accepted a bad model"; fail=1; return; fi
  [ -s "$name.out" ] && { echo "$name: printed on failure: $(cat "$name.out")"; fail=1; }
  for frag in "$@"; do
    grep -F -q -- "$frag" "$name.err" || { echo "$name: error lacks '$frag': $(cat "$name.err")"; fail=1; }
  done
}
# model NAME RESOURCES DISPATCHABLES COMMANDS
model() { printf '{ "resources": { %s }, "dispatchables": { %s }, "commands": [ %s ] }\n' "$2" "$3" "$4" >"$1.json"; }

SLICE1='"s": { "type": "SLICE1", "desc": { "InputTensor": { "DataType": "FLOAT32", "Sizes": [4] },
  "OutputTensor": { "DataType": "FLOAT32", "Sizes": [2] }, "DimensionCount": 1,
  "InputWindowOffsets": [1], "InputWindowSizes": [2], "InputWindowStrides": [1] } }'
IN='"in": { "initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3, 4] }'
OUT='"out": { "initialValuesDataType": "FLOAT32", "initialValues": { "valueCount": 2, "value": 0 } }'
DISPATCH='{ "type": "dispatch", "dispatchable": "s", "bindings": { "InputTensor": "in", "OutputTensor": "out" } }'
PRINT='{ "type": "print", "resource": "out" }'

# --- names and paths from a model reach the terminal escaped (ESC, BEL, C1 controls,
# bidirectional overrides; UTF-8 as it is), on stdout and in errors.
printf '{ "resources": { "\\u001b[31mred\\u009b": { "initialValuesDataType": "UINT8", "initialValues": [1] } },
  "dispatchables": {}, "commands": [ { "type": "print", "resource": "\\u001b[31mred\\u009b" },
  { "type": "writeFile", "resource": "\\u001b[31mred\\u009b", "targetPath": "esc\\u202e.bin" } ] }\n' >escaped.json
ok escaped "Resource '\\x1b[31mred\\xc2\\x9b': 1
Resource '\\x1b[31mred\\xc2\\x9b' written to 'esc\\xe2\\x80\\xae.bin'"
printf '{ "resources": {}, "dispatchables": {}, "commands": [ { "type": "print", "resource": "\\u001b]0;title\\u0007" } ] }\n' >escaped_error.json
bad escaped_error '\x1b]0;title\x07'
grep -q "$(printf '\033')" escaped_error.err && { echo "escaped_error: an ESC reached stderr"; fail=1; }

# --- initializers and print formats
model init_array "\"a\": { \"initialValuesDataType\": \"INT8\", \"initialValues\": [-128, 0, 127] }" "" '{ "type": "print", "resource": "a" }'
ok init_array "Resource 'a': -128, 0, 127"
model init_constant '"a": { "initialValuesDataType": "DML_TENSOR_DATA_TYPE_UINT16", "initialValues": { "valueCount": 3, "value": 65535 } }' "" '{ "type": "print", "resource": "a" }'
ok init_constant "Resource 'a': 65535, 65535, 65535"
model init_sequence '"a": { "initialValuesDataType": "FLOAT32", "initialValues": { "valueCount": 4, "valueStart": 1, "valueDelta": 2.5 } }' "" '{ "type": "print", "resource": "a" }'
ok init_sequence "Resource 'a': 1, 3.5, 6, 8.5"
model init_wrap '"a": { "initialValuesDataType": "UINT8", "initialValues": { "valueCount": 3, "valueStart": 254, "valueDelta": 1 } }' "" '{ "type": "print", "resource": "a" }'
ok init_wrap "Resource 'a': 254, 255, 0"
model init_half '"a": { "initialValuesDataType": "FLOAT16", "initialValues": [65504, -65504, 0.1, "nan", "inf", "-INF"] }' "" '{ "type": "print", "resource": "a", "verbose": true }'
ok init_half "Resource 'a':
[0] 65504 (0x7BFF)
[1] -65504 (0xFBFF)
[2] 0.0999756 (0x2E66)
[3] nan (0x7E00)
[4] inf (0x7C00)
[5] -inf (0xFC00)"
model init_int64 '"a": { "initialValuesDataType": "INT64", "initialValues": [-9223372036854775808, 9223372036854775807] }, "b": { "initialValuesDataType": "FLOAT64", "initialValues": [0.1, 1e300] }' "" '{ "type": "print", "resource": "a" }, { "type": "print", "resource": "b" }'
ok init_int64 "Resource 'a': -9223372036854775808, 9223372036854775807
Resource 'b': 0.1, 1e+300"
# A list: mixed types, written one after another; raw bytes come out of writeFile.
model init_list '"a": { "initialValuesDataType": "UNKNOWN", "initialValues": [ { "name": "n", "type": "UINT32", "value": 6 }, { "type": "INT8", "value": -1 } ], "sizeInBytes": 8 }' "" '{ "type": "writeFile", "resource": "a", "targetPath": "list.bin" }'
ok init_list "Resource 'a' written to 'list.bin'"
[ "$(od -An -tx1 list.bin | tr -d ' \n')" = "06000000ff000000" ] || { echo "init_list: list.bin holds $(od -An -tx1 list.bin)"; fail=1; }
# Zero fill past the initial values and initialValuesOffsetInBytes; print shows the initial count from byte 0.
model init_offset '"a": { "initialValuesDataType": "UINT8", "initialValues": [7, 8], "initialValuesOffsetInBytes": 2, "sizeInBytes": 6 }' "" '{ "type": "print", "resource": "a" }, { "type": "writeFile", "resource": "a", "targetPath": "offset.npy" }'
ok init_offset "Resource 'a': 0, 0
Resource 'a' written to 'offset.npy'"
[ "$(tail -c 6 offset.npy | od -An -tx1 | tr -d ' \n')" = "000007080000" ] || { echo "init_offset: offset.npy ends $(tail -c 6 offset.npy | od -An -tx1)"; fail=1; }
head -c 10 offset.npy | grep -q NUMPY || { echo "init_offset: offset.npy is not a .npy file"; fail=1; }
grep -a -q "'shape': (6,)" offset.npy || { echo "init_offset: offset.npy has the wrong shape"; fail=1; }
# Files: a .npy made by writeFile read back by a file initializer, and a raw file;
# a model that reads a file and then replaces it needs -f. writeFile's lines come
# last, once all of the model's files are in place.
printf '\001\000\002\000\003\000\004\000' > raw.bin
model init_files '"a": { "initialValuesDataType": "INT16", "initialValues": { "sourcePath": "raw.bin" } }, "b": { "initialValues": { "sourcePath": "roundtrip.npy" } }' "" '{ "type": "writeFile", "resource": "a", "targetPath": "roundtrip.npy", "dimensions": [2, 2] }, { "type": "print", "resource": "a" }'
model make_npy '"a": { "initialValuesDataType": "INT16", "initialValues": [5, -6, 7, -8] }' "" '{ "type": "writeFile", "resource": "a", "targetPath": "roundtrip.npy", "dimensions": [2, 2] }'
ok make_npy "Resource 'a' written to 'roundtrip.npy'"
ok init_files "Resource 'a': 1, 2, 3, 4
Resource 'a' written to 'roundtrip.npy'" -f
model read_npy '"b": { "initialValues": { "sourcePath": "roundtrip.npy" } }' "" '{ "type": "print", "resource": "b" }'
ok read_npy "Resource 'b': 1, 2, 3, 4"
# The model's own folder is searched first.
mkdir -p sub && printf '\011\000' > sub/here.bin
model sub/beside '"a": { "initialValuesDataType": "UINT16", "initialValues": { "sourcePath": "here.bin" } }' "" '{ "type": "print", "resource": "a" }'
ok sub/beside "Resource 'a': 9"
# Names beyond ASCII (UTF-8): the model, its folder, a file it reads beside it and one it writes.
utf8=$(printf 'donn\303\251es-\346\225\260')
mkdir -p "$utf8" && printf '\012\000' > "$utf8/$utf8.bin"
model "$utf8/$utf8" '"a": { "initialValuesDataType": "UINT16", "initialValues": { "sourcePath": "'"$utf8"'.bin" } }' "" \
  '{ "type": "print", "resource": "a" }, { "type": "writeFile", "resource": "a", "targetPath": "'"$utf8"'.npy" }'
ok "$utf8/$utf8" "Resource 'a': 10
Resource 'a' written to '$utf8.npy'"
# (the whole buffer: 2 bytes rounded up to 4)
[ "$(tail -c 4 "$utf8.npy" | od -An -tx1 | tr -d ' \n')" = "0a000000" ] || { echo "utf8: $utf8.npy was not written"; fail=1; }
# A file initializer by an absolute path is read there, not beside the model.
model sub/absolute '"a": { "initialValuesDataType": "INT16", "initialValues": { "sourcePath": "'"$(pwd)"'/raw.bin" } }' "" '{ "type": "print", "resource": "a" }'
[ "$system" = Windows ] || ok sub/absolute "Resource 'a': 1, 2, 3, 4"
if [ "$system" = Windows ]; then
  # Windows' own separator, in the model's path and in a file initializer's.
  mkdir -p sub/deeper && printf '\013\000' > sub/deeper/here.bin
  model sub/backslash '"a": { "initialValuesDataType": "UINT16", "initialValues": { "sourcePath": "here.bin" } }, "b": { "initialValuesDataType": "UINT16", "initialValues": { "sourcePath": "deeper\\here.bin" } }' "" '{ "type": "print", "resource": "a" }, { "type": "print", "resource": "b" }'
  rc=0
  "$tool" dispatch 'sub\backslash.json' >backslash.out 2>backslash.err || rc=$?
  [ $rc -eq 0 ] && [ "$(cat backslash.out)" = "Resource 'a': 9
Resource 'b': 11" ] || { printf 'backslash: exit %s, printed %s %s\n' $rc "$(cat backslash.out)" "$(cat backslash.err)"; fail=1; }
fi

# --- dispatch: names, binding objects with offsets, comments and trailing commas
model dispatch_basic "$IN, $OUT" "$SLICE1" "$DISPATCH, $PRINT"
ok dispatch_basic "Resource 'out': 2, 3"
# elementOffset counts elements of the resource's type: 4 FLOAT32 = 16 bytes, DirectML's alignment.
model binding_offset '"in": { "initialValuesDataType": "FLOAT32", "initialValues": { "valueCount": 8, "valueStart": 10, "valueDelta": 1 } }, '"$OUT" "$SLICE1" \
  '{ "type": "dispatch", "dispatchable": "s", "bindings": { "InputTensor": [ { "name": "in", "elementOffset": 4 } ], "OutputTensor": { "name": "out" } } }, '"$PRINT"
ok binding_offset "Resource 'out': 15, 16"
printf '{\n  // a comment\n  "resources": { %s, %s, }, /* another\n */ "dispatchables": { %s },\n  "commands": [ %s, %s, ],\n}\n' "$IN" "$OUT" "$SLICE1" "$DISPATCH" "$PRINT" > relaxed.json
ok relaxed "Resource 'out': 2, 3"
# Windows line ends (CRLF), comments among them: the same model; a syntax error's line and column are the file's.
printf '{\r\n  // a comment\r\n  "resources": { %s, %s, }, /* another\r\n */ "dispatchables": { %s },\r\n  "commands": [ %s, %s, ],\r\n}\r\n' "$IN" "$OUT" "$SLICE1" "$DISPATCH" "$PRINT" > crlf.json
ok crlf "Resource 'out': 2, 3"
printf '{\r\n  // a comment\r\n  "resources": {\r\n    "a": [1, 2,, 3]\r\n  }\r\n}\r\n' > crlf_syntax.json
# Commands run in order: print before and after the dispatch.
model in_order "$IN, $OUT" "$SLICE1" "$PRINT, $DISPATCH, $PRINT"
ok in_order "Resource 'out': 0, 0
Resource 'out': 2, 3"
# The feature level: SLICE1 exists from 2_1, at rank 1 from 3_0.
model level "$IN, $OUT" "$SLICE1" "$DISPATCH"
"$tool" dispatch level.json --feature-level 2_0 >level.out 2>level.err && { echo "level: SLICE1 ran at 2_0"; fail=1; }
grep -q 'DML_OPERATOR_SLICE1 at feature level 2_0' level.err || { echo "level: $(cat level.err)"; fail=1; }
"$tool" dispatch level.json --feature-level 3_0 >/dev/null || { echo "level: SLICE1 failed at 3_0"; fail=1; }
# --device cuda runs on the GPU where there is one, else on the CPU, saying so.
"$tool" dispatch dispatch_basic.json --device cuda >cuda.out 2>cuda.err || { echo "cuda: $(cat cuda.err)"; fail=1; }
[ "$(cat cuda.out)" = "Resource 'out': 2, 3" ] || { echo "cuda: printed $(cat cuda.out)"; fail=1; }
if [ -s cuda.err ]; then
  tr -d '\r' <cuda.err | grep -q -E '^dmlslice dispatch: --device cuda: .+; running on the CPU$' || { echo "cuda: $(cat cuda.err)"; fail=1; }
fi

# --- malformed models
printf '{\n  "resources": {\n    "a": [1, 2,, 3]\n  }\n}\n' > syntax.json
bad syntax 'syntax.json:3:16: JSON syntax error'
bad crlf_syntax 'crlf_syntax.json:4:16: JSON syntax error'
printf '{ "resources": {} /* never closed\n' > open_comment.json
bad open_comment 'open_comment.json:1:19:' 'never closed'
model unknown_resource "$IN, $OUT" "$SLICE1" '{ "type": "dispatch", "dispatchable": "s", "bindings": { "InputTensor": "nope", "OutputTensor": "out" } }'
bad unknown_resource '$.commands[0].bindings.InputTensor' "binds resource 'nope', which the model does not define"
model unknown_print "$IN" "" '{ "type": "print", "resource": "missing" }'
bad unknown_print '$.commands[0].resource' "'missing'"
model unknown_type "$IN" '"g": { "type": "DML_OPERATOR_GEMM", "desc": {} }' ''
bad unknown_type '$.dispatchables.g.type' 'DML_OPERATOR_GEMM is not a slice operator' 'slice operators only'
model gibberish_type "$IN" '"g": { "type": "frobnicate", "desc": {} }' ''
bad gibberish_type '$.dispatchables.g.type' 'unknown dispatchable type "frobnicate"'
model hlsl "$IN" '"h": { "type": "hlsl", "sourcePath": "x.hlsl", "compiler": "dxc", "compilerArgs": [] }' ''
bad hlsl '$.dispatchables.h.type' 'HLSL' 'slice operators only'
model onnx "$IN" '"o": { "type": "onnx", "sourcePath": "m.onnx" }' ''
bad onnx '$.dispatchables.o.type' 'ONNX' 'slice operators only'
model texture '"t": { "type": "texture", "initialValuesDataType": "FLOAT32", "initialValues": [1] }' '' ''
bad texture '$.resources.t.type' 'buffer resources only'
model missing_tensor "$IN, $OUT" "$SLICE1" '{ "type": "dispatch", "dispatchable": "s", "bindings": { "InputTensor": "in", "Output": "out" } }'
bad missing_tensor '$.commands[0].bindings.Output' "has no tensor 'Output'" 'InputTensor, OutputTensor'
model unbound "$IN, $OUT" "$SLICE1" '{ "type": "dispatch", "dispatchable": "s", "bindings": { "InputTensor": "in" } }'
bad unbound '$.commands[0].bindings' 'nothing bound to OutputTensor'
model small_buffer '"in": { "initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3] }, '"$OUT" "$SLICE1" "$DISPATCH"
bad small_buffer '$.commands[0]' 'DMLS_ERROR_BUFFER_TOO_SMALL' 'R-X-BOUNDS'
UNALIGNED_SLICE1='"s": { "type": "SLICE1", "desc": { "InputTensor": { "DataType": "FLOAT32", "Sizes": [4], "GuaranteedBaseOffsetAlignment": 16 },
  "OutputTensor": { "DataType": "FLOAT32", "Sizes": [2] }, "DimensionCount": 1,
  "InputWindowOffsets": [1], "InputWindowSizes": [2], "InputWindowStrides": [1] } }'
model unaligned '"in": { "initialValuesDataType": "FLOAT32", "initialValues": [0, 1, 2, 3, 4] }, '"$OUT" "$UNALIGNED_SLICE1" \
  '{ "type": "dispatch", "dispatchable": "s", "bindings": { "InputTensor": { "name": "in", "elementOffset": 1 }, "OutputTensor": "out" } }'
bad unaligned '$.commands[0]' 'DMLS_ERROR_MISALIGNED' 'R-X-ALIGN'
# Without any GuaranteedBaseOffsetAlignment, DirectML's minimum of 16 still holds: 4 bytes in is refused.
model unaligned16 '"in": { "initialValuesDataType": "FLOAT32", "initialValues": [0, 1, 2, 3, 4] }, '"$OUT" "$SLICE1" \
  '{ "type": "dispatch", "dispatchable": "s", "bindings": { "InputTensor": { "name": "in", "elementOffset": 1 }, "OutputTensor": "out" } }'
bad unaligned16 '$.commands[0]' 'DMLS_ERROR_MISALIGNED' 'multiple of 16' 'DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT' 'R-X-ALIGN'
model past_end "$IN, $OUT" "$SLICE1" \
  '{ "type": "dispatch", "dispatchable": "s", "bindings": { "InputTensor": { "name": "in", "elementOffset": 8 }, "OutputTensor": "out" } }'
bad past_end '$.commands[0]' 'past its end'
model overlap '"in": { "initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3, 4] }' "$SLICE1" \
  '{ "type": "dispatch", "dispatchable": "s", "bindings": { "InputTensor": "in", "OutputTensor": "in" } }'
bad overlap 'DMLS_ERROR_OVERLAP' 'R-X-OVERLAP'
model bad_size "$IN, $OUT" '"s": { "type": "SLICE1", "desc": { "InputTensor": { "DataType": "FLOAT32", "Sizes": [4] },
  "OutputTensor": { "DataType": "FLOAT32", "Sizes": [2] }, "DimensionCount": 1,
  "InputWindowOffsets": [3], "InputWindowSizes": [2], "InputWindowStrides": [1] } }' "$DISPATCH"
bad bad_size '$.dispatchables.s' 'R-WIN-BOUNDS'
model negative_size "$IN" '"s": { "type": "SLICE", "desc": { "InputTensor": { "DataType": "FLOAT32", "Sizes": [1, 1, -4] },
  "OutputTensor": { "DataType": "FLOAT32", "Sizes": [2] }, "DimensionCount": 1, "Offsets": [0], "Sizes": [2], "Strides": [1] } }' ''
bad negative_size '$.dispatchables.s.desc.InputTensor.Sizes[2]' 'does not fit'
model count_mismatch "$IN" '"s": { "type": "SLICE", "desc": { "InputTensor": { "DataType": "FLOAT32", "Sizes": [4] },
  "OutputTensor": { "DataType": "FLOAT32", "Sizes": [2] }, "DimensionCount": 1, "Offsets": [0, 0], "Sizes": [2], "Strides": [1] } }' ''
bad count_mismatch '$.dispatchables.s.desc.Offsets' 'DimensionCount is 1'
model misspelt "$IN" '"s": { "type": "SLICE", "desc": { "InputTensor": { "DataType": "FLOAT32", "Sizes": [4], "Stride": [1] },
  "OutputTensor": { "DataType": "FLOAT32", "Sizes": [2] }, "DimensionCount": 1, "Offsets": [0], "Sizes": [2], "Strides": [1] } }' ''
bad misspelt '$.dispatchables.s.desc.InputTensor.Stride' 'unknown field'
model bad_value '"a": { "initialValuesDataType": "UINT8", "initialValues": [1, 256] }' '' ''
bad bad_value '$.resources.a.initialValues[1]' '256 does not fit UINT8'
model fraction '"a": { "initialValuesDataType": "INT32", "initialValues": [1.5] }' '' ''
bad fraction '$.resources.a.initialValues[0]' 'expected an integer'
model too_small '"a": { "initialValuesDataType": "FLOAT32", "initialValues": [1, 2], "sizeInBytes": 4 }' '' ''
bad too_small '$.resources.a' 'too small for the initialValues'
model empty '"a": { "initialValuesDataType": "FLOAT32", "initialValues": [] }' '' ''
bad empty '$.resources.a.initialValues' 'non-empty'
model no_file '"a": { "initialValuesDataType": "FLOAT32", "initialValues": { "sourcePath": "absent.bin" } }' '' ''
bad no_file '$.resources.a.initialValues.sourcePath' 'absent.bin'
model odd_name '"my buffer": { "initialValuesDataType": "BOGUS", "initialValues": [1] }' '' ''
bad odd_name '$.resources["my buffer"].initialValuesDataType' 'unknown data type "BOGUS"'
printf '{ "resources": {}, "resources": {}, "dispatchables": {}, "commands": [] }' > duplicate.json
bad duplicate 'duplicate.json:1:' 'duplicate'
model bad_command "$IN" '' '{ "type": "explode" }'
bad bad_command '$.commands[0].type' 'unknown command type "explode"'
printf '[]' > not_object.json
bad not_object 'not_object.json: $: expected an object'

# A comma with nothing before it is no trailing comma: not JSON in any mode.
printf '{ "resources": {,}, "dispatchables": {}, "commands": [] }\n' > lone_comma_object.json
bad lone_comma_object 'lone_comma_object.json:1:17: JSON syntax error'
printf '{ "resources": {}, "dispatchables": {}, "commands": [,] }\n' > lone_comma_array.json
bad lone_comma_array 'lone_comma_array.json:1:54: JSON syntax error'
printf '{ "resources": { "a": { "initialValuesDataType": "INT8", "initialValues": [1,,] } }, "dispatchables": {}, "commands": [] }\n' > double_comma.json
bad double_comma 'double_comma.json:1:' 'JSON syntax error'
# An operator's DimensionCount is required (DxDispatch's rule); a tensor's defaults to its Sizes.
model no_dimension_count "$IN" '"s": { "type": "SLICE", "desc": { "InputTensor": { "DataType": "FLOAT32", "Sizes": [4] },
  "OutputTensor": { "DataType": "FLOAT32", "Sizes": [2] }, "Offsets": [0], "Sizes": [2], "Strides": [1] } }' ''
bad no_dimension_count '$.dispatchables.s.desc.DimensionCount' 'required field missing' 'DxDispatch requires' "only a tensor's"
# A verbose print of a resource whose initial values hold no whole element (4 bytes of FLOAT64).
printf '\001\002\003\004' > four.bin
model verbose_empty '"a": { "initialValuesDataType": "FLOAT64", "initialValues": { "sourcePath": "four.bin" } }' "" '{ "type": "print", "resource": "a", "verbose": true }'
ok verbose_empty "Resource 'a':"

# --- usage
"$tool" dispatch >/dev/null 2>&1 && { echo "usage: no model accepted"; fail=1; }
"$tool" dispatch a.json b.json >/dev/null 2>&1 && { echo "usage: two models accepted"; fail=1; }
"$tool" dispatch dispatch_basic.json --device tpu >/dev/null 2>&1 && { echo "usage: --device tpu accepted"; fail=1; }
"$tool" dispatch absent.json 2>/dev/null && { echo "usage: a missing model ran"; fail=1; }
# The platform layer's temporary files are hidden (.dmlslice-*), in the output's folder.
left=$(find . -name '.dmlslice-*')
[ -z "$left" ] || { echo "temporary files were left behind: $left"; fail=1; }

[ $fail -eq 0 ] && echo "dispatch models: initializers, commands, bindings and malformed models as expected"
exit $fail
