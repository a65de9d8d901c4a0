//! The element offsets a memory port walks, held in the port itself (no allocation, no
//! indirect call per element): a `mem1d` line, the general odometer of a `mem4d`
//! ([`crate::dsd::walk::walk_unbounded`]), or a circular buffer from its head.

use crate::dsd::walk::walk_unbounded;

/// The offsets a memory port visits, endless (a port walked past its own length keeps going
/// in its outermost direction, as the hardware length rule asks).
pub(super) enum Offsets {
    /// `offset, offset + stride, ...` (a `mem1d`: its one dimension never wraps).
    Line { next: i64, stride: i64 },
    /// A `mem4d`'s odometer.
    Walk(Box<dyn Iterator<Item = i64> + Send + Sync>),
    /// `(head + n) mod wrap` for `n = 0, 1, ...` (a circular buffer).
    Circular { head: i64, n: i64, wrap: i64 },
}

impl Offsets {
    /// The offsets of a `mem4d` with `offset`, extents `extent` (outermost first) and
    /// reset-relative strides `stride` (innermost first).
    pub(super) fn walk(offset: i64, extent: Vec<u16>, stride: Vec<i64>) -> Offsets {
        Offsets::Walk(Box::new(walk_unbounded(offset, extent, stride)))
    }
}

impl Offsets {
    /// Where the walk is: the next offset of a line, the count of a circular buffer; `None`
    /// for a `mem4d` walk (its odometer is not marked).
    pub(super) fn place(&self) -> Option<i64> {
        match *self {
            Offsets::Line { next, .. } => Some(next),
            Offsets::Walk(_) => None,
            Offsets::Circular { n, .. } => Some(n),
        }
    }

    /// Goes back to `place` (see [`Offsets::place`]).
    pub(super) fn set_place(&mut self, place: i64) {
        match self {
            Offsets::Line { next, .. } => *next = place,
            Offsets::Walk(_) => {}
            Offsets::Circular { n, .. } => *n = place,
        }
    }
}

impl Iterator for Offsets {
    type Item = i64;

    fn next(&mut self) -> Option<i64> {
        match self {
            Offsets::Line { next, stride } => {
                let out = *next;
                *next = next.wrapping_add(*stride);
                Some(out)
            }
            Offsets::Walk(w) => w.next(),
            Offsets::Circular { head, n, wrap } => {
                let out = (*head + *n) % *wrap;
                *n += 1;
                Some(out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Offsets;
    use crate::dsd::walk::walk_unbounded;

    #[test]
    fn a_line_is_the_one_dimensional_walk() {
        for (offset, extent, stride) in [(0, 4, 1), (3, 2, -1), (5, 1, 7), (0, 3, 0)] {
            let line = Offsets::Line {
                next: offset,
                stride,
            };
            let walk = walk_unbounded(offset, vec![extent], vec![stride]);
            assert!(
                line.take(12).eq(walk.take(12)),
                "{offset} {extent} {stride}"
            );
        }
    }

    #[test]
    fn a_circular_buffer_wraps_from_its_head() {
        let c = Offsets::Circular {
            head: 2,
            n: 0,
            wrap: 3,
        };
        assert_eq!(c.take(5).collect::<Vec<_>>(), [2, 0, 1, 2, 0]);
    }
}
