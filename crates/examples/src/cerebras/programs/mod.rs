//! The Cerebras SDK tutorial programs E1–E10, ported by hand, and E11 (E4's pattern at any size), as one list: each builds a simulation,
//! reads its results back and knows the results it must give. The `examples/`, the tests,
//! `npusim cerebras run` and the tour all use [`PROGRAMS`].
//!
//! ```
//! use npusim_cerebras::Arch;
//! use npusim_examples::cerebras::programs::find;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let run = find("gemv-06-routes-1")?.run(Arch::Wse2, false)?;
//! assert!(run.mismatches().is_empty());
//! # Ok(()) }
//! ```

pub mod e10_map_builtin;
pub mod e11_gemv_scaled;
pub mod e1_gemv_memory_dsds;
pub mod e2_gemv_multiple_pes;
pub mod e3_gemv_routes_1;
pub mod e4_gemv_routes_3;
pub mod e5_gemv_streaming;
pub mod e6_gemv_checkerboard;
pub mod e7_pipeline_basic;
pub mod e8_pipeline_fifo;
pub mod e9_fifos;
pub mod error;
mod run_report;
mod stream_counts;
pub mod values;

pub use error::ProgramError;
pub use run_report::{programs_json, programs_text};
pub use values::{Output, Values};

use npusim_cerebras::arch::Arch;
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route, Wavelet};
use npusim_cerebras::sched::{RunReport, Sim};

/// One shipped program.
#[derive(Clone, Copy, Debug)]
pub struct Program {
    /// The SDK example's name, e.g. `gemv-06-routes-1`.
    pub name: &'static str,
    /// The label E1..E11 of the program, e.g. `E3`.
    pub label: &'static str,
    /// What it computes, in one line.
    pub description: &'static str,
    /// Grid size, e.g. `2x1`.
    pub grid: &'static str,
    /// Builds the simulation with the program's inputs, ready to run.
    pub build: fn(Arch) -> Result<Sim, ProgramError>,
    /// Reads the results back from a finished simulation.
    pub read: fn(&Sim) -> Result<Vec<Output>, ProgramError>,
    /// The results it must give (computed from the program's definition, not recorded).
    pub expected: fn() -> Vec<Output>,
    /// Cycle limit of the run.
    pub cycle_limit: u64,
}

/// A finished run of a program.
pub struct ProgramRun {
    /// The simulation after the run (its events, if recorded, and memories).
    pub sim: Sim,
    /// Cycles, per-PE statistics, trace hash.
    pub report: RunReport,
    /// What the program read back.
    pub got: Vec<Output>,
    /// What it must give.
    pub expected: Vec<Output>,
}

impl ProgramRun {
    /// Outputs whose name, type or bits differ from the expected ones, as
    /// `(expected, got or None when missing)`.
    pub fn mismatches(&self) -> Vec<(&Output, Option<&Output>)> {
        let mut out = Vec::new();
        for want in &self.expected {
            let got = self.got.iter().find(|g| g.name == want.name);
            if !got.is_some_and(|g| g.values.same_bits(&want.values)) {
                out.push((want, got));
            }
        }
        out
    }

    /// The run as the examples print it: one `name = values` line per output read back, then
    /// the cycles and trace hash, then whether it matches the expected output.
    pub fn summary(&self) -> String {
        let mut text = String::new();
        for o in &self.got {
            text.push_str(&format!("{} = {}\n", o.name, o.values));
        }
        text.push_str(&format!(
            "cycles = {}, trace hash = {:016x}\n",
            self.report.cycles, self.report.trace_hash
        ));
        text.push_str(&format!(
            "matches the expected output: {}\n",
            self.mismatches().is_empty()
        ));
        text
    }
}

impl Program {
    /// Builds, runs (recording events when `record`) and reads back the program on `arch`.
    pub fn run(&self, arch: Arch, record: bool) -> Result<ProgramRun, ProgramError> {
        self.run_on_threads(arch, record, 1)
    }

