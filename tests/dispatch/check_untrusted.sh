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
# The model file itself is never written over, even with -f.
write self self.json
bad self '-f' 'self.json' 'the output is the input file'
grep -q writeFile self.json || say "self: the model was written over"
# "-" is a file of that name, not standard output.
write dash -
ok dash "Resource 'r' written to '-'"
[ "$(bytes ./-)" = 01020304 ] || say "dash: ./- holds '$(bytes ./-)'"
# A failed write leaves nothing behind, and nothing is printed for it.
[ -s folder.out ] && say "folder: printed $(cat folder.out)"

# --- item 2: where a model may reach
# read_model NAME SOURCE: a model printing the UINT8 file SOURCE.
read_model() {
  printf '{ "resources": { "r": { "initialValuesDataType": "UINT8", "initialValues": { "sourcePath": "%s" } } },
  "dispatchables": {}, "commands": [ { "type": "print", "resource": "r" } ] }\n' "$2" >"$1.json"
}
printf '\007' >../outside/secret.bin
printf '\010' >inside.bin
abs=$(cd .. && pwd)/outside/secret.bin
read_model read_absolute "$abs"
bad read_absolute '' '$.resources.r.initialValues.sourcePath' "'$abs'" 'outside the folders a model may read' '--allow-path'
read_model read_dotdot ../outside/secret.bin
bad read_dotdot '' '$.resources.r.initialValues.sourcePath' "'../outside/secret.bin'" 'outside'
ln -s ../outside/secret.bin out_link.bin
read_model read_link out_link.bin
bad read_link '' '$.resources.r.initialValues.sourcePath' "'out_link.bin'" 'outside'
ln -s ../outside out_dir
read_model read_link_dir out_dir/secret.bin
bad read_link_dir '' 'out_dir/secret.bin' 'outside'
# Inside, by any route: an absolute path, a link that stays, the model's own folder.
ln -s inside.bin in_link.bin
read_model read_inside "$(pwd)/d/../inside.bin"
ok read_inside "Resource 'r': 8"
read_model read_in_link in_link.bin
ok read_in_link "Resource 'r': 8"
mkdir -p models && printf '\011' >models/beside.bin
read_model models/beside beside.bin
ok models/beside "Resource 'r': 9"
# A targetPath is relative to the current folder, never the model's.
write models/writes models/w.bin
ok models/writes "Resource 'r' written to 'models/w.bin'"
[ -f models/w.bin ] || say "models/writes: models/w.bin is missing"
write write_dotdot ../outside/new.bin
bad write_dotdot '' '$.commands[0].targetPath' 'writeFile' "'../outside/new.bin'" 'outside the folders a model may write'
[ -e ../outside/new.bin ] && say "write_dotdot: ../outside/new.bin was written"
write write_absolute "$(cd .. && pwd)/outside/new.npy"
bad write_absolute '' '$.commands[0].targetPath' 'outside'
ln -s ../outside/secret.bin out_target.bin
write write_link out_target.bin
bad write_link '-f' '$.commands[0].targetPath' "'out_target.bin'" 'outside'
[ "$(bytes ../outside/secret.bin)" = 07 ] || say "write_link: the file outside was changed"
write write_link_dir out_dir/new.bin
bad write_link_dir '' 'out_dir/new.bin' 'outside'
[ -e ../outside/new.bin ] && say "write_link_dir: ../outside/new.bin was written"
# A model elsewhere reads beside itself but writes only beneath the current folder.
printf '\012' >../outside/own.bin
read_model ../outside/own own.bin
ok ../outside/own "Resource 'r': 10"
write ../outside/own_write ../outside/w.bin
bad ../outside/own_write '' "'../outside/w.bin'" 'outside the folders a model may write'
# --allow-path widens both (a list, ':' between folders); a folder that does not exist is a usage error naming it.
ok read_dotdot "Resource 'r': 7" --allow-path models:../outside
run write_dotdot --allow-path ../absent-folder && say "--allow-path ../absent-folder: accepted"
grep -q -- "--allow-path: '../absent-folder'" write_dotdot.err || say "--allow-path absent: $(cat write_dotdot.err)"
rm -f ../outside/new.bin
ok write_dotdot "Resource 'r' written to '../outside/new.bin'" --allow-path ../outside
[ "$(bytes ../outside/new.bin)" = 01020304 ] || say "--allow-path: ../outside/new.bin holds '$(bytes ../outside/new.bin)'"

# --- all of a model's files or none: every path is checked before anything runs
# A second writeFile that leads out refuses the model; the first file is never made,
# and the refusal names the file where it resolves, not only its folder.
out_abs=$(cd .. && pwd -P)/outside
printf '{ "resources": { "r": { "initialValuesDataType": "UINT8", "initialValues": [1, 2, 3, 4] } },
  "dispatchables": {}, "commands": [ { "type": "print", "resource": "r" },
  { "type": "writeFile", "resource": "r", "targetPath": "first.npy" },
  { "type": "writeFile", "resource": "r", "targetPath": "../outside/escape.npy" } ] }\n' >two_writes.json
