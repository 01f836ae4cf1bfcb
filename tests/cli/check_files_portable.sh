#!/bin/sh
# The tool's file guarantees that every system keeps, Windows under Wine
# included (TOOL is then a script that runs the tool under the emulator):
# bytes pass unchanged through files, standard input and standard output
# (no text-mode translation of \n, \r or ^Z), an existing output is refused
# without -f and untouched by a failed run, -f replaces it whole, any name
# the file system allows works (UTF-8), the output is never the input, and
# no temporary file is left behind (docs/platforms.md says how each system
# keeps them).
#   check_files_portable.sh TOOL SCRATCH_DIR
set -u
tool=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# in.npy: uint8, shape (256,), the bytes 0..255 (\n, \r and ^Z among them).
dict="{'descr': '|u1', 'fortran_order': False, 'shape': (256,), }"
n=$((10 + ${#dict} + 1))
total=$(((n + 63) / 64 * 64))
hl=$((total - 10))
{
  printf '\223NUMPY\001\000'
  printf "\\$(printf %03o $((hl % 256)))\\$(printf %03o $((hl / 256)))"
  printf '%s' "$dict"
  printf "%$((total - n))s" ""
  printf '\n'
  i=0
  while [ $i -lt 256 ]; do
    printf "\\$(printf %03o $i)"
    i=$((i + 1))
  done
} >in.npy
[ "$(wc -c <in.npy)" -eq 384 ] || bad "the test's input is $(wc -c <in.npy) bytes, not 384"

# Files: a reversal twice gives the input back, byte for byte.
"$tool" slice in.npy -o rev.npy --index '::-1' 2>err || bad "slice to a new file: $(cat err)"
"$tool" slice rev.npy -o back.npy --index '::-1' 2>err || bad "slice of the output: $(cat err)"
cmp -s back.npy in.npy || bad "a reversal twice changed the bytes"

# Standard input and output carry bytes unchanged.
"$tool" slice - -o - --index '::1' <in.npy >piped.npy 2>err || bad "stdin to stdout: $(cat err)"
cmp -s piped.npy in.npy || bad "stdin to stdout changed the bytes ($(wc -c <piped.npy) bytes out)"
"$tool" slice in.npy -o - --index '::-1' >rev_out.npy 2>err || bad "file to stdout: $(cat err)"
cmp -s rev_out.npy rev.npy || bad "stdout differs from the file output"

# An existing output: refused without -f, untouched; a failed run with -f
# leaves it untouched too; -f replaces it.
cp rev.npy keep.npy
if "$tool" slice in.npy -o rev.npy --index '::1' 2>err; then bad "an existing output was overwritten without -f"; fi
grep -q 'already exists' err || bad "no 'already exists' message: $(cat err)"
cmp -s rev.npy keep.npy || bad "a refused run changed the existing output"
if "$tool" slice in.npy -o rev.npy -f --index '300' 2>err; then bad "an out-of-bounds index succeeded"; fi
cmp -s rev.npy keep.npy || bad "a failed run with -f changed the existing output"
"$tool" slice in.npy -o rev.npy -f --index '::1' 2>err || bad "-f: $(cat err)"
cmp -s rev.npy in.npy || bad "-f did not replace the output"

# The output is never the input.
cp in.npy self.npy
if "$tool" slice self.npy -o self.npy -f --index '::-1' 2>err; then bad "the input was overwritten"; fi
cmp -s self.npy in.npy || bad "a refused self-overwrite changed the input"
if "$tool" slice self.npy -o ./self.npy -f --index '::-1' 2>err; then bad "the input was overwritten by another name"; fi
cmp -s self.npy in.npy || bad "a refused self-overwrite by another name changed the input"

# A name beyond ASCII, and a missing folder.
utf8=$(printf 'caf\303\251-\346\225\260\346\215\256.npy')
"$tool" slice in.npy -o "$utf8" --index '::-1' 2>err || bad "a UTF-8 output name: $(cat err)"
cmp -s "$utf8" keep.npy || bad "the UTF-8 name does not hold the output"
"$tool" info "$utf8" >info 2>err || bad "info on a UTF-8 name: $(cat err)"
if "$tool" slice in.npy -o nodir/x.npy --index '::1' 2>err; then bad "an output in a missing folder succeeded"; fi
[ ! -e nodir ] || bad "a missing folder was created"

# Nothing hidden left behind by any of it.
left=$(ls -A | grep '^\.' || true)
[ -z "$left" ] || bad "temporary files left: $left"

[ $fail -eq 0 ] && echo "files: every check passed"
exit $fail
