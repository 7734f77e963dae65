"""The parameters of bench/params.env, read as the Rust harness reads them (crates/bench,
params.rs): KEY=VALUE lines, `#` comments, and an environment variable of the same name
overrides a line. Also the twin of prng.rs: W3's delays from SplitMix64, so that every
system schedules exactly the same timers."""

import os
from pathlib import Path

DEFAULT = Path(__file__).resolve().parent.parent / "params.env"


def load(path=None):
    """Every KEY=VALUE of the params file, values as strings, the environment first."""
    path = Path(path or os.environ.get("BENCH_PARAMS") or DEFAULT)
    values = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise ValueError(f"{path}:{number}: expected KEY=VALUE")
        values[key.strip()] = value.strip().strip('"')
    for key in values:
        if key in os.environ:
            values[key] = os.environ[key]
    return values


def number(params, key):
    """A whole-number parameter."""
    return int(params[key])


MASK = (1 << 64) - 1


def splitmix64(seed):
    """SplitMix64, as prng.rs has it: an endless stream of 64-bit numbers."""
    state = seed & MASK
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        yield z ^ (z >> 31)


def delays_us(seed, count, max_ms):
    """W3's `count` delays in microseconds, uniform in [0, max_ms * 1000]."""
    span = max_ms * 1000 + 1
    rng = splitmix64(seed)
    return [next(rng) % span for _ in range(count)]


if __name__ == "__main__":
    # The reference values prng.rs's test checks too.
    rng = splitmix64(1234567)
    assert next(rng) == 6457827717110365317
    assert next(rng) == 3203168211198807973
    print("ok")
