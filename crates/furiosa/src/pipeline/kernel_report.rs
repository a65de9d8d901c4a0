//! The text `npusim furiosa run` prints for a kernel: a line per stage, the first values of
//! the last committed tensor in its logical order, the total, and (on request) the schedule.

use super::kernel_run::KernelRun;

/// How many output values the report shows.
pub const SHOWN_VALUES: usize = 32;

impl KernelRun {
    /// The first [`SHOWN_VALUES`] logical values of tensor `name`, as `i8[-88, -84, ...]`.
    pub fn values_text(&self, name: &str) -> Result<String, super::KernelError> {
        let codes = self.values(name)?;
        let dtype = self.tensor(name)?.tensor.dtype();
        let format = dtype.format();
        let shown: Vec<String> = codes
            .iter()
            .take(SHOWN_VALUES)
            .map(|&c| format.decode(c).to_f64().to_string())
            .collect();
        let more = codes.len().saturating_sub(SHOWN_VALUES);
        let rest = if more > 0 {
            format!(", ... {more} more")
        } else {
            String::new()
        };
        Ok(format!("{dtype}[{}{rest}]", shown.join(", ")))
    }

    /// The report: stage lines, the last committed tensor's values, the total and, when
    /// `schedule` is set, the per-engine schedule of every invocation.
    pub fn report(&self, schedule: bool) -> Result<String, super::KernelError> {
        let mut out = String::new();
        for line in &self.stages {
            out += line;
            out.push('\n');
        }
        if let Some(last) = self.last_committed() {
            out += &format!(
                "output `{}` ({}): {}\n",
                last.name,
                last.order.join(", "),
                self.values_text(&last.name)?
            );
        }
        out += &format!(
            "total: {} cycles per slice over {} invocation(s) (model {}; engines stream concurrently: the slowest engine's stream plus fill latencies and the ring tail)\n",
            self.schedule.makespan,
            self.schedule.invocations.len(),
            self.schedule.model
        );
        if schedule {
            out += &format!("{}\n", self.schedule);
            out += &self.warnings_text();
        }
        Ok(out)
    }

    /// The run's warnings (§2.2 overlaps), a line each.
    pub fn warnings_text(&self) -> String {
        self.warnings.iter().map(|w| format!("{w}\n")).collect()
    }
}