bad two_writes '' '$.commands[2].targetPath' "resolves to '$out_abs/escape.npy'" 'outside the folders a model may write'
[ -e first.npy ] && say "two_writes: first.npy was written before the model was refused"
[ -e ../outside/escape.npy ] && say "two_writes: ../outside/escape.npy was written"
[ -s two_writes.out ] && say "two_writes: a command ran before the model was checked: $(cat two_writes.out)"
# A dispatch that fails after a writeFile (its input buffer too small, which only the
# library's execute sees) leaves no file either.
printf '{ "resources": { "in": { "initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3] },
  "out": { "initialValuesDataType": "FLOAT32", "initialValues": { "valueCount": 2, "value": 0 } } },
  "dispatchables": { "s": { "type": "SLICE1", "desc": { "InputTensor": { "DataType": "FLOAT32", "Sizes": [8] },
  "OutputTensor": { "DataType": "FLOAT32", "Sizes": [2] }, "DimensionCount": 1,
  "InputWindowOffsets": [1], "InputWindowSizes": [2], "InputWindowStrides": [1] } } },
  "commands": [ { "type": "writeFile", "resource": "in", "targetPath": "before.npy" },
  { "type": "dispatch", "dispatchable": "s", "bindings": { "InputTensor": "in", "OutputTensor": "out" } } ] }\n' >late_failure.json
bad late_failure '' '$.commands[1]' 'DMLS_ERROR_BUFFER_TOO_SMALL'
[ -e before.npy ] && say "late_failure: before.npy was written although a later command failed"
# Several files, all written, their lines after the other commands' output.
printf '{ "resources": { "r": { "initialValuesDataType": "UINT8", "initialValues": [1, 2, 3, 4] } },
  "dispatchables": {}, "commands": [ { "type": "writeFile", "resource": "r", "targetPath": "w1.bin" },
  { "type": "print", "resource": "r" }, { "type": "writeFile", "resource": "r", "targetPath": "w2.npy" } ] }\n' >all_writes.json
ok all_writes "Resource 'r': 1, 2, 3, 4
Resource 'r' written to 'w1.bin'
Resource 'r' written to 'w2.npy'"
[ "$(bytes w1.bin)" = 01020304 ] && head -c 6 w2.npy | grep -q NUMPY || say "all_writes: w1.bin or w2.npy is not as written"

# --- a model read from a stream has no folder of its own: /dev/stdin is not
# its folder, so /dev is not a folder it may read (nor anything beside it).
if [ -e /dev/stdin ] && [ -e /dev/null ]; then
  read_model from_dev_stdin /dev/null
  rc=0
  "$tool" dispatch /dev/stdin <from_dev_stdin.json >from_dev_stdin.out 2>from_dev_stdin.err || rc=$?
  [ $rc -eq 1 ] || say "/dev/stdin: exit $rc: $(cat from_dev_stdin.err)"
  grep -q "'/dev/null' resolves to '/dev/null', outside the folders a model may read ($(pwd -P))" from_dev_stdin.err ||
    say "/dev/stdin: the model read beside /dev/stdin: $(cat from_dev_stdin.err)"
  # The same from a pipe.
  rc=0
  cat from_dev_stdin.json | "$tool" dispatch /dev/stdin >from_dev_stdin.out 2>from_dev_stdin.err || rc=$?
  [ $rc -eq 1 ] && grep -q "outside the folders a model may read ($(pwd -P))" from_dev_stdin.err ||
    say "/dev/stdin from a pipe: exit $rc: $(cat from_dev_stdin.err)"
fi

# --- item 3: reads that end
# A FIFO as sourcePath is refused without being opened (an open would wait for a writer).
mkfifo fifo.bin
read_model read_fifo fifo.bin
rc=0
timeout 20 "$tool" dispatch read_fifo.json >read_fifo.out 2>read_fifo.err || rc=$?
[ $rc -eq 1 ] || say "read_fifo: exit $rc (124: it waited): $(cat read_fifo.err)"
grep -q "'fifo.bin' is a FIFO, socket or character device, not a regular file" read_fifo.err || say "read_fifo: $(cat read_fifo.err)"
read_model read_folder d
bad read_folder '' "'d' is a folder"
if [ -c d/null ]; then
  read_model read_device d/null
  bad read_device '' "'d/null' is a FIFO, socket or character device"
