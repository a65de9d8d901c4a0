//! What a benchmark run measured, ready to be written.

use std::io::{self, Write};

use crate::cases::{Row, human};
use crate::crossover::table::Crossover;
use crate::targets::Verdict;
use crate::workloads::WorkloadRow;

/// What a benchmark run measured, ready to be written: a table with the targets' verdicts, a
/// crossover table, or a JSON array.
pub struct Report(pub(crate) Kind);

/// The kinds of report.
pub(crate) enum Kind {
    /// One JSON array, its final newline included.
    Json(String),
    /// The rows as a table, then the verdicts of the speed targets.
    Table {
        /// Every cast measurement.
        rows: Vec<Row>,
        /// Every workload measurement (simulators, block-scaled quantization).
        workloads: Vec<WorkloadRow>,
        /// The targets the rows and pairs could check.
        verdicts: Vec<Verdict>,
    },
    /// The crossover measurement as a table.
    Crossover(Crossover),
}

impl Report {
    /// Writes the report as text.
    pub fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        match &self.0 {
            Kind::Json(text) => out.write_all(text.as_bytes()),
            Kind::Table {
                rows,
                workloads,
                verdicts,
            } => {
                if !rows.is_empty() {
                    print_table(out, rows)?;
                }
                crate::workloads::print(out, workloads)?;
                crate::targets::print(out, verdicts)
            }
            Kind::Crossover(c) => c.write(out),
        }
    }
}

/// Writes the measurements as a table, with what its columns mean.
fn print_table(out: &mut dyn Write, rows: &[Row]) -> io::Result<()> {
    writeln!(
        out,
        "{:<26} {:<16} {:>8} {:>3} {:>8} {:>7} {:>8} {:>7} {:>6} {:>6}  min/median/max Gelem/s",
        "case",
        "kernel",
        "elements",
        "thr",
        "Gelem/s",
        "GB/s",
        "%memcpy",
        "%floor",
        "×half",
        "%bare"
    )?;
    for r in rows {
        let x_half = r.x_half.map_or("-".to_string(), |x| format!("{x:.2}"));
        let pct_bare = r.pct_bare.map_or("-".to_string(), |x| format!("{x:.0}%"));
        writeln!(
            out,
            "{:<26} {:<16} {:>8} {:>3} {:>8.3} {:>7.2} {:>7.1}% {:>6.1}% {:>6} {:>6}  {:.3}/{:.3}/{:.3}",
            r.case,
            r.kernel,
            human(r.elements),
            r.threads,
            r.gelem[1],
            r.gelem[1] * r.bytes_per_elem,
            r.pct_memcpy,
            r.pct_floor,
            x_half,
            pct_bare,
            r.gelem[0],
            r.gelem[1],
            r.gelem[2],
        )?;
    }
    writeln!(
        out,
        "\nGB/s counts input + output bytes; %memcpy compares that with a same-run copy of the input on as many threads (its bytes in + out); %floor compares the cast's speed with a same-run pass that only reads its input and writes its output (`bulk::touch_elements`: the cast's data movement without its arithmetic, split and streamed the same way); ×half is the `half` crate's slice conversion of the same data, split the same way; %bare compares the cast's speed with a same-run pass of the hardware conversion alone on the same data and threads (`bulk::bare_convert`: for f32 -> f16 / bf16 / i8 and f16 / bf16 -> f32 to nearest even, the fewest instructions of the best level here, e.g. vcvtps2ph, vcvtne2ps2bf16, vcvtps2dq + packs, vcvtph2ps, a shift, split, aligned and streamed as the cast is, with no status counted and no NaN or overflow policy: what torch's `.to` runs; a ceiling, not a cast), so 100 % minus %bare is what the cast's statuses and policy cost."
    )?;
    writeln!(
        out,
        "torch is not measured in this process (a Rust binary has no torch): `python3 tools/compare_torch.py` times npusim against torch side by side, and docs/speed.md keeps its last table."
    )
}
