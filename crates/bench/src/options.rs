//! What a benchmark run measures and how long its samples are.

/// What a benchmark run measures and how.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BenchOptions {
    /// Report the rows as one JSON array instead of a table (and call no progress).
    pub json: bool,
    /// A short run: fewer and half as long samples, 16 Mi instead of 64 Mi elements for the
    /// parallel size, no one-buffer-alone baseline.
    pub quick: bool,
    /// Only the cases whose name contains one of these texts (all cases when empty; for the
    /// crossover, a default set of four).
    pub cases: Vec<String>,
    /// Samples per measurement (default 7, 3 for a quick run; at least 1).
    pub repeats: Option<usize>,
    /// Instead of the table: time each case on 2^13 to 2^22 elements on one thread and split
    /// over all threads, and report from which size splitting pays.
    pub crossover: bool,
}

impl BenchOptions {
    /// Samples per measurement: the number asked for, else 7 (3 for a quick run); at least 1.
    pub fn samples(&self) -> usize {
        self.repeats
            .unwrap_or(if self.quick { 3 } else { 7 })
            .max(1)
    }
}
