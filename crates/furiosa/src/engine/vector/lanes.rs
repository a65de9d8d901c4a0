//! Physical positions of a stream as mixed-radix digits: the reducers fold per physical lane
//! (a slice's lane at one time step), never over the broadcast copies of a logical element.
//!
//! A mapping `m![F0, F1, ..]` lays its top-level factors out row-major: position
//! `p = ((d0 · |F1| + d1) · |F2| + d2) ..`. A stream position is the same over its five
//! dimensions `[Chip, Cluster, Slice, Time, Packet]`.

/// The digits of `pos` over `radices` (row-major, the last radix innermost).
pub(super) fn digits(mut pos: usize, radices: &[usize]) -> Vec<usize> {
    let mut out = vec![0; radices.len()];
    for (d, &r) in out.iter_mut().zip(radices).rev() {
        let r = r.max(1);
        *d = pos % r;
        pos /= r;
    }
    out
}

/// The position of `digits` over `radices` (row-major, the last radix innermost).
pub(super) fn compose(digits: &[usize], radices: &[usize]) -> usize {
    digits
        .iter()
        .zip(radices)
        .fold(0, |acc, (&d, &r)| acc * r.max(1) + d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_and_compose_are_inverse() {
        let radices = [2, 3, 4];
        for pos in 0..24 {
            let d = digits(pos, &radices);
            assert_eq!(compose(&d, &radices), pos);
        }
        assert_eq!(digits(23, &radices), [1, 2, 3]);
        assert_eq!(digits(0, &[]), Vec::<usize>::new());
        assert_eq!(compose(&[], &[]), 0);
    }
}
