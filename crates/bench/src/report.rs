//! What a benchmark run measured, ready to be written.

use std::io::{self, Write};

use crate::cases::Row;
use crate::crossover::Crossover;
use crate::targets::Verdict;

/// What a benchmark run measured, ready to be written: a table with the targets' verdicts, a
/// crossover table, or a JSON array.
pub struct Report(pub(crate) Kind);

/// The kinds of report.
pub(crate) enum Kind {
    /// One JSON array, its final newline included.
    Json(String),
    /// The rows as a table, then the verdicts of the speed targets.
    Table {
        /// Every measurement.
        rows: Vec<Row>,
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
            Kind::Table { rows, verdicts } => {
                crate::measure::print_table(out, rows)?;
                crate::targets::print(out, verdicts)
            }
            Kind::Crossover(c) => c.write(out),
        }
    }
}
