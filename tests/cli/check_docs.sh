#!/bin/sh
# The usage text has one home, the tool's option tables (tools/options.h),
# shown by --help. The usage block of docs/cli.md and the man page's
# synopsis and examples are generated from it (scripts/gen-cli-docs.py):
# they fail here while stale. The rest of both documents is written by hand
# (prose --help has no room for) and must agree with the tool: every option
# of every command's --help is in the man page and in docs/cli.md, the man
# page names no option the tool lacks, the one-thread threshold is the same
# everywhere, the feature levels named are the library's, and no document
# carries its own copy of the version. The commands are the ones
# `dmlslice --help` lists, so a new command is checked the day it is added:
# its own --help and its entry in the man page's COMMANDS; and the man page
# describes no command the tool lacks.
# Usage: check_docs.sh DMLSLICE SOURCE_DIR SCRATCH_DIR
set -u
bin=$1 src=$2 dir=$3
man=$src/docs/dmlslice.1 md=$src/docs/cli.md
mkdir -p "$dir"
bad=0
fail() { echo "FAIL: $*"; bad=1; }

# The man page as text: roff's escaped hyphens and backslashes undone.
sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\f[BIRP]//g' "$man" >"$dir/man.txt"
# Their hand-written prose: the generated sections left out.
sed '/^\.\\" BEGIN /,/^\.\\" END /d' "$dir/man.txt" >"$dir/man_prose.txt"
sed '/^<!-- BEGIN /,/^<!-- END /d' "$md" >"$dir/md_prose.txt"
all_opts=$dir/all_options.txt
printf '%s\n' --help --version >"$all_opts"

# The generated sections: stale if they differ from what --help prints now.
python3 "$src/scripts/gen-cli-docs.py" "$bin" --check || fail "docs/cli.md or docs/dmlslice.1: generated sections are stale"

# The commands: "  dmlslice NAME ..." lines of --help's "commands:" block.
"$bin" --help >"$dir/help.txt" 2>&1 || fail "--help: exit $?"
sed -n '/^commands:/,/^$/p' "$dir/help.txt" | sed -n -E 's/^  dmlslice ([a-z][a-z0-9-]*).*/\1/p' >"$dir/commands.txt"
n=$(wc -l <"$dir/commands.txt")
[ "$n" -ge 5 ] || fail "--help lists $n commands under 'commands:', fewer than the tool has"

# The man page's COMMANDS entries (".TP" then ".B NAME").
sed -n '/^\.SH COMMANDS/,/^\.SH /p' "$man" | awk 'prev == ".TP" && $1 == ".B" && NF == 2 {print $2} {prev = $0}' \
  >"$dir/man_commands.txt"
while read -r cmd; do
  grep -q -x -- "$cmd" "$dir/commands.txt" || fail "the man page's COMMANDS describe '$cmd', which --help does not list"
done <"$dir/man_commands.txt"

while read -r cmd; do
  "$bin" "$cmd" --help </dev/null >"$dir/help_$cmd.txt" 2>&1 || fail "$cmd --help: exit $?"
  grep -q "^usage: dmlslice $cmd" "$dir/help_$cmd.txt" || fail "$cmd --help does not start with its usage line"
  grep -q -x -- "$cmd" "$dir/man_commands.txt" || fail "$cmd: no entry under the man page's COMMANDS"
  # "--name" or "-x --name" per option line.
  sed -n -E 's/^  (-[a-zA-Z]), (--[a-z][a-z-]*).*/\1 \2/p; s/^  (--[a-z][a-z-]*).*/\1/p' "$dir/help_$cmd.txt" \
    >"$dir/opts_$cmd.txt"
  awk '{print $NF}' "$dir/opts_$cmd.txt" >>"$all_opts"
  while read -r first opt; do
    [ -n "$opt" ] || opt=$first
    grep -q -- "$opt" "$dir/man_prose.txt" || fail "$cmd $opt: not described in docs/dmlslice.1"
    grep -q -- "$opt" "$dir/md_prose.txt" || fail "$cmd $opt: not described in docs/cli.md"
  done <"$dir/opts_$cmd.txt"
done <"$dir/commands.txt"

# No option in the man page that the tool does not have.
# ("--onnx-*" stands for a family, not an option.)
grep -o -E -- '--[a-z][a-z-]*' "$dir/man.txt" | grep -v -- '-$' | sort -u | while read -r opt; do
  grep -q -x -- "$opt" "$all_opts" || echo "$opt"
done >"$dir/unknown.txt"
[ -s "$dir/unknown.txt" ] && fail "the man page names options the tool lacks: $(tr '\n' ' ' <"$dir/unknown.txt")"

