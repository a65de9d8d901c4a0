//! The schedule as text (§10.3): per invocation its context, engine chain, start and total, a
//! table `engine | units | cycles/unit | busy | fill | start | finish | stall`, then the
//! device's makespan.

use std::fmt;

use super::{InvocationSchedule, Schedule};

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
        }
        write!(
            f,
            "makespan {} cycles per slice (model {}; engines stream concurrently, FIFOs deep enough that no engine is held back)",
            self.makespan, self.model
        )
    }
}
