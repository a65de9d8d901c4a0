//! What happened in a conversion: a set of flags that travels with every result, so callers
//! never re-derive it by decoding the output.

use std::fmt;
use std::ops::{BitOr, BitOrAssign};

/// A set of conversion flags.
///
/// ```
/// use npusim_numerics::{convert_with_status, CastPolicy, Format, RoundMode, Status};
/// // f32 1000.0 to e4m3fn, saturating: clamped to 448 (0x7E)
/// let r = convert_with_status(u64::from(1000f32.to_bits()), Format::F32, Format::F8E4M3FN,
///                             &CastPolicy::saturating(RoundMode::Rint), 0);
/// assert_eq!(r.code, 0x7E);
/// assert!(r.status.contains(Status::OVERFLOW | Status::SATURATED | Status::INEXACT));
/// assert!(!r.status.contains(Status::NAN));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Status(u16);

impl Status {
    /// Nothing happened: the result is the input value exactly.
    pub const OK: Status = Status(0);
    /// The result's value differs from the input's (rounded, clamped, substituted).
    pub const INEXACT: Status = Status(1);
    /// A finite input whose rounded magnitude is beyond the destination's largest finite value
    /// (or outside an integer's range); what it became is in the other flags.
    pub const OVERFLOW: Status = Status(1 << 1);
    /// An inexact result below the destination's smallest normal magnitude (zero included).
    pub const UNDERFLOW: Status = Status(1 << 2);
    /// A non-zero finite input became zero.
    pub const FLUSHED_TO_ZERO: Status = Status(1 << 3);
    /// The input lay beyond the destination's finite range (±Inf included) and the result is
    /// the destination's extreme finite value on that side.
    pub const SATURATED: Status = Status(1 << 4);
    /// An out-of-range value went into an integer destination by keeping its low bits.
    pub const WRAPPED: Status = Status(1 << 5);
    /// The result is ±Inf.
    pub const INF: Status = Status(1 << 6);
    /// The result is a NaN.
    pub const NAN: Status = Status(1 << 7);
    /// The input has no counterpart in the destination and a substitute was written: a NaN
    /// into a format without NaN (or under a NaN-to-zero rule), a negative value into an
    /// unsigned float.
    pub const INVALID: Status = Status(1 << 8);

    /// Every flag with its name, in bit order.
    pub const NAMED: [(Status, &'static str); 9] = [
        (Status::INEXACT, "inexact"),
        (Status::OVERFLOW, "overflow"),
        (Status::UNDERFLOW, "underflow"),
        (Status::FLUSHED_TO_ZERO, "flushed-to-zero"),
        (Status::SATURATED, "saturated"),
        (Status::WRAPPED, "wrapped"),
        (Status::INF, "inf"),
        (Status::NAN, "nan"),
        (Status::INVALID, "invalid"),
    ];

    /// Whether every flag of `other` is set.
    pub const fn contains(self, other: Status) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether any flag of `other` is set.
    pub const fn intersects(self, other: Status) -> bool {
        self.0 & other.0 != 0
    }

    /// Whether no flag is set (the conversion was exact and unremarkable).
    pub const fn is_ok(self) -> bool {
        self.0 == 0
    }

    /// The raw bits (bit order of [`Status::NAMED`]).
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// `self` with `other`'s flags added.
    pub const fn with(self, other: Status) -> Status {
        Status(self.0 | other.0)
    }
}

impl BitOr for Status {
    type Output = Status;
    fn bitor(self, rhs: Status) -> Status {
        self.with(rhs)
    }
}

impl BitOrAssign for Status {
    fn bitor_assign(&mut self, rhs: Status) {
        *self = self.with(rhs);
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_ok() {
            return f.write_str("ok");
        }
        let mut first = true;
        for (flag, name) in Status::NAMED {
            if self.contains(flag) {
                if !first {
                    f.write_str("|")?;
                }
                f.write_str(name)?;
                first = false;
            }
        }
        Ok(())
    }
}

/// A destination code together with what happened to produce it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rounded {
    /// The destination code, in the low bits.
    pub code: u64,
    /// What happened.
    pub status: Status,
}

impl Rounded {
    /// A code with its status.
    pub const fn new(code: u64, status: Status) -> Rounded {
        Rounded { code, status }
    }
}

/// How many results of a bulk cast carried each flag.
///
/// ```
/// use npusim_numerics::{Status, StatusCounts};
/// let mut c = StatusCounts::default();
/// c.record(Status::INEXACT | Status::SATURATED);
/// c.record(Status::OK);
/// assert_eq!((c.total, c.exact, c.get(Status::SATURATED)), (2, 1, 1));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatusCounts {
    /// Results counted.
    pub total: u64,
    /// Results whose value equals the input's (no `INEXACT`, no `INVALID`; a NaN that stays a
    /// NaN counts as exact).
    pub exact: u64,
    /// Per flag, in the bit order of [`Status::NAMED`].
    pub flags: [u64; 9],
}

impl StatusCounts {
    /// Counts one result.
    #[inline]
    pub fn record(&mut self, status: Status) {
        self.record_n(status, 1);
    }

    /// Counts `n` results with the same status.
    pub fn record_n(&mut self, status: Status, n: u64) {
        self.total += n;
        if !status.intersects(Status::INEXACT | Status::INVALID) {
            self.exact += n;
        }
        let mut bits = status.bits();
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            self.flags[i] += n;
            bits &= bits - 1;
        }
    }

    /// How many results carried `flag` (a single flag).
    pub fn get(&self, flag: Status) -> u64 {
        let i = flag.bits().trailing_zeros() as usize;
        self.flags.get(i).copied().unwrap_or(0)
    }

    /// Adds another count.
    pub fn add(&mut self, other: &StatusCounts) {
        self.total += other.total;
        self.exact += other.exact;
        for (a, b) in self.flags.iter_mut().zip(other.flags) {
            *a += b;
        }
    }
}

/// A fast per-element status counter for bulk kernels: a histogram over the status bits in
/// four interleaved lanes (so runs of one status do not chain each increment on the last),
/// folded into [`StatusCounts`] at the end.
pub(crate) struct StatusTally {
    hist: Box<[[u64; 1 << 9]; 4]>,
    next: usize,
}

impl StatusTally {
    /// An empty tally.
    pub(crate) fn new() -> StatusTally {
        StatusTally {
            hist: Box::new([[0; 1 << 9]; 4]),
            next: 0,
        }
    }

    /// Counts one status.
    #[inline(always)]
    pub(crate) fn add(&mut self, status: Status) {
        let lane = self.next & 3;
        self.next = self.next.wrapping_add(1);
        self.hist[lane][usize::from(status.bits()) & 0x1FF] += 1;
    }

    /// The counts.
    pub(crate) fn finish(&self) -> StatusCounts {
        let mut counts = StatusCounts::default();
        for bits in 0..1usize << 9 {
            let n: u64 = self.hist.iter().map(|lane| lane[bits]).sum();
            if n > 0 {
                counts.record_n(Status(bits as u16), n);
            }
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_combine_and_print() {
        let s = Status::INEXACT | Status::NAN;
        assert!(s.contains(Status::NAN) && !s.contains(Status::INF));
        assert_eq!(s.to_string(), "inexact|nan");
        assert_eq!(Status::OK.to_string(), "ok");
        for (i, (flag, _)) in Status::NAMED.iter().enumerate() {
            assert_eq!(flag.bits(), 1 << i);
        }
    }
}
