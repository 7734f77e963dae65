#!/usr/bin/env bash
# What a stage changed, concept by concept: `bash scripts/diff-stages.sh 2 3` (or
# `just diff 2 3`) reads as chapter 3.
#
# Files are paired by concept, as scripts/stage-concepts.tsv declares them: one row per
# concept, with the file that holds it in each stage (tests/diff_stages.rs reads the same
# table, checks that its files exist, and checks this script's output against it). For each
# row, from stage A to stage B, the chapters' main files first:
#
# - a file in both stages is shown as `diff -u`. Where a stage only re-exports a concept
#   (`=K` in the table), its file is stage K's: stage 4's scheduler.rs is compared with
#   stage 1's, which stage 3 re-exported;
# - a file new in B is printed in full, as added lines, under `=== new in stage B: ...`;
# - two files that share too little (under MIN_SHARED percent of their non-trivial lines:
#   braces, blank lines, `use` lines, attributes and anchors do not count) are not diffed:
#   A's is "no longer here" and B's is printed in full, as a new file;
# - a file gone, or reused unchanged, gets one line, at the end.
#
# Files in no row are still shown: paired by name if they share enough, listed otherwise.
# Bad arguments exit 2 with one line; a row naming a missing file is reported and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

table=scripts/stage-concepts.tsv
MIN_SHARED=12

usage() {
    echo "usage: bash scripts/diff-stages.sh A B   (two stage numbers, the earlier first, e.g. 4 5)" >&2
    exit 2
}
bad_input() {
    echo "diff-stages: $*" >&2
    exit 2
}
bad_table() {
    echo "diff-stages: $table: $*" >&2
    exit 1
}

