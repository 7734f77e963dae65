#!/usr/bin/env bash
# Diff two stages' sources, file by file: `bash scripts/diff-stages.sh 4 5`.
#
# A file is paired with the file of the same name in the other stage, wherever it sits in
# the folders (stage 5 puts its files in folders by layer: stage 4's `selector.rs` is stage
# 5's `parts/selector.rs`), so the diff shows what changed in a concept, not a removal and an
# addition. Where stage 5 took asyncio's name for a stage 4 concept, `RENAMED` pairs them.
# Files with no partner are listed as only in one stage.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -ne 2 ]; then
    echo "usage: bash scripts/diff-stages.sh A B   (two stage numbers, e.g. 4 5)" >&2
    exit 2
fi
a=$(ls -d crates/stage"$1"-*/src 2>/dev/null | head -n 1)
b=$(ls -d crates/stage"$2"-*/src 2>/dev/null | head -n 1)
if [ -z "$a" ] || [ -z "$b" ]; then
    echo "no such stage: $1 or $2 (stages are 1 to 5)" >&2
    exit 2
fi

color=never
[ -t 1 ] && color=auto

# One name per line, with its path: "name path".
index() { (cd "$1" && find . -name '*.rs' | sed 's|^\./||' | sort | while read -r p; do echo "$(basename "$p") $p"; done); }

# Stage 4's name -> stage 5's, for concepts renamed after asyncio's files.
declare -A RENAMED=([io.rs]=sockets.rs [scheduler.rs]=run_once.rs)

declare -A in_b
while read -r name path; do in_b[$name]=$path; done < <(index "$b")

while read -r name path; do
    partner=$name
    if [ -z "${in_b[$name]:-}" ] && [ -n "${RENAMED[$name]:-}" ]; then
        partner=${RENAMED[$name]}
    fi
    other=${in_b[$partner]:-}
    if [ -n "$other" ]; then
        # `diff` exits 1 when the files differ, which is the point here.
        diff -u --color="$color" --label "$a/$path" --label "$b/$other" "$a/$path" "$b/$other" || true
        unset "in_b[$partner]"
    else
        echo "Only in $a: $path"
    fi
done < <(index "$a")
for name in "${!in_b[@]}"; do
    echo "Only in $b: ${in_b[$name]}"
done | sort
