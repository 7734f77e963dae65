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
results() {
    cargo test -p exercises --no-fail-fast --test '*' "$@" -- --ignored --test-threads=2 2>&1 \
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
    exit 1
fi
echo "ok: $count exercises fail on their stubs and pass on their solutions"
