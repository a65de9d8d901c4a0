//! The report of one program run and the list of shipped programs, as text and as JSON: what
//! `npusim cerebras run` prints.

use std::fmt::Write as _;

use npusim_cerebras::arch::Arch;
use npusim_cerebras::sched::PeStats;
use serde_json::{Value, json};

use super::{Output, PROGRAMS, Program, ProgramRun, Values};

/// The shipped programs, one line each: label, name, grid and description.
pub fn programs_text() -> String {
    let mut out = String::new();
    for p in PROGRAMS {
        let _ = writeln!(
            out,
            "{:<3} {:<26} {:<4} {}",
            p.label, p.name, p.grid, p.description
        );
    }
    out
}

/// The shipped programs as a JSON array of {name, label, grid, description}.
pub fn programs_json() -> Value {
    PROGRAMS
        .iter()
        .map(|p| json!({"name": p.name, "label": p.label, "grid": p.grid, "description": p.description}))
        .collect()
}

impl ProgramRun {
    /// Whether every output read back matches its expected values bit for bit.
    pub fn passes(&self) -> bool {
        self.mismatches().is_empty()
    }

    /// The text report of this run of `program` on `arch`: a heading, PASS/FAIL per output
    /// (with the expected values on a FAIL), cycles and trace hash, per-PE statistics and
    /// what was left idle. The verdict line is [`ProgramRun::verdict`].
    pub fn report_text(&self, program: &Program, arch: Arch) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = self.write_text(program, arch, &mut out);
        out
    }

    fn write_text(&self, program: &Program, arch: Arch, out: &mut String) -> std::fmt::Result {
        writeln!(
            out,
            "{} ({}, {} PEs, {arch}): {}",
            program.name, program.label, program.grid, program.description
        )?;
        for want in &self.expected {
            let got = self.got.iter().find(|g| g.name == want.name);
            let ok = got.is_some_and(|g| g.values.same_bits(&want.values));
            match got {
                Some(g) => writeln!(
                    out,
                    "{} {} = {}",
                    if ok { "PASS" } else { "FAIL" },
                    want.name,
                    g.values
                )?,
                None => writeln!(out, "FAIL {} was not read back", want.name)?,
            }
            if !ok {
                writeln!(out, "     expected {}", want.values)?;
            }
        }
        writeln!(
            out,
            "cycles {}, trace hash {:016x}",
            self.report.cycles, self.report.trace_hash
        )?;
        writeln!(
            out,
            "{:<10} {:>6} {:>6} {:>8} {:>5}  queue high water (input | output)",
            "PE", "busy", "stalls", "elements", "tasks"
        )?;
        for s in &self.report.pes {
            writeln!(
                out,
                "{:<10} {:>6} {:>6} {:>8} {:>5}  {} | {}",
                format!("({}, {})", s.x, s.y),
                s.busy_cycles,
                s.stalls,
                s.elements,
                s.tasks_started,
                high_water(&s.input_high_water),
                high_water(&s.output_high_water)
            )?;
        }
        for line in &self.report.idle {
            writeln!(out, "idle at the end (unbounded extent): {line}")?;
        }
        Ok(())
    }

    /// The last line of the text report.
    pub fn verdict(&self) -> &'static str {
        if self.passes() {
            "result: PASS (every output matches bit for bit)"
        } else {
            "result: FAIL"
        }
    }

    /// The report of this run of `program` on `arch` as one JSON object.
    pub fn report_json(&self, program: &Program, arch: Arch) -> Value {
        let output = |want: &Output| -> Value {
            let got = self.got.iter().find(|g| g.name == want.name);
            json!({
                "name": want.name,
                "type": want.values.type_name(),
                "got": got.and_then(|g| values_json(&g.values)),
                "expected": values_json(&want.values),
                "pass": got.is_some_and(|g| g.values.same_bits(&want.values)),
            })
        };
        json!({
            "program": program.name,
            "label": program.label,
            "arch": arch.to_string(),
            "grid": program.grid,
            "cycles": self.report.cycles,
            "trace_hash": format!("{:016x}", self.report.trace_hash),
            "outputs": self.expected.iter().map(output).collect::<Vec<_>>(),
            "pes": self.report.pes.iter().map(pe_json).collect::<Vec<_>>(),
            "idle": self.report.idle,
            "pass": self.passes(),
        })
    }
}

fn values_json(v: &Values) -> Option<Value> {
    serde_json::from_str(&format!("[{}]", v.to_json_items().join(","))).ok()
}

fn pe_json(s: &PeStats) -> Value {
    json!({
        "x": s.x,
        "y": s.y,
        "busy_cycles": s.busy_cycles,
        "stalls": s.stalls,
        "elements": s.elements,
        "tasks_started": s.tasks_started,
        "input_high_water": s.input_high_water,
        "output_high_water": s.output_high_water,
    })
}

/// Queue high-water marks as `q1:3 q2:1`, skipping empty queues (`-` when all are).
fn high_water(marks: &[u32]) -> String {
    let used: Vec<String> = marks
        .iter()
        .enumerate()
        .filter(|&(_, &m)| m > 0)
        .map(|(q, m)| format!("q{q}:{m}"))
        .collect();
    if used.is_empty() {
        "-".into()
    } else {
        used.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::super::find;
    use super::*;

    #[test]
    fn a_wrong_output_prints_fail_with_the_expected_values()
    -> Result<(), Box<dyn std::error::Error>> {
        let p = find("E3")?;
        let mut run = p.run(Arch::Wse2, false)?;
        if let Some(Values::F32(v)) = run.got.first_mut().map(|o| &mut o.values) {
            v[1] += 1.0;
        }
        assert!(!run.passes());
        let text = run.report_text(p, Arch::Wse2);
        assert!(
            text.contains("FAIL y (PE (1, 0)) = f32[17.0, 54.0"),
            "{text}"
        );
        assert!(text.contains("     expected f32[17.0, 53.0"), "{text}");
        assert_eq!(run.verdict(), "result: FAIL");
        let json = run.report_json(p, Arch::Wse2);
        assert_eq!(json["pass"], false);
        assert_eq!(json["outputs"][0]["pass"], false);
        assert_eq!(json["outputs"][1]["pass"], true);
        run.got.clear();
        let text = run.report_text(p, Arch::Wse2);
        assert!(text.contains("was not read back"), "{text}");
        Ok(())
    }
}
