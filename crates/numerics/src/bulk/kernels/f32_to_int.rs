//! f32 → integers of at most 32 bits under the deterministic modes except `odd`: the host's
//! exact f32 round-to-integral operations, then a range check. Results and statuses equal the
//! reference routine's (tested over random codes and every boundary class per destination).

use crate::policy::IntOverflow;
use crate::round::RoundMode;
use crate::status::{Status, StatusTally};

/// The integer destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IntDst {
    /// Smallest value.
    pub lo: i64,
    /// Largest value.
    pub hi: i64,
    /// Bytes per element (1, 2 or 4).
    pub bytes: usize,
    /// Saturate or wrap out-of-range values.
    pub overflow: IntOverflow,
    /// The rounding mode (not `odd`, not `hybrid`).
    pub mode: RoundMode,
}

impl IntDst {
    /// `x` rounded to an integral value by the mode, in exact f32 arithmetic (no libm call):
    /// below 2^23 the truncation and the fraction `x - t` are exact; above, `x` is integral
    /// (NaN never gets here).
    #[inline(always)]
    fn round(&self, x: f32) -> f32 {
        if x.abs() >= 8_388_608.0 {
            return x;
        }
        let ti = x as i32;
        let t = ti as f32;
        let f = x - t;
        let odd = ti & 1 == 1;
        let (up, down) = match self.mode {
            RoundMode::Trunc => (false, false),
            RoundMode::Floor => (false, f < 0.0),
            RoundMode::Ceil => (f > 0.0, false),
            RoundMode::Round => (f >= 0.5, f <= -0.5),
            _ => (f > 0.5 || (f == 0.5 && odd), f < -0.5 || (f == -0.5 && odd)),
        };
        if up {
            t + 1.0
        } else if down {
            t - 1.0
        } else {
            t
        }
    }

    /// The code (two's complement in `bytes` bytes) and status of one f32.
    #[inline(always)]
    fn convert(&self, bits: u32) -> (u64, Status) {
        let mask = if self.bytes == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * self.bytes)) - 1
        };
        let x = f32::from_bits(bits);
        let code = |v: i64| (v as u64) & mask;
        if x.is_nan() {
            return (0, Status::INVALID | Status::INEXACT);
        }
        let (lo, hi) = (self.lo as f64, self.hi as f64);
        let xf = f64::from(x);
        if x.is_infinite() {
            let v = if x > 0.0 { self.hi } else { self.lo };
            return (code(v), Status::SATURATED | Status::INEXACT);
        }
        let r = self.round(x);
        let rf = f64::from(r);
        let mut status = if r != x { Status::INEXACT } else { Status::OK };
        let beyond = xf > hi || xf < lo;
        if rf > hi || rf < lo {
            status |= Status::OVERFLOW | Status::INEXACT;
            return match self.overflow {
                IntOverflow::Saturate => (
                    code(if rf > hi { self.hi } else { self.lo }),
                    status | Status::SATURATED,
                ),
                IntOverflow::Wrap => {
                    // |r| ≥ 2^55 is a multiple of 2^32: its low 32 bits are zero.
                    let v = if rf.abs() < 36_028_797_018_963_968.0 {
                        rf as i64
                    } else {
                        0
                    };
                    (code(v), status | Status::WRAPPED)
                }
            };
        }
        if rf == 0.0 && xf != 0.0 {
            status |= Status::FLUSHED_TO_ZERO;
        }
        if beyond {
            status |= Status::SATURATED;
        }
        (code(rf as i64), status)
    }
}

/// Casts `n` little-endian f32 codes into `dst.bytes`-byte integers, counting statuses.
pub(crate) fn run(dst: &IntDst, src: &[u8], out: &mut [u8], n: usize) -> StatusTally {
    match dst.bytes {
        1 => run_w::<1>(dst, src, out, n),
        2 => run_w::<2>(dst, src, out, n),
        _ => run_w::<4>(dst, src, out, n),
    }
}

/// [`run`] for `W`-byte destinations (a fixed-size store, not a memcpy call per element).
fn run_w<const W: usize>(dst: &IntDst, src: &[u8], out: &mut [u8], n: usize) -> StatusTally {
    let mut tally = StatusTally::new();
    for (s, d) in src[..4 * n]
        .chunks_exact(4)
        .zip(out[..W * n].chunks_exact_mut(W))
    {
        let (code, status) = dst.convert(u32::from_le_bytes([s[0], s[1], s[2], s[3]]));
        let bytes = code.to_le_bytes();
        d.copy_from_slice(&bytes[..W]);
        tally.add(status);
    }
    tally
}
