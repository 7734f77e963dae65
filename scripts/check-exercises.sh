#!/usr/bin/env bash
# Every exercise both ways round: its test FAILS on the stub as shipped (so it can fail, and
# the learner has something to do), and PASSES on the reference solution (so it can be done).
# The exercise tests are #[ignore]d, and their binaries (each with its chapter's stub inside)
# are built only when named, so `cargo test --workspace` never builds them: `--test '*'` names
# them all.
set -euo pipefail
cd "$(dirname "$0")/.."

# The exercise tests, by name (`name: test` lines of --list).
names=$(cargo test -q -p exercises --test '*' -- --ignored --list 2>/dev/null | sed -n 's/: test$//p' | sort)
count=$(printf '%s\n' "$names" | grep -c . || true)
if [ "$count" -eq 0 ]; then
    echo "no exercise tests found"
    exit 1
fi

# `test NAME ... ok|FAILED` lines of one run; the run itself fails when any test does.
# Standard output only: the harness prints its verdicts there, while a stub's dropped loop
# logs "Task was destroyed but it is pending!" straight to standard error, uncaptured, and
# on a busy machine that lands in the middle of another test's verdict line. Standard error
# is kept aside, to show when a verdict is missing (a stub that does not compile, say).
errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
results() {
    cargo test -p exercises --no-fail-fast --test '*' "$@" -- --ignored --test-threads=2 2>>"$errors" \
        | sed -n 's/^test \([a-z0-9_]*\) \.\.\. \(ok\|FAILED\)$/\1 \2/p' | sort || true
}

stubs=$(results)
solved=$(results --features solutions)
problems=0
while read -r name; do
    on_stub=$(printf '%s\n' "$stubs" | awk -v n="$name" '$1 == n { print $2 }')
    on_solution=$(printf '%s\n' "$solved" | awk -v n="$name" '$1 == n { print $2 }')
    if [ "$on_stub" != FAILED ]; then
        echo "exercise $name: expected to FAIL on the stub, got '${on_stub:-no result}'"
        problems=$((problems + 1))
    fi
    if [ "$on_solution" != ok ]; then
        echo "exercise $name: expected to PASS on the solution, got '${on_solution:-no result}'"
        problems=$((problems + 1))
    fi
done <<< "$names"
if [ "$problems" -ne 0 ]; then
    echo "the end of what cargo printed on standard error:"
    tail -n 30 "$errors"
    exit 1
fi
echo "ok: $count exercises fail on their stubs and pass on their solutions"
