//! How a run ends: at the first cycle that changes nothing, threads still waiting are a
//! deadlock (reported with what each waits on), except asynchronous operations with an
//! unbounded extent, which are listed as idle; a run that hits its cycle limit reports what
//! was still busy.

use super::error::SimError;
use super::sim::Sim;
use super::stats::{PeStats, RunReport};

impl Sim {
    /// What each waiting thread waits on.
    pub(super) fn waits(&self, include_unbounded: bool) -> (Vec<String>, Vec<String>) {
        let mut waits = Vec::new();
        let mut idle = Vec::new();
        for (k, st) in self.pes.iter().enumerate() {
            let (x, y) = self.fabric.coords(k);
            if let (Some((run, label, _)), Some(w)) = (&st.main.current, st.main.waiting) {
                waits.push(format!(
                    "PE ({x}, {y}) main thread {label} element {}: waits for {w}",
                    run.elements()
                ));
            }
            for m in &st.micro {
                let line = format!(
                    "PE ({x}, {y}) microthread {} {} element {}: waits for {}",
                    m.ut,
                    m.label,
                    m.run.elements(),
                    if st
                        .blocked_uts
                        .get(usize::from(m.ut))
                        .copied()
                        .unwrap_or(false)
                    {
                        "@unblock (it is blocked)".to_string()
                    } else {
                        m.waiting
                            .map_or("its first cycle".to_string(), |w| w.to_string())
                    }
                );
                if m.run.len() == u64::MAX && !include_unbounded {
                    idle.push(line);
                } else {
                    waits.push(line);
                }
            }
        }
        waits.extend(self.pending_flushes());
        for (x, y, d, w) in self.fabric.waiting() {
            waits.push(format!("PE ({x}, {y}) router port {d}: {w} cannot move"));
        }
        (waits, idle)
    }

    pub(super) fn busy(&self) -> Vec<String> {
        let (mut waits, idle) = self.waits(true);
        waits.extend(idle);
        for (k, st) in self.pes.iter().enumerate() {
            if let Some(t) = &st.main.task {
                let (x, y) = self.fabric.coords(k);
                waits.push(format!("PE ({x}, {y}) runs task {t}"));
            }
        }
        waits
    }

    pub(super) fn finish(&mut self, cycle: u64) -> Result<RunReport, SimError> {
        let (waits, idle) = self.waits(false);
        if !waits.is_empty() {
            return Err(SimError::Deadlock { cycle, waits });
        }
        let pes = self
            .pes
            .iter()
            .map(|st| {
                let (i, o) = st.pe.queues.high_water();
                PeStats {
                    input_high_water: i,
                    output_high_water: o,
                    ..st.stats.clone()
                }
            })
            .collect();
        Ok(RunReport {
            cycles: cycle,
            pes,
            trace_hash: self.trace.value(),
            idle,
        })
    }
}
