//! Counts for the per-tensor summary: how many results are NaN, ±Inf, or saturated, read off
//! the status numerics returns with every result (no second pass over the output).

use std::fmt;

use npusim_numerics::{Status, StatusCounts};

/// What became of the elements of one cast.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Results that are NaN.
    pub nan: u64,
    /// Results that are ±Inf.
    pub inf: u64,
    /// Results clamped to the destination's most positive or most negative finite value from an
    /// input beyond it (including ±Inf inputs).
    pub saturated: u64,
}

impl Stats {
    /// Adds another count.
    pub fn add(&mut self, other: Stats) {
        self.nan += other.nan;
        self.inf += other.inf;
        self.saturated += other.saturated;
    }
}

impl From<&StatusCounts> for Stats {
    fn from(c: &StatusCounts) -> Stats {
        Stats {
            nan: c.get(Status::NAN),
            inf: c.get(Status::INF),
            saturated: c.get(Status::SATURATED),
        }
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} NaN, {} Inf, {} saturated",
            self.nan, self.inf, self.saturated
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use npusim_numerics::{
        BulkOptions, CastPolicy, Format, RoundMode, Storage, cast_elements_with_status,
    };

    #[test]
    fn counts_nan_inf_and_saturation() {
        let xs = [1.0f32, 1000.0, f32::INFINITY, f32::NAN, 448.0, -1e9];
        let src: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
        let mut dst = [0u8; 6];
        let p = CastPolicy::saturating(RoundMode::Rint);
        let counts = cast_elements_with_status(
            &src,
            Storage::native(Format::F32),
            &mut dst,
            Storage::native(Format::F8E4M3FN),
            6,
            &p,
            &BulkOptions::default(),
        )
        .unwrap();
        let st = Stats::from(&counts);
        assert_eq!(
            st,
            Stats {
                nan: 1,
                inf: 0,
                saturated: 3
            }
        );
        assert_eq!(st.to_string(), "1 NaN, 0 Inf, 3 saturated");
    }
}
