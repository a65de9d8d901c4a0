//! DM banks touched by a sequence of accesses.

/// The *Memory Performance* page's bank-starvation bound: fewer than 64 consecutive accesses to
/// one bank (while DMA is active). A longer run is a scheduling hazard, reported, not refused
/// (`docs/furiosa-engines.md` §2.2, decision "bank rule").
pub const BANK_RUN_LIMIT: usize = 64;

/// The bank of a DM byte address: address bits 3–6 (bits 0–2 pick the byte in an 8-byte row,
/// bits 7–18 the row).
///
/// ```
/// assert_eq!(npusim_furiosa::sequencer::bank_of(1053), 3);
/// ```
pub const fn bank_of(byte: usize) -> usize {
    (byte >> 3) & 0xf
}

/// Longest run of consecutive accesses that touch one bank; each access is a byte range
/// `start .. start + len` given in order.
pub(crate) fn longest_run(accesses: impl Iterator<Item = (usize, usize)>) -> usize {
    let mut run = [0usize; 16];
    let mut best = 0;
    for (start, len) in accesses {
        let mut touched = 0u16;
        if len >= 128 {
            touched = u16::MAX;
        } else if len > 0 {
            let (first, last) = (start >> 3, (start + len - 1) >> 3);
            for row in first..=last {
                touched |= 1 << (row & 0xf);
            }
        }
        for (bank, r) in run.iter_mut().enumerate() {
            if touched & (1 << bank) != 0 {
                *r += 1;
                best = best.max(*r);
            } else {
                *r = 0;
            }
        }
    }
    best
}
