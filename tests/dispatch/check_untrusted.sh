#!/bin/sh
# `dmlslice dispatch` handed a model by someone else: what its writeFile may
# write and how (special files written through, links kept, -f to replace),
# where its paths may reach, and reads that must end. The cases need FIFOs,
# symbolic links and (as root) device nodes, so the test is POSIX only.
# Usage: check_untrusted.sh DMLSLICE SCRATCH_DIR [SYSTEM]
set -eu
tool=$1 dir=$2 system=${3:-}
if [ "$system" = Windows ]; then
  echo "skipped: FIFOs, symbolic links and device nodes are POSIX's"
  exit 77
fi
rm -rf "$dir" && mkdir -p "$dir/work" "$dir/outside" && cd "$dir/work"
fail=0
say() { echo "$*"; fail=1; }

# run NAME [OPTION...]: runs model NAME.json; stdout in NAME.out, stderr in NAME.err.
run() {
  name=$1; shift
  rc=0
  "$tool" dispatch "$name.json" "$@" >"$name.out" 2>"$name.err" || rc=$?
  if grep -q -e 'Sanitizer' -e 'runtime error' "$name.err"; then say "$name: sanitizer report: $(cat "$name.err")"; fi
  return $rc
}
ok() { # NAME EXPECTED-STDOUT [OPTION...]
  name=$1 want=$2; shift 2
  if ! run "$name" "$@"; then say "$name: failed: $(cat "$name.err")"; return; fi
  [ "$(cat "$name.out")" = "$want" ] || say "$name: printed '$(cat "$name.out")', expected '$want'"
}
bad() { # NAME 'OPTION...' FRAGMENT...: exits 1, stderr has every fragment
  name=$1 opts=$2; shift 2
  # shellcheck disable=SC2086 # the options are words
  if run "$name" $opts; then say "$name: accepted"; return; fi
  for frag in "$@"; do
    grep -F -q -- "$frag" "$name.err" || say "$name: error lacks '$frag': $(cat "$name.err")"
  done
}
# write NAME TARGET: a model writing 4 bytes (01 02 03 04) to TARGET.
write() {
  printf '{ "resources": { "r": { "initialValuesDataType": "UINT8", "initialValues": [1, 2, 3, 4] } },
  "dispatchables": {}, "commands": [ { "type": "writeFile", "resource": "r", "targetPath": "%s" } ] }\n' "$2" >"$1.json"
}
bytes() { od -An -tx1 "$1" | tr -d ' \n'; }

# --- item 1: every output follows the rule of `slice -o`
mkdir d
# A FIFO is written through, and stays a FIFO.
mkfifo d/pipe
cat d/pipe >pipe.got &
reader=$!
write to_fifo d/pipe
ok to_fifo "Resource 'r' written to 'd/pipe'"
# A FIFO replaced by a file never gets a writer: its reader is ended.
n=0
while kill -0 $reader 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
kill $reader 2>/dev/null && say "to_fifo: nothing was written to the FIFO"
wait $reader 2>/dev/null || true
[ -p d/pipe ] || say "to_fifo: d/pipe is no longer a FIFO"
[ "$(bytes pipe.got)" = 01020304 ] || say "to_fifo: the reader got '$(bytes pipe.got)'"
# A character device is written through, and stays one (mknod needs root).
if mknod d/null c 1 3 2>/dev/null && mknod d/null.npy c 1 3 2>/dev/null; then
  write to_device d/null
  ok to_device "Resource 'r' written to 'd/null'"
  [ -c d/null ] || say "to_device: d/null is no longer a character device"
  write to_device_npy d/null.npy
  ok to_device_npy "Resource 'r' written to 'd/null.npy'"
  [ -c d/null.npy ] || say "to_device_npy: d/null.npy is no longer a character device"
else
  echo "note: mknod not permitted; the device cases are skipped"
fi
# An existing file is replaced only with -f, raw or .npy.
printf 'old' >d/old.bin
printf 'old' >d/old.npy
write exists_raw d/old.bin
bad exists_raw '' "d/old.bin" 'already exists' '-f'
[ "$(cat d/old.bin)" = old ] || say "exists_raw: d/old.bin was changed"
write exists_npy d/old.npy
bad exists_npy '' "d/old.npy" 'already exists' '-f'
[ "$(cat d/old.npy)" = old ] || say "exists_npy: d/old.npy was changed"
ok exists_raw "Resource 'r' written to 'd/old.bin'" -f
[ "$(bytes d/old.bin)" = 01020304 ] || say "exists_raw -f: d/old.bin holds '$(bytes d/old.bin)'"
ok exists_npy "Resource 'r' written to 'd/old.npy'" --force
head -c 6 d/old.npy | grep -q NUMPY || say "exists_npy -f: d/old.npy is not a .npy file"
# A symbolic link keeps its link; its target is replaced (with -f).
printf 'old' >d/t
ln -s t d/link
write to_link d/link
bad to_link '' 'd/link' 'already exists'
ok to_link "Resource 'r' written to 'd/link'" -f
[ -L d/link ] || say "to_link: d/link is no longer a symbolic link"
[ "$(bytes d/t)" = 01020304 ] || say "to_link: d/t holds '$(bytes d/t)'"
ln -s t.npy d/link.npy
printf 'old' >d/t.npy
write to_link_npy d/link.npy
ok to_link_npy "Resource 'r' written to 'd/link.npy'" -f
[ -L d/link.npy ] || say "to_link_npy: d/link.npy is no longer a symbolic link"
head -c 6 d/t.npy | grep -q NUMPY || say "to_link_npy: d/t.npy is not a .npy file"
# A dangling link and a folder are refused; nothing is written.
ln -s nowhere d/dangling
write dangling d/dangling
bad dangling '-f' 'd/dangling' 'symbolic link to nothing'
[ -e d/nowhere ] && say "dangling: d/nowhere was created"
write folder d
bad folder '-f' 'd: is a folder'
# A failed write leaves nothing behind, and nothing is printed for it.
[ -s folder.out ] && say "folder: printed $(cat folder.out)"

left=$(find . -name '.dmlslice-*')
[ -z "$left" ] || say "temporary files were left behind: $left"
[ $fail -eq 0 ] && echo "dispatch with untrusted models: outputs, confinement and bounded reads as expected"
exit $fail