    /// As [`Program::run`], its PEs stepped on `threads` threads (the same results, cycles
    /// and trace hash at any count; 0 is refused).
    pub fn run_on_threads(
        &self,
        arch: Arch,
        record: bool,
        threads: usize,
    ) -> Result<ProgramRun, ProgramError> {
        let mut sim = (self.build)(arch)?;
        sim.record_events(record);
        sim.set_threads(threads)?;
        let report = sim.run(self.cycle_limit)?;
        let got = (self.read)(&sim)?;
        Ok(ProgramRun {
            sim,
            report,
            got,
            expected: (self.expected)(),
        })
    }
}

/// Every shipped program, in label order E1..E11.
pub const PROGRAMS: &[Program] = &[
    e1_gemv_memory_dsds::PROGRAM,
    e2_gemv_multiple_pes::PROGRAM,
    e3_gemv_routes_1::PROGRAM,
    e4_gemv_routes_3::PROGRAM,
    e5_gemv_streaming::PROGRAM,
    e6_gemv_checkerboard::PROGRAM,
    e7_pipeline_basic::PROGRAM,
    e8_pipeline_fifo::PROGRAM,
    e9_fifos::PROGRAM,
    e10_map_builtin::PROGRAM,
    e11_gemv_scaled::PROGRAM,
];

/// The program called `name` (its SDK name or its label, case-insensitive: `E3`).
pub fn find(name: &str) -> Result<&'static Program, ProgramError> {
    PROGRAMS
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case(name) || p.label.eq_ignore_ascii_case(name))
        .ok_or_else(|| ProgramError::Unknown {
            name: name.to_string(),
            known: PROGRAMS
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", "),
        })
}
/// A 1×1 grid whose PE takes `wavelets` from the host on `h2d` (in at the west edge), sends
/// `d2h` to the host (out at the east edge) and routes each of `loopbacks` from its ramp back
/// to its ramp: the shape of the single-PE pipeline programs (E7–E9).
pub(crate) fn one_pe_host_pipe(
    arch: Arch,
    h2d: Color,
    d2h: Color,
    loopbacks: &[Color],
    wavelets: impl IntoIterator<Item = Wavelet>,
) -> Result<Sim, ProgramError> {
    let mut sim = Sim::new(arch, 1, 1)?;
    let f = sim.fabric_mut();
    let routes = [(h2d, Dir::West, Dir::Ramp), (d2h, Dir::Ramp, Dir::East)]
        .into_iter()
        .chain(loopbacks.iter().map(|&c| (c, Dir::Ramp, Dir::Ramp)));
    for (color, rx, tx) in routes {
        f.set_color_config(0, 0, color, ColorConfig::fixed(Route::new(&[rx], &[tx])))?;
    }
    f.open_edge(0, 0, Dir::West)?;
    f.open_edge(0, 0, Dir::East)?;
    f.stream_in(0, 0, Dir::West, wavelets)?;
    Ok(sim)
}

/// `y = A x + b` in f64 (exact for the programs' small integers), rounded to f32, for an
/// `m` x `n` matrix given by `a(i, j)`.
pub(crate) fn gemv_reference(
    m: u64,
    n: u64,
    a: impl Fn(u64, u64) -> f64,
    x: impl Fn(u64) -> f64,
    b: impl Fn(u64) -> f64,
) -> Vec<f32> {
    (0..m)
        .map(|i| ((0..n).map(|j| a(i, j) * x(j)).sum::<f64>() + b(i)) as f32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_labels_are_unique_and_found() {
        for (k, p) in PROGRAMS.iter().enumerate() {
            for q in &PROGRAMS[k + 1..] {
                assert_ne!(p.name, q.name);
                assert_ne!(p.label, q.label);
            }
            assert_eq!(find(p.name).map(|f| f.name).ok(), Some(p.name));
            assert_eq!(
                find(&p.label.to_lowercase()).map(|f| f.name).ok(),
                Some(p.name)
            );
        }
        let err = find("gemv-99")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains("gemv-99") && err.contains("gemv-06-routes-1"),
            "{err}"
        );
    }
}
