//! Counts for the per-tensor summary: how many results are NaN, ±Inf, or saturated, read off
//! the status numerics returns with every result (no second pass over the output).

use std::fmt;

use super::error_stats::ErrorStats;

use npusim_numerics::{Exact, Status, StatusCounts, Storage};

/// What became of the elements of one cast.
///
/// Every report of a cast holds one, so it is kept small: the error statistics, asked for
/// or not, are boxed (48 bytes in all, not 152; a file of a million tensors holds a million).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Results that are NaN.
    pub nan: u64,
    /// Results that are ±Inf.
    pub inf: u64,
    /// Results clamped to the destination's most positive or most negative finite value from an
    /// input beyond it (including ±Inf inputs).
    pub saturated: u64,
    /// Results that are NaN or ±Inf although their input was finite (overflow without
    /// saturation, a negative value into an unsigned float, ...).
    pub nonfinite_from_finite: u64,
    /// Non-zero finite inputs whose result is zero.
    pub flushed_to_zero: u64,
    /// Error statistics, when the cast was asked for them ([`super::CastJob::error_stats`]).
    pub error: Option<Box<ErrorStats>>,
}

impl Stats {
    /// Adds another count.
    pub fn add(&mut self, other: Stats) {
        self.nan += other.nan;
        self.inf += other.inf;
        self.saturated += other.saturated;
        self.nonfinite_from_finite += other.nonfinite_from_finite;
        self.flushed_to_zero += other.flushed_to_zero;
        self.error = match (self.error.take(), other.error) {
            (Some(mut a), Some(b)) => {
                a.merge(&b);
                Some(a)
            }
            (a, b) => a.or(b),
        };
    }

    /// Counts the NaN and ±Inf results of finite inputs among `count` elements cast from
    /// `src` (`s`) into `dst` (`d`), by decoding both sides. [`Stats::from`] leaves the count at
    /// 0; a caller runs this only on chunks whose counts show a NaN or Inf result, so casts
    /// without any pay nothing.
    pub(crate) fn count_nonfinite_from_finite(
        &mut self,
        src: &[u8],
        s: Storage,
        dst: &[u8],
        d: Storage,
        count: usize,
    ) {
        let finite = |e: Exact| matches!(e, Exact::Finite { .. });
        let n = (0..count)
            .filter(|&i| {
                finite(s.format().decode(s.read(src, i)))
                    && !finite(d.format().decode(d.read(dst, i)))
            })
            .count();
        self.nonfinite_from_finite += n as u64;
    }
}

impl From<&StatusCounts> for Stats {
    fn from(c: &StatusCounts) -> Stats {
        Stats {
            nan: c.get(Status::NAN),
            inf: c.get(Status::INF),
            saturated: c.get(Status::SATURATED),
            nonfinite_from_finite: 0,
            flushed_to_zero: c.get(Status::FLUSHED_TO_ZERO),
            error: None,
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
    fn counts_nan_inf_saturation_and_flushes() {
        let xs = [1.0f32, 1000.0, f32::INFINITY, f32::NAN, 448.0, -1e9, 1e-9];
        let src: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
        let mut dst = [0u8; 7];
        let p = CastPolicy::saturating(RoundMode::Rint);
        let counts = cast_elements_with_status(
            &src,
            Storage::native(Format::F32),
            &mut dst,
            Storage::native(Format::F8E4M3FN),
            7,
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
                saturated: 3,
                nonfinite_from_finite: 0,
                flushed_to_zero: 1,
                error: None,
            }
        );
        assert_eq!(st.to_string(), "1 NaN, 0 Inf, 3 saturated");
    }

    #[test]
    fn nan_and_inf_from_finite_inputs_are_told_apart_from_nan_and_inf_inputs() {
        // IEEE policy: e5m2 overflow gives Inf; e4m3fn (no Inf) gives NaN; f32 NaN/Inf inputs
        // stay NaN/Inf (or become NaN) and do not count.
        let xs = [1.0f32, 1e6, -1e6, f32::NAN, f32::INFINITY, 2.0];
        let src: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
        for to in [Format::F8E5M2, Format::F8E4M3FN] {
            let s = Storage::native(Format::F32);
            let d = Storage::native(to);
            let mut dst = [0u8; 6];
            let counts = cast_elements_with_status(
                &src,
                s,
                &mut dst,
                d,
                6,
                &CastPolicy::new(RoundMode::Rint),
                &BulkOptions::default(),
            )
            .unwrap();
            let mut st = Stats::from(&counts);
            assert_eq!(st.nan + st.inf, 4, "{to}");
            st.count_nonfinite_from_finite(&src, s, &dst, d, 6);
            assert_eq!(st.nonfinite_from_finite, 2, "{to}");
        }
    }
}
