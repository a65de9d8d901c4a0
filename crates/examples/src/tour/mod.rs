//! The tour: every worked example of the vendor documentation run through npusim and checked
//! bit for bit, written as a report.
//!
//! Each architecture contributes one section that prints a short summary — counts, a few
//! representative cases and every failure — or, per [`Detail`], every case or only the
//! failures. The cases are this crate's fixtures (for Ascend, [`crate::ascend::goldens`]; for
//! Furiosa, [`crate::furiosa::document_examples`]) and, for Cerebras, `npusim-cerebras`'s
//! examples and programs, so the tour and the crates' tests read the same rows.

mod ascend;
mod cerebras;
mod detail;
mod furiosa;

use std::io::{self, Write};

pub use detail::Detail;

/// Writes the tour's heading and its Ascend, Cerebras and Furiosa sections to `out`, each
/// followed by an empty line; returns the number of failed checks (0: every case passed).
pub fn run(out: &mut dyn Write, detail: Detail) -> io::Result<usize> {
    writeln!(
        out,
        "npusim tour: the worked examples of the vendor documentation, checked bit for bit"
    )?;
    writeln!(out)?;
    let mut failed = ascend::run(out, detail)?;
    writeln!(out)?;
    failed += cerebras::run(out, detail)?;
    writeln!(out)?;
    failed += furiosa::run(out, detail)?;
    writeln!(out)?;
    Ok(failed)
}
