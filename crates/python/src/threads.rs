//! The thread pools behind `threads=`: by default a pool of every core that the calling
//! thread belongs to (its home pool), or a pool of exactly n threads, built once per n and kept.

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

/// Runs `f` in the calling thread's home pool: as many threads as the global rayon pool would
/// have (`RAYON_NUM_THREADS`, else every core), the calling thread being one of them. A split
/// cast then costs one wake-up of a worker, and the calling thread casts pieces itself instead of
/// sleeping until the pool's threads wake, run and wake it again; a piece no worker has taken
/// yet is cast by the calling thread. Where no home pool can be built (the thread already
/// belongs to a pool), `f` runs as it is, in that pool.
pub fn on_home_pool<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    thread_local! {
        // Built on the thread's first split cast; dropped (its workers stopped) when the thread
        // ends. rayon keeps a few kilobytes of the pool's bookkeeping for the thread's lifetime.
        static HOME: Option<ThreadPool> = ThreadPoolBuilder::new().use_current_thread().build().ok();
    }
    HOME.with(|home| match home {
        Some(pool) => pool.install(f),
        None => f(),
    })
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
