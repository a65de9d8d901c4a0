//! Merging adjacent sequencer entries.

use super::{Entry, MAX_ENTRY_SIZE};

/// Merges every adjacent pair `(n1:s1)(n2:s2)` with `s1 == n2·s2` into `(n1·n2 : s2)`, from the
/// innermost pair outward, also across the time/packet boundary (the *Sequencer* page's
/// "Merging Entries"). A merge whose size would pass [`MAX_ENTRY_SIZE`] is not made. The
/// merged loops yield the same element offsets, in the same order, as the input.
///
/// ```
/// use npusim_furiosa::sequencer::{Entry, merge_adjacent};
/// let e = |s, t| Entry::new(s, t);
/// let raw = [e(4, 512), e(2, 256), e(2, 8), e(8, 1)];
/// assert_eq!(merge_adjacent(&raw), vec![e(8, 256), e(16, 1)]);
/// ```
pub fn merge_adjacent(entries: &[Entry]) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::with_capacity(entries.len());
    for e in entries.iter().rev() {
        match out.last_mut() {
            Some(inner)
                if e.stride == inner.size * inner.stride
                    && e.size.saturating_mul(inner.size) <= MAX_ENTRY_SIZE =>
            {
                inner.size *= e.size;
            }
            _ => out.push(*e),
        }
    }
    out.reverse();
    out
}
