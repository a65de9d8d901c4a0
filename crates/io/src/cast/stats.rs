//! Counts for the per-tensor summary: how many results are NaN, ±Inf, or saturated.
//!
//! The counts are found by decoding the cast's results again ([`ResultCounter`]); for
//! destination formats up to 16 bits the classes are looked up in a table built once per
//! format, so counting costs far less than the cast. When numerics returns a status with each
//! result, [`ResultCounter::count`] is the one place to replace.

use std::fmt;

use npusim_numerics::{Format, Storage};

const NAN: u8 = 1;
const INF: u8 = 2;
const EXTREME: u8 = 4;

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

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} NaN, {} Inf, {} saturated",
            self.nan, self.inf, self.saturated
        )
    }
}

/// Counts NaN, ±Inf and saturated results of casts into one destination format.
pub(crate) struct ResultCounter {
    dst: Format,
    table: Option<Vec<u8>>,
    max_code: u64,
    min_code: u64,
    max_finite: f64,
    min_finite: f64,
}

impl ResultCounter {
    /// A counter for results in `dst`.
    pub(crate) fn new(dst: Format) -> ResultCounter {
        let max_code = dst.max_code();
        let min_code = dst.min_code();
        let table = (dst.bits() <= 16).then(|| {
            (0..=dst.code_mask())
                .map(|c| {
                    let e = dst.decode(c);
                    let mut k = 0;
                    if e.is_nan() {
                        k |= NAN;
                    }
                    if e.is_inf() {
                        k |= INF;
                    }
                    if c == max_code || c == min_code {
                        k |= EXTREME;
                    }
                    k
                })
                .collect()
        });
        ResultCounter {
            dst,
            table,
            max_code,
            min_code,
            max_finite: dst.max_finite(),
            min_finite: dst.min_finite(),
        }
    }

    fn class(&self, code: u64) -> u8 {
        if let Some(t) = &self.table {
            return t[(code & self.dst.code_mask()) as usize];
        }
        let mut k = 0;
        match self.dst {
            Format::F32 => {
                let x = f32::from_bits(code as u32);
                k |= if x.is_nan() { NAN } else { 0 };
                k |= if x.is_infinite() { INF } else { 0 };
            }
            Format::F64 => {
                let x = f64::from_bits(code);
                k |= if x.is_nan() { NAN } else { 0 };
                k |= if x.is_infinite() { INF } else { 0 };
            }
            _ => {}
        }
        if code == self.max_code || code == self.min_code {
            k |= EXTREME;
        }
        k
    }

    /// Counts over elements `0..n` of a cast's source and destination buffers.
    pub(crate) fn count(&self, src: &[u8], s: Storage, dst: &[u8], d: Storage, n: usize) -> Stats {
        let mut st = Stats::default();
        for i in 0..n {
            let code = d.read(dst, i);
            let k = self.class(code);
            if k == 0 {
                continue;
            }
            if k & NAN != 0 {
                st.nan += 1;
            }
            if k & INF != 0 {
                st.inf += 1;
            }
            if k & EXTREME != 0 {
                let x = s.format().decode(s.read(src, i));
                let beyond = x.is_inf() || {
                    let v = x.to_f64();
                    v > self.max_finite || (self.min_finite <= 0.0 && v < self.min_finite)
                };
                if beyond && !x.is_nan() {
                    st.saturated += 1;
                }
            }
        }
        st
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use npusim_numerics::{CastPolicy, RoundMode, cast_slice};

    #[test]
    fn counts_nan_inf_and_saturation() {
        let xs = [1.0f32, 1000.0, f32::INFINITY, f32::NAN, 448.0, -1e9];
        let src: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
        let mut dst = [0u8; 6];
        let p = CastPolicy::saturating(RoundMode::Rint);
        cast_slice(&src, Format::F32, &mut dst, Format::F8E4M3FN, &p).unwrap();
        let c = ResultCounter::new(Format::F8E4M3FN);
        let st = c.count(
            &src,
            Storage::native(Format::F32),
            &dst,
            Storage::native(Format::F8E4M3FN),
            6,
        );
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
