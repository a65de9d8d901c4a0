//! Status accounting for the bulk kernels: a kernel writes the raw status bits of a block of
//! elements into a small buffer, and the block is then counted flag by flag. Counting is a few
//! vectorised passes over a buffer in L1 (one OR, then one sum per flag that occurs), instead
//! of a histogram increment per element.

use crate::status::{Status, StatusCounts};

/// Elements per status block (small enough for L1, and for `u16` sums).
pub(crate) const BLOCK: usize = 512;

/// Bits that make a result inexact in [`StatusCounts::exact`]'s sense.
const LOSSY: u16 = Status::INEXACT.bits() | Status::INVALID.bits();

/// Adds the statuses `st` (raw [`Status`] bits, at most [`BLOCK`] of them) to `counts`.
#[inline(always)]
pub(crate) fn count(st: &[u16], counts: &mut StatusCounts) {
    let len = st.len() as u64;
    counts.total += len;
    let any = st.iter().fold(0u16, |a, &s| a | s);
    if any & LOSSY == 0 {
        counts.exact += len;
    } else {
        let lossy: u16 = st.iter().map(|&s| u16::from(s & LOSSY != 0)).sum();
        counts.exact += len - u64::from(lossy);
    }
    let mut bits = any;
    while bits != 0 {
        let i = bits.trailing_zeros();
        let n: u16 = st.iter().map(|&s| (s >> i) & 1).sum();
        if let Some(slot) = counts.flags.get_mut(i as usize) {
            *slot += u64::from(n);
        }
        bits &= bits - 1;
    }
}

/// Adds `n` results of raw status bits `st` to `counts`.
#[inline]
pub(crate) fn record_n(st: u16, n: u64, counts: &mut StatusCounts) {
    counts.total += n;
    if st & LOSSY == 0 {
        counts.exact += n;
    }
    let mut bits = st;
    while bits != 0 {
        let i = bits.trailing_zeros();
        if let Some(slot) = counts.flags.get_mut(i as usize) {
            *slot += n;
        }
        bits &= bits - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_counts_equal_one_by_one_records() {
        let mut st = Vec::new();
        let mut x = 12345u32;
        for _ in 0..BLOCK {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            st.push(((x >> 16) as u16) & 0x1FF & if x & 0x100 != 0 { 0x1FF } else { 0 });
        }
        let mut want = StatusCounts::default();
        for &s in &st {
            let status = Status::NAMED
                .iter()
                .filter(|(f, _)| s & f.bits() != 0)
                .fold(Status::OK, |a, (f, _)| a | *f);
            want.record(status);
        }
        let mut got = StatusCounts::default();
        count(&st, &mut got);
        assert_eq!(got, want);
    }

    #[test]
    fn record_n_equals_n_single_records() {
        for raw in [0u16, 1, 0x3, 0x41, 0x1FF, 0x100] {
            let status = Status::NAMED
                .iter()
                .filter(|(f, _)| raw & f.bits() != 0)
                .fold(Status::OK, |a, (f, _)| a | *f);
            let mut want = StatusCounts::default();
            for _ in 0..5 {
                want.record(status);
            }
            let mut got = StatusCounts::default();
            record_n(raw, 5, &mut got);
            assert_eq!(got, want, "{raw:#x}");
        }
    }
}
