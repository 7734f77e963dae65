# Sourced by the benchmark scripts (the project's own; no book chapter retells it): how a
# script learns where the server it started listens. Every benchmark server writes one
# line `listening on 127.0.0.1:PORT` to its standard error once it accepts; the script
# reads that line from the file the error goes to.

# listening_on LOG TENTHS: the address the server writing to LOG listens on, waiting up to
# TENTHS tenths of a second for its line; prints nothing (and fails) if the line never came.
listening_on() {
    local log=$1 tenths=$2 line addr=""
    for _ in $(seq "$tenths"); do
        # Complete lines only (`read` fails on a last line with no newline yet): a line
        # caught halfway names a port that is not the server's.
        while IFS= read -r line; do
            if [[ $line =~ ^listening\ on\ (127\.0\.0\.1:[0-9]+) ]]; then addr=${BASH_REMATCH[1]}; fi
        done <"$log"
        if [ -n "$addr" ]; then
            echo "$addr"
            return 0
        fi
        sleep 0.1
    done
    return 1
}