# The one-thread threshold: what src/cpu does, said alike.
grep -q '512 KiB' "$dir/help_slice.txt" || fail "slice --help does not state the 512 KiB threshold"
grep -q '512 KiB' "$dir/man.txt" || fail "the man page does not state the 512 KiB threshold"
grep -q '512 KiB' "$md" || fail "docs/cli.md does not state the 512 KiB threshold"
grep -l '256 KiB' "$dir/help_slice.txt" "$dir/man.txt" "$md" && fail "a document still says 256 KiB"

# The feature levels the man page and docs/cli.md name are the library's
# (dmls_feature_level_count/_at), as the tool lists them for an unknown one.
levels=$("$bin" check --dtype float32 --input-sizes 4 --index '[1:]' --feature-level 9_9 2>&1 |
  sed -n 's/.*is not a DirectML feature level (\([^;]*\);.*/\1/p')
[ -n "$levels" ] || fail "an unknown --feature-level is not answered with the list of levels"
first=${levels%%,*} last=${levels##*, }
man_levels=$(tr '\n' ' ' <"$dir/man.txt" | grep -o -E '1_0, [0-9_, ]+ or [0-9]_[0-9]' | sed 's/ or /, /')
[ "$man_levels" = "$levels" ] || fail "the man page lists the feature levels '$man_levels', the library '$levels'"
grep -q -F -- "\`$first\` … \`$last\`" "$md" || fail "docs/cli.md does not give the levels as \`$first\` … \`$last\`"
grep -q -F -- "the latest, \`$last\`" "$md" || fail "docs/cli.md does not name $last as the default level"
# docs/spec.md's table of levels and values is the library's list, and
# where README.md and docs/ name the range or the default, they name the
# library's first and latest.
spec_levels=$(grep -o -E '\| [0-9]_[0-9] \| 0x[0-9]{4} ' "$src/docs/spec.md" |
  awk '{ v = $2; sub("_", "", v); if ($4 != "0x" v "00") print "bad"; print $4, $2 }' | sort | awk '{print $2}' |
  tr '\n' ' ' | sed 's/ $//; s/ /, /g')
[ "$spec_levels" = "$levels" ] || fail "docs/spec.md's table lists the feature levels '$spec_levels', the library '$levels'"
sed -e 's/\\-/-/g' -e 's/`//g' "$src/README.md" "$src"/docs/*.md "$man" |
  grep -o -E 'from [0-9]_[0-9] to [0-9]_[0-9]|default:? [0-9]_[0-9]|[0-9]_[0-9], the newest' |
  grep -v -x -e "from $first to $last" -e "default:\{0,1\} $last" -e "$last, the newest" >"$dir/stale_levels.txt"
[ -s "$dir/stale_levels.txt" ] && fail "README.md or docs/ name a range or default other than the library's ($first to $last): $(tr '\n' ';' <"$dir/stale_levels.txt")"

# Each command that takes --feature-level lists them in its --help, from the
# library at run time, never as a copy in the tool's text.
while read -r cmd; do
  grep -q -- '--feature-level' "$dir/opts_$cmd.txt" || continue
  tr '\n' ' ' <"$dir/help_$cmd.txt" | grep -q -F -- "$levels" || fail "$cmd --help does not list the levels '$levels'"
  grep -q -F -- "the latest, $last" "$dir/help_$cmd.txt" || fail "$cmd --help does not name $last as the default level"
done <"$dir/commands.txt"

# The version is the tool's (dmls_version()), never a second copy.
version=$("$bin" --version | sed 's/^dmlslice //')
grep -q -F "$version" "$man" && fail "docs/dmlslice.1 carries the version $version"

# Built as part of another project, the options whose default follows that
# (${DMLS_TOP_LEVEL}, ${dmls_cuda_default}) are the ones a user must switch
# on: the README's paragraph on it names each one.
embedded=$(sed -n '/^Built as part of your project/,/^$/p' "$src/README.md" | tr '\n' ' ')
[ -n "$embedded" ] || fail "README.md has no paragraph 'Built as part of your project'"
for opt in $(sed -n -E 's/^(option|set)\((DMLS_[A-Z_]+) .*\$\{(DMLS_TOP_LEVEL|dmls_cuda_default)\}.*/\2/p' "$src/CMakeLists.txt"); do
  echo "$embedded" | grep -q -w -- "$opt" || fail "README.md's 'Built as part of your project' does not name $opt"
done

[ $bad -eq 0 ] && echo "docs agree with --help on $n commands: $(tr '\n' ' ' <"$dir/commands.txt")"
exit $bad