[ $# -eq 2 ] || usage
[ -f "$table" ] || bad_table "missing"

# The table: its header, and its rows as arrays "LINE<tab>concept<tab>main<tab>...".
header=()
rows=()
n=0
while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    case $line in '' | '#'*) continue ;; esac
    if [ ${#header[@]} -eq 0 ]; then
        IFS=$'\t' read -r -a header <<<"$line"
        # concept, main, one column per stage (1, 2, ...), what.
        last=$((${#header[@]} - 3))
        if [ "$last" -lt 2 ] || [ "${header[0]}" != concept ] || [ "${header[1]}" != main ] ||
            [ "${header[$((last + 2))]}" != what ]; then
            bad_table "line $n: the header must be: concept, main, 1 to N, what"
        fi
        for ((s = 1; s <= last; s++)); do
            [ "${header[$((s + 1))]}" = "$s" ] || bad_table "line $n: the header's stage columns must be 1 to $last"
        done
        continue
    fi
    IFS=$'\t' read -r -a f <<<"$line"
    [ ${#f[@]} -eq $((last + 3)) ] ||
        bad_table "line $n has ${#f[@]} fields, not $((last + 3)) (one tab between columns, - for an empty cell)"
    rows+=("$n"$'\t'"$line")
done <"$table"
[ ${#header[@]} -gt 0 ] || bad_table "it has no header"

for arg in "$1" "$2"; do
    [[ $arg =~ ^[0-9]+$ ]] || bad_input "'$arg' is not a stage number (stages are 1 to $last)"
    ((10#$arg >= 1 && 10#$arg <= last)) || bad_input "there is no stage $((10#$arg)) (stages are 1 to $last)"
done
a=$((10#$1))
b=$((10#$2))
[ "$a" -ne "$b" ] || bad_input "stage $a twice: name two different stages, the earlier first"
[ "$a" -lt "$b" ] || bad_input "the earlier stage comes first: $b $a, not $a $b"

declare -A src # stage -> its crate's src folder
for ((s = 1; s <= last; s++)); do
    dirs=(crates/stage"$s"-*/src)
    [ -d "${dirs[0]}" ] || bad_table "it has a column for stage $s, but there is no crates/stage$s-*/src"
    src[$s]=${dirs[0]}
done

color=never
[ -t 1 ] && color=auto
heading() {
    if [ "$color" = auto ]; then printf '\e[1m=== %s ===\e[m\n' "$*"; else printf '=== %s ===\n' "$*"; fi
}

# A file's lines that say something: trimmed, not blank, not braces alone, not `use`, an
# attribute or an anchor, and at least 12 characters long.
nontrivial() {
    sed 's/^[[:space:]]*//; s/[[:space:]]*$//' "$1" |
        grep -Ev '^(use |pub use |#!?\[|// ANCHOR|mod tests)' | grep -E '.{12}' || true
}
# Whether two files share enough to diff: the non-trivial lines they have in common, in
# order, count in both and make at least MIN_SHARED percent of both files' non-trivial
# lines. Sets `shared`, `na` and `nb` for the message that says why not.
similar() {
    local gone total
    na=$(nontrivial "$1" | wc -l)
    nb=$(nontrivial "$2" | wc -l)
    gone=$(diff <(nontrivial "$1") <(nontrivial "$2") | grep -c '^<' || true)
    shared=$((na - gone))
    total=$((na + nb))
    ((total > 0 && 200 * shared >= MIN_SHARED * total))
}

show_diff() { # OLD NEW HEADING: `diff` exits 1 when the files differ, which is the point
    heading "$3"
    diff -u --color="$color" --label "$1" --label "$2" "$1" "$2" || true
}
show_new() { # FILE HEADING: the whole file, as added lines
    heading "$2"
    diff -u --color="$color" --label /dev/null --label "$1" /dev/null "$1" || true
}
lines() { wc -l <"$1" | tr -d ' '; }

# A chapter's stage: chapters 5, 6 and 7 are all stage 5's (the last).
stage_of() { if (($1 > last)); then echo "$last"; else echo "$1"; fi; }

stale=0
declare -A listed_a listed_b # the files of stage A and B that a row names
gone=()                       # one-line reports, printed at the end
reused=()

# Resolve the current row's (`f`) cell for stage S: sets `owner` (the stage whose file it
# is, or nothing) and `file` (its path from the repository root). 1 if the row is stale.
resolve() {
    local s=$1 cell=${f[$(($1 + 2))]} problem="" own
    owner=
    file=
    case $cell in
    -) return 0 ;;
    =*) owner=${cell#=} ;;
    *) owner=$s ;;
    esac
    if [ "$owner" != "$s" ] && ! { [[ $owner =~ ^[0-9]+$ ]] && ((owner >= 1 && owner < s)); }; then
        problem="stage $s's cell is '$cell': a path, - or =K with K a stage before $s"
    else
        own=${f[$((owner + 2))]}
        file=${src[$owner]}/$own
        if [ "$own" = - ] || [[ $own == =* ]]; then
            problem="stage $s's cell is '$cell', but stage $owner has no file of its own for it ('$own')"
        elif [ ! -f "$file" ]; then
            problem="stage $owner's file $file does not exist (update the row)"
        fi
    fi
    if [ -n "$problem" ]; then
        echo "diff-stages: $table line ${f[0]}, row '${f[1]}': $problem" >&2
        stale=1
        return 1
    fi
}

# The main rows of the chapters whose stage is after A and up to B: the first line, and
# the order.
chapters=$(for row in "${rows[@]}"; do cut -f 3 <<<"$row"; done | tr ',' '\n' | grep -E '^[0-9]+$' | sort -nu)
summary=()
here=() # those chapters
for c in $chapters; do
    s=$(stage_of "$c")
    ((s > a && s <= b)) || continue
    here+=("$c")
    mains=()
    for row in "${rows[@]}"; do
        IFS=$'\t' read -r -a f <<<"$row"
        if [[ ,${f[2]}, == *,$c,* ]]; then
            cell=${f[$((s + 2))]}
            mains+=("${cell#=}")
        fi
    done
    summary+=("chapter $c: $(printf '%s, ' "${mains[@]}" | sed 's/, $//')")
done
printf 'Stage %s to stage %s, concept by concept (%s). Main files: %s.\n' "$a" "$b" "$table" \
    "$(printf '%s; ' "${summary[@]:-none}" | sed 's/; $//')"

one_row() { # the current row, `f`
    local what=${f[$((last + 3))]} owner_a file_a owner_b file_b path_b
    resolve "$a" || return 0
    owner_a=$owner file_a=$file
    resolve "$b" || return 0
    owner_b=$owner file_b=$file
    [ "$owner_a" != "$a" ] || listed_a[$file_a]=1
    [ "$owner_b" != "$b" ] || listed_b[$file_b]=1
    path_b=${file_b#"${src[$b]}"/}
    local via=
    [ "$owner_a" = "$a" ] || via=", which stage $a re-exported"

    if [ -z "$file_a" ] && [ -z "$file_b" ]; then
        return 0
    elif [ -z "$file_b" ]; then
        gone+=("no longer here: $file_a ($what)$via")
    elif [ "$file_a" = "$file_b" ]; then
        reused+=("$file_b ($what)")
    elif [ "$owner_b" != "$b" ]; then
        if [ -z "$file_a" ]; then
            gone+=("now used from stage $owner_b: $file_b ($what)")
        else
            gone+=("no longer here: $file_a ($what)$via; stage $b uses stage $owner_b's $file_b")
        fi
    elif [ -z "$file_a" ]; then
        show_new "$file_b" "new in stage $b: $path_b ($what)"
    elif similar "$file_a" "$file_b"; then
        local from=${file_a#"${src[$owner_a]}"/}
        if [ "$owner_a" = "$a" ]; then from="stage $a's $from"; else from="stage $owner_a's $from$via"; fi
        show_diff "$file_a" "$file_b" "changed in stage $b: $path_b ($what), from $from"
    else
        heading "no longer here: $file_a ($what)$via; stage $b's $path_b takes its place, with too" \
            "little in common to diff (non-trivial lines in common: $shared, of $na and $nb; a diff takes $MIN_SHARED%)"
        show_new "$file_b" "new in stage $b: $path_b ($what)"
    fi
}

# The chapters' main rows, chapter by chapter, then the others, in the table's order.
declare -A done_row
for c in "${here[@]}" -; do
    for row in "${rows[@]}"; do
        IFS=$'\t' read -r -a f <<<"$row"
        [ -z "${done_row[${f[0]}]:-}" ] || continue
        if [ "$c" = - ] || [[ ,${f[2]}, == *,$c,* ]]; then
            done_row[${f[0]}]=1
            one_row
        fi
    done
done

# The files no row names: paired by name when they share enough, listed otherwise.
unlisted() { # STAGE: its files that no row names, "name path" per line
    local s=$1 p
    (cd "${src[$s]}" && find . -name '*.rs' | sed 's|^\./||' | sort) | while read -r p; do
        if [ "$s" = "$a" ]; then [ -n "${listed_a[${src[$s]}/$p]:-}" ] && continue; fi
        if [ "$s" = "$b" ]; then [ -n "${listed_b[${src[$s]}/$p]:-}" ] && continue; fi
        echo "$(basename "$p") ${src[$s]}/$p"
    done
}
declare -A rest_b
while read -r name file; do
    [ -n "$name" ] || continue
    rest_b[$name]=${rest_b[$name]:-}${rest_b[$name]:+ }$file
done < <(unlisted "$b")
only_a=()
while read -r name file; do
    [ -n "$name" ] || continue
    partner=${rest_b[$name]:-}
    partner=${partner%% *}
    if [ -n "$partner" ] && similar "$file" "$partner"; then
        show_diff "$file" "$partner" "changed in stage $b, in no row of the table, paired by name: ${partner#"${src[$b]}"/}"
        rest=${rest_b[$name]#"$partner"}
        rest_b[$name]=${rest# }
    else
        only_a+=("$file ($(lines "$file") lines)")
    fi
done < <(unlisted "$a")
only_b=()
for name in "${!rest_b[@]}"; do
    for file in ${rest_b[$name]}; do only_b+=("$file ($(lines "$file") lines)"); done
done

for note in "${gone[@]}"; do heading "$note"; done
if [ ${#reused[@]} -gt 0 ]; then
    heading "reused unchanged, the same file in stage $a and in stage $b"
    printf '    %s\n' "${reused[@]}"
fi
if [ ${#only_a[@]} -gt 0 ]; then
    heading "only in stage $a, in no row of $table"
    printf '    %s\n' "${only_a[@]}"
fi
if [ ${#only_b[@]} -gt 0 ]; then
    heading "only in stage $b, in no row of $table, not printed here"
    printf '    %s\n' "${only_b[@]}" | sort
fi
exit "$stale"
