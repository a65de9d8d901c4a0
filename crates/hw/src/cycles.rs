//! Cycle estimates: what a documented timing model says an operation costs.
//!
//! An estimate is reported next to a functional result, never inside it: functions that model
//! timing return `(result, CycleEstimate)` or offer a separate `estimate_*` function, so the bits
//! a model computes never depend on its timing model.

use std::fmt;

/// One stage of an estimate: its name and its cycles.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Stage {
    /// Stage name as the model documents it (`collect`, `reduce`, ...).
    pub name: String,
    /// Cycles the model charges for the stage.
    pub cycles: u64,
}

/// A cycle estimate: stages in the order the model runs them, their total, and the name of the
/// model that produced it.
///
/// The total is the sum of the stages (saturating at `u64::MAX`); a model whose stages overlap
/// lists the stages of its critical path.
///
/// ```
/// use npusim_hw::CycleEstimate;
/// let e = CycleEstimate::new("furiosa-ve-v1")
///     .stage("collect", 10)
///     .stage("reduce", 1200)
///     .stage("commit", 24);
/// assert_eq!(e.total(), 1234);
/// assert_eq!(
///     e.to_string(),
///     "~1234 cycles (model: furiosa-ve-v1: collect 10, reduce 1200, commit 24)"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CycleEstimate {
    model: String,
    stages: Vec<Stage>,
}

impl CycleEstimate {
    /// An empty estimate (0 cycles) of the model named `model`.
    pub fn new(model: impl Into<String>) -> CycleEstimate {
        CycleEstimate {
            model: model.into(),
            stages: Vec::new(),
        }
    }

    /// Appends a stage (builder style).
    #[must_use]
    pub fn stage(mut self, name: impl Into<String>, cycles: u64) -> CycleEstimate {
        self.push(name, cycles);
        self
    }

    /// Appends a stage.
    pub fn push(&mut self, name: impl Into<String>, cycles: u64) {
        self.stages.push(Stage {
            name: name.into(),
            cycles,
        });
    }

    /// The model's name.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The stages, in order.
    pub fn stages(&self) -> &[Stage] {
        &self.stages
    }

    /// Total cycles: the sum of the stages, saturating.
    pub fn total(&self) -> u64 {
        self.stages
            .iter()
            .fold(0u64, |acc, s| acc.saturating_add(s.cycles))
    }
}

impl fmt::Display for CycleEstimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "~{} cycles (model: {}", self.total(), self.model)?;
        for (i, s) in self.stages.iter().enumerate() {
            let sep = if i == 0 { ": " } else { ", " };
            write!(f, "{sep}{} {}", s.name, s.cycles)?;
        }
        f.write_str(")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_is_the_sum_of_the_stages_in_order() {
        let mut e = CycleEstimate::new("m");
        e.push("a", 3);
        e.push("b", 4);
        assert_eq!(e.total(), 7);
        let names: Vec<&str> = e.stages().iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(e.model(), "m");
    }

    #[test]
    fn display_with_and_without_stages() {
        assert_eq!(CycleEstimate::new("m").to_string(), "~0 cycles (model: m)");
        let e = CycleEstimate::new("furiosa-ve-v1")
            .stage("collect", 10)
            .stage("reduce", 1200)
            .stage("commit", 24);
        assert_eq!(
            e.to_string(),
            "~1234 cycles (model: furiosa-ve-v1: collect 10, reduce 1200, commit 24)"
        );
    }

    #[test]
    fn total_saturates() {
        let e = CycleEstimate::new("m").stage("a", u64::MAX).stage("b", 1);
        assert_eq!(e.total(), u64::MAX);
    }
}
