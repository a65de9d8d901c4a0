//! How much of each tour section to print.

/// How much of a section to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Counts, a few representative cases, every failure.
    Summary,
    /// Every case.
    Verbose,
    /// Counts and failures.
    FailuresOnly,
}

impl Detail {
    /// Whether to print a case that passed (`pass`) and is or is not `representative`.
    pub const fn shows(self, pass: bool, representative: bool) -> bool {
        match self {
            Detail::Verbose => true,
            Detail::Summary => !pass || representative,
            Detail::FailuresOnly => !pass,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_always_show_and_passes_per_detail() {
        for d in [Detail::Summary, Detail::Verbose, Detail::FailuresOnly] {
            assert!(d.shows(false, false));
        }
        assert!(Detail::Verbose.shows(true, false));
        assert!(Detail::Summary.shows(true, true));
        assert!(!Detail::Summary.shows(true, false));
        assert!(!Detail::FailuresOnly.shows(true, true));
    }
}
