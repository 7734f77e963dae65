//! `bench/params.env`: the workload parameters, one `KEY=VALUE` per line, that every system
//! reads (Rust here, Python in `bench/python/params.py`, and `bench/run.sh` sources it).
//!
//! An environment variable of the same name overrides the file: that is how
//! `BENCH_QUICK=1 bench/run.sh` shrinks every workload at once. `BENCH_PARAMS` names
//! another file.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;

/// The file read when `BENCH_PARAMS` is not set: `bench/params.env` in this workspace.
pub fn default_path() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../bench/params.env"
    ))
}

/// The sizes of the in-process workloads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Params {
    /// W1: callbacks queued with `call_soon`.
    pub w1_callbacks: u64,
    /// W2: steps of the callback chain.
    pub w2_steps: u64,
    /// W3: timers scheduled (every second one is cancelled).
    pub w3_timers: u64,
    /// W3: the largest delay, in milliseconds.
    pub w3_max_delay_ms: u64,
    /// W3: the seed of the delays.
    pub w3_seed: u64,
    /// W4: integers sent through the queue.
    pub w4_items: u64,
    /// Runs of each workload in one process, of which the fastest is reported.
    pub repeat: u64,
}

/// A missing or malformed parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamError(pub String);

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParamError {}

impl Params {
    /// Read `$BENCH_PARAMS` (or [`default_path`]), then let the environment override it.
    pub fn load() -> Result<Params, ParamError> {
        let path = std::env::var_os("BENCH_PARAMS")
            .map(PathBuf::from)
            .unwrap_or_else(default_path);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| ParamError(format!("cannot read {}: {e}", path.display())))?;
        Params::parse(&text, |key| std::env::var(key).ok())
    }

    /// Parse the text of a params file; `env` is asked first for every key.
    pub fn parse(text: &str, env: impl Fn(&str) -> Option<String>) -> Result<Params, ParamError> {
        let mut file = HashMap::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (key, value) = line
                .split_once('=')
                .ok_or_else(|| ParamError(format!("line {}: expected KEY=VALUE", number + 1)))?;
            file.insert(key.trim(), value.trim().trim_matches('"').to_owned());
        }
        let get = |key: &str| -> Result<u64, ParamError> {
            let value = env(key)
                .or_else(|| file.get(key).cloned())
                .ok_or_else(|| ParamError(format!("{key} is not set")))?;
            value
                .parse()
                .map_err(|_| ParamError(format!("{key}={value}: expected a whole number")))
        };
        Ok(Params {
            w1_callbacks: get("W1_CALLBACKS")?,
            w2_steps: get("W2_STEPS")?,
            w3_timers: get("W3_TIMERS")?,
            w3_max_delay_ms: get("W3_MAX_DELAY_MS")?,
            w3_seed: get("W3_SEED")?,
            w4_items: get("W4_ITEMS")?,
            repeat: get("REPEAT")?.max(1),
        })
    }

    /// The same sizes divided by `factor` (at least 1 each): for tests and quick looks.
    pub fn scaled_down(&self, factor: u64) -> Params {
        let f = |n: u64| (n / factor.max(1)).max(1);
        Params {
            w1_callbacks: f(self.w1_callbacks),
            w2_steps: f(self.w2_steps),
            w3_timers: f(self.w3_timers).max(2),
            w3_max_delay_ms: self.w3_max_delay_ms,
            w3_seed: self.w3_seed,
            w4_items: f(self.w4_items),
            repeat: self.repeat,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# sizes\nW1_CALLBACKS=10\nW2_STEPS = 20\nW3_TIMERS=30\n\
                        W3_MAX_DELAY_MS=5\nW3_SEED=7\nW4_ITEMS=\"40\"\nREPEAT=2\nW5_CONNS=50,1000\n";

    #[test]
    fn the_file_parses_and_the_environment_overrides_it() {
        let p = Params::parse(TEXT, |_| None).unwrap();
        assert_eq!((p.w1_callbacks, p.w2_steps, p.w4_items), (10, 20, 40));
        let p = Params::parse(TEXT, |k| (k == "W2_STEPS").then(|| "3".into())).unwrap();
        assert_eq!(p.w2_steps, 3);
    }

    #[test]
    fn errors_name_the_key() {
        let e = Params::parse("W1_CALLBACKS=x", |_| None).unwrap_err();
        assert!(e.0.contains("W1_CALLBACKS"), "{e}");
        let e = Params::parse("W1_CALLBACKS=1", |_| None).unwrap_err();
        assert!(e.0.contains("W2_STEPS"), "{e}");
    }

    #[test]
    fn the_shipped_file_parses() {
        let text = std::fs::read_to_string(default_path()).unwrap();
        let p = Params::parse(&text, |_| None).unwrap();
        assert_eq!(p.w1_callbacks, 1_000_000);
    }
}
