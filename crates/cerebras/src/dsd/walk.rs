//! The address generator shared by every memory DSD: an odometer over the extents that adds,
//! after each element, the stride of the innermost dimension that did not wrap.

/// Element offsets visited by a DSD with `offset`, extents `extent` (outermost first) and
/// reset-relative strides `stride` (innermost first).
///
/// Starting at `offset`, after each element the innermost counter steps; each counter that
/// reaches its extent wraps to 0 and carries outward; the address then moves by the stride of
/// the dimension that stepped without wrapping.
pub fn walk<'a, S: Copy + Into<i64>>(
    offset: i64,
    extent: &'a [u16],
    stride: &'a [S],
) -> impl Iterator<Item = i64> + 'a {
    let n = extent.len();
    let total: u64 = extent.iter().map(|&e| u64::from(e)).product();
    let mut counters = vec![0u16; n];
    let mut addr = offset;
    let mut left = total;
    std::iter::from_fn(move || {
        if left == 0 {
            return None;
        }
        left -= 1;
        let out = addr;
        // dimension k (innermost first) has extent extent[n - 1 - k]
        for k in 0..n {
            let d = n - 1 - k;
            counters[d] += 1;
            if counters[d] < extent[d] {
                addr = addr.wrapping_add(stride.get(k).map_or(0, |&s| s.into()));
                break;
            }
            counters[d] = 0;
        }
        Some(out)
    })
}

/// Like [`walk`] but endless: the outermost dimension never wraps, so an operand walked past
/// its own length (the hardware length rule, spec §4.1) keeps going in its outermost direction.
pub fn walk_unbounded(
    offset: i64,
    extent: Vec<u16>,
    stride: Vec<i64>,
) -> impl Iterator<Item = i64> + 'static {
    let n = extent.len();
    let mut counters = vec![0u16; n];
    let mut addr = offset;
    std::iter::from_fn(move || {
        let out = addr;
        for k in 0..n {
            let d = n - 1 - k;
            let step = stride.get(k).copied().unwrap_or(0);
            if d == 0 {
                addr = addr.wrapping_add(step);
                break;
            }
            counters[d] += 1;
            if counters[d] < extent[d] {
                addr = addr.wrapping_add(step);
                break;
            }
            counters[d] = 0;
        }
        Some(out)
    })
}

#[cfg(test)]
mod tests {
    use super::walk;

    #[test]
    fn the_seed_warning_stride_1_minus_2_extent_2_4() {
        let got: Vec<i64> = walk(0, &[2, 4], &[1, -2]).collect();
        assert_eq!(got, [0, 1, 2, 3, 1, 2, 3, 4]);
    }

    #[test]
    fn the_unbounded_walk_starts_like_the_walk_and_continues_outward() {
        let w: Vec<i64> = super::walk_unbounded(0, vec![2, 4], vec![1, -2])
            .take(12)
            .collect();
        assert_eq!(w, [0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5]);
        let w: Vec<i64> = super::walk_unbounded(3, vec![2], vec![-1])
            .take(4)
            .collect();
        assert_eq!(w, [3, 2, 1, 0]);
    }

    #[test]
    fn an_empty_extent_visits_nothing() {
        assert_eq!(walk(3, &[4, 0], &[1, 1]).count(), 0);
        assert_eq!(walk(3, &[0], &[1]).count(), 0);
    }
}
