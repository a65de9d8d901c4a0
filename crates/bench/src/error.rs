//! Why a benchmark run stopped.

use npusim_numerics::NumericsError;

/// Why a benchmark run stopped.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// No case's name contains any of the texts asked for.
    #[error("no benchmark case contains {filters:?}; the cases are: {}", cases.join(", "))]
    NoCase {
        /// The texts asked for.
        filters: Vec<String>,
        /// The names of every case.
        cases: Vec<String>,
    },
    /// Two cases compared sample by sample must cast from the same source format.
    #[error("cannot pair {case} with {base}: their sources differ")]
    Unpairable {
        /// The measured case.
        case: String,
        /// The case it is compared with.
        base: String,
    },
    /// The thread pool of a measurement could not be started.
    #[error("cannot start the benchmark's thread pool")]
    ThreadPool(#[source] rayon::ThreadPoolBuildError),
    /// A timed workload (a simulator run, a quantization) failed.
    #[error("benchmark workload {workload}: {message}")]
    Workload {
        /// The workload's name.
        workload: String,
        /// What its library said.
        message: String,
    },
    /// A timed cast or pass refused its arguments.
    #[error(transparent)]
    Cast(#[from] NumericsError),
}
