//! The schedule as text (§10.3): per invocation its context, engine chain, start and total, a
//! table `engine | units | cycles/unit | busy | fill | start | finish | stall`, then the
//! device's makespan. A fetch or commit whose same-bank run reaches
//! [`BANK_RUN_LIMIT`] adds a warning line under its invocation's table.

use std::fmt;

use super::{InvocationSchedule, Schedule};
use crate::sequencer::BANK_RUN_LIMIT;

impl fmt::Display for InvocationSchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<8} | {:>7} | {:>11} | {:>7} | {:>5} | {:>7} | {:>7} | {:>7}",
            "engine", "units", "cycles/unit", "busy", "fill", "start", "finish", "stall"
        )?;
        for e in &self.engines {
            let r = &e.record;
            writeln!(
                f,
                "{:<8} | {:>7} | {:>11} | {:>7} | {:>5} | {:>7} | {:>7} | {:>7}",
                r.engine.name(),
                r.units,
                r.cycles_per_unit,
                e.busy,
                r.fill,
                e.start,
                e.finish,
                e.stall
            )?;
        }
        Ok(())
    }
}

impl InvocationSchedule {
    /// The schedule on one line: `fetch 16, collect 16, vector 16 + fill 3, cast 16 from 3,
    /// commit 16 from 3: 19 cycles` (busy cycles, then fill, start and stall when not 0).
    pub fn summary(&self) -> String {
        let parts: Vec<String> = self
            .engines
            .iter()
            .map(|e| {
                let mut p = format!("{} {}", e.record.engine.name(), e.busy);
                if e.record.fill > 0 {
                    p += &format!(" + fill {}", e.record.fill);
                }
                if e.start > 0 {
                    p += &format!(" from {}", e.start);
                }
                if e.stall > 0 {
                    p += &format!(" (stall {})", e.stall);
                }
                p
            })
            .collect();
        format!("{}: {} cycles", parts.join(", "), self.total)
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.invocations.iter().enumerate() {
            let inv = &s.invocation;
            let chain: Vec<&str> = inv.engines.iter().map(|e| e.record.engine.name()).collect();
            writeln!(
                f,
                "invocation {} ({}): {}; starts at cycle {}, total {} cycles{}",
                i + 1,
                inv.context.name(),
                chain.join(" -> "),
                s.start,
                inv.total,
                inv.bottleneck()
                    .map(|b| format!(", bottleneck {}", b.name()))
                    .unwrap_or_default()
            )?;
            write!(f, "{inv}")?;
            for e in &inv.engines {
                if e.record.bank_run >= BANK_RUN_LIMIT as u64 {
                    writeln!(
                        f,
                        "warning: {} makes {} consecutive accesses to one DM bank (64 or more starve DMA while it runs: the Memory Performance page's limit; not timed)",
                        e.record.engine.name(),
                        e.record.bank_run
                    )?;
                }
            }
        }
        write!(
            f,
            "makespan {} cycles per slice (model {}; engines stream concurrently, FIFOs deep enough that no engine is held back)",
            self.makespan, self.model
        )
    }
}
