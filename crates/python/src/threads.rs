//! The thread pools behind `threads=`: the global rayon pool (every core, as the CLI) by
//! default, or a pool of exactly n threads, built once per n and kept.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rayon::{ThreadPool, ThreadPoolBuilder};

/// How many threads a call may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// The global pool (every core).
    All,
    /// Exactly this many (1: the calling thread alone).
    Exactly(usize),
}

impl Threads {
    /// `threads=` as given: `None` is every core; 0 is refused.
    pub fn from_arg(threads: Option<usize>) -> Result<Threads, String> {
        match threads {
            None => Ok(Threads::All),
            Some(0) => Err("threads=0: give at least 1 thread (or None for every core)".into()),
            Some(n) => Ok(Threads::Exactly(n)),
        }
    }

    /// Whether the work may be split at all.
    pub fn parallel(self) -> bool {
        self != Threads::Exactly(1)
    }
}

/// The pool of `n` threads, built on first use.
pub fn pool(n: usize) -> Result<Arc<ThreadPool>, String> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<ThreadPool>>>> = OnceLock::new();
    let pools = POOLS.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = pools
        .lock()
        .map_err(|_| "the thread pool registry is poisoned".to_string())?;
    if let Some(p) = map.get(&n) {
        return Ok(Arc::clone(p));
    }
    let p = Arc::new(
        ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| format!("cannot start {n} threads: {e}"))?,
    );
    map.insert(n, Arc::clone(&p));
    Ok(p)
}
