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

#[cfg(test)]
mod tests {
    use super::walk;

    #[test]
    fn the_seed_warning_stride_1_minus_2_extent_2_4() {
        let got: Vec<i64> = walk(0, &[2, 4], &[1, -2]).collect();
        assert_eq!(got, [0, 1, 2, 3, 1, 2, 3, 4]);
    }

    #[test]
    fn an_empty_extent_visits_nothing() {
        assert_eq!(walk(3, &[4, 0], &[1, 1]).count(), 0);
        assert_eq!(walk(3, &[0], &[1]).count(), 0);
    }
}
