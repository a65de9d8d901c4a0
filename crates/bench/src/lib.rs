//! The bulk-cast benchmark harness of npusim: each case's throughput as ratios against
//! baselines run in the same process on the same bytes and threads (a memcpy, the cast's
//! floor, the `half` crate), checked against the speed targets; or, as a crossover, from how
//! many elements splitting a cast over the thread pool pays.
//!
//! [`run`] measures and returns a [`Report`]; the caller writes it where it wants. Timings are
//! medians over interleaved samples; nothing here asserts a speed.

mod cases;
mod crossover;
mod error;
mod measure;
mod options;
mod report;
mod targets;
mod timing;
mod workloads;

pub use error::BenchError;
pub use options::BenchOptions;
pub use report::Report;

/// Runs the measurements `options` ask for, calling `progress` with a one-line description
/// before each measurement (never in a JSON run), and returns what to print.
pub fn run(options: &BenchOptions, progress: &mut dyn FnMut(&str)) -> Result<Report, BenchError> {
    if options.crossover {
        crossover::run(options, progress)
    } else {
        measure::run(options, progress)
    }
}