fi
# A model that never ends is read up to its limit, then refused.
rc=0
timeout 60 "$tool" dispatch /dev/zero >zero.out 2>zero.err || rc=$?
[ $rc -eq 1 ] || say "/dev/zero: exit $rc: $(cat zero.err)"
grep -q '/dev/zero: more than 16 MiB' zero.err || say "/dev/zero: $(cat zero.err)"
rc=0
"$tool" dispatch d >folder_model.out 2>folder_model.err || rc=$?
[ $rc -eq 1 ] && grep -q 'd: is a folder' folder_model.err || say "model d: exit $rc: $(cat folder_model.err)"
# A model read from a pipe still runs.
printf '{ "resources": {}, "dispatchables": {}, "commands": [] }' | "$tool" dispatch - || say "a model from a pipe failed"
# Sizes past the caps are refused as the model is read, before anything is allocated.
printf '{ "resources": { "r": { "initialValuesDataType": "FLOAT32", "initialValues": { "valueCount": 4294967295, "value": 1 } } }, "dispatchables": {}, "commands": [] }' >huge_count.json
bad huge_count '' '$.resources.r' '17179869180 bytes' '1073741824 bytes'
printf '{ "resources": { "r": { "initialValuesDataType": "UINT8", "initialValues": [1], "sizeInBytes": 8589934592 } }, "dispatchables": {}, "commands": [] }' >huge_size.json
bad huge_size '' '$.resources.r' '8589934592 bytes' '4294967296 bytes'
printf '{ "resources": { "a": { "initialValuesDataType": "UINT8", "initialValues": [1], "sizeInBytes": 3221225472 }, "b": { "initialValuesDataType": "UINT8", "initialValues": [1], "sizeInBytes": 3221225472 } }, "dispatchables": {}, "commands": [] }' >huge_total.json
bad huge_total '' '$.resources.b' 'left of the 4294967296 bytes'
# A file initializer larger than the cap is refused before it is read (a sparse file).
if truncate -s 1200M big.bin 2>/dev/null; then
  read_model read_big big.bin
  bad read_big '' "'big.bin' holds 1258291200 bytes" '1073741824'
  rm -f big.bin
fi

# --- the write race (issue 35 item 6): a folder swapped for a symbolic link between
# a file's making and its commit. The model writes a file, then prints a resource
# larger than a pipe holds; its output goes through a FIFO that the test reads one
# byte of, so the tool waits inside that print (after the file was made, before the
# commit) while the test swaps the folder: the same interleaving every run, no timing.
swap_model() { # NAME TARGET
  printf '{ "resources": { "r": { "initialValuesDataType": "UINT8", "initialValues": [1, 2, 3, 4] },
  "big": { "initialValuesDataType": "UINT8", "initialValues": { "valueCount": 300000, "value": 7 } } },
  "dispatchables": {}, "commands": [ { "type": "writeFile", "resource": "r", "targetPath": "%s" },
  { "type": "print", "resource": "big" } ] }\n' "$2" >"$1.json"
}
swapped() { # NAME COMMAND...: runs NAME.json, COMMAND once its print began; its exit in rc
  name=$1; shift
  rm -f "$name.fifo" && mkfifo "$name.fifo"
  "$tool" dispatch "$name.json" >"$name.fifo" 2>"$name.err" &
  pid=$!
  exec 3<"$name.fifo"
  dd bs=1 count=1 <&3 >/dev/null 2>&1 || true
  "$@"
  cat <&3 >/dev/null
  exec 3<&-
  rc=0
  wait $pid || rc=$?
  rm -f "$name.fifo"
}
# The folder swapped for a link that leads outside: the file lands in the folder it
# was made in (now renamed), never where the link leads.
mkdir held
swap_model race_swap held/w.bin
swapped race_swap sh -c 'mv held held-moved && ln -s ../outside held'
[ $rc -eq 0 ] || say "race_swap: exit $rc: $(cat race_swap.err)"
[ -e ../outside/w.bin ] && say "race_swap: the write followed the swapped-in link to ../outside/w.bin"
[ "$(bytes held-moved/w.bin 2>/dev/null)" = 01020304 ] || say "race_swap: held-moved/w.bin is not the file written"
# The folder itself moved outside meanwhile: refused, and no file anywhere.
mkdir away
swap_model race_away away/w.bin
swapped race_away mv away ../outside/away
[ $rc -eq 1 ] || say "race_away: exit $rc: $(cat race_away.err)"
grep -q "'away/w.bin': its folder was moved or swapped while the file was made" race_away.err ||
  say "race_away: $(cat race_away.err)"
[ -e ../outside/away/w.bin ] && say "race_away: the file was committed into ../outside/away"

left=$(find . -name '.dmlslice-*')
[ -z "$left" ] || say "temporary files were left behind: $left"
[ $fail -eq 0 ] && echo "dispatch with untrusted models: outputs, confinement and bounded reads as expected"
exit $fail
