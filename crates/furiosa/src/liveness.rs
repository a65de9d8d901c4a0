//! Which physical positions of a stream hold a logical element, computed from one table per
//! dimension rather than by evaluating every position: a position of `m![d0, d1, ..]` is live
//! when each dimension's digit is live on its own and, for an axis that several dimensions
//! move, the coordinates they add stay inside the axis (an overshoot is `Top` padding, as
//! [`Evaluator::slot`](crate::mapping::Evaluator::slot) finalises it).

use crate::Mapping;
use crate::mapping::{Axis, Evaluator};

/// One dimension: whether each digit is live on its own, and the coordinate it adds to each
/// shared axis (`shared` per digit, row-major).
struct DimTable {
    live: Vec<bool>,
    coords: Vec<usize>,
}

/// Whether each physical position of `m![d0, d1, ...]` (outer to inner) holds a logical
/// element, in position order.
pub(crate) fn combined_liveness(dims: &[&Mapping]) -> Vec<bool> {
    let (tables, limits) = dim_tables(dims);
    fill_all(dims, &tables, &limits)
}

/// [`combined_liveness`], or `None` when every position is live (no mask to read).
pub(crate) fn partial_liveness(dims: &[&Mapping]) -> Option<Vec<bool>> {
    let (tables, limits) = dim_tables(dims);
    let all = limits.is_empty() && tables.iter().all(|t| t.live.iter().all(|&l| l));
    (!all).then(|| fill_all(dims, &tables, &limits))
}

/// The liveness of every position from the dimensions' tables.
fn fill_all(dims: &[&Mapping], tables: &[DimTable], limits: &[usize]) -> Vec<bool> {
    let total = dims.iter().fold(1usize, |n, m| n.saturating_mul(m.size()));
    let mut out = vec![false; total];
    let mut sums = vec![0; limits.len()];
    fill(tables, limits, 0, 0, &mut sums, &mut out);
    out
}

/// One table per dimension, and the sizes of the axes several dimensions move (in the order
/// of the tables' coordinates).
fn dim_tables(dims: &[&Mapping]) -> (Vec<DimTable>, Vec<usize>) {
    let per_dim: Vec<Vec<Axis>> = dims.iter().map(|m| m.axes()).collect();
    let mut shared: Vec<Axis> = Vec::new();
    for (i, axes) in per_dim.iter().enumerate() {
        for a in axes {
            if !shared.contains(a) && per_dim[i + 1..].iter().any(|later| later.contains(a)) {
                shared.push(a.clone());
            }
        }
    }
    let tables: Vec<DimTable> = dims
        .iter()
        .map(|m| {
            let mut e = Evaluator::new(m);
            let slots: Vec<Option<usize>> = shared
                .iter()
                .map(|a| e.axes().iter().position(|x| x == a))
                .collect();
            let mut live = vec![false; m.size()];
            let mut coords = vec![0; m.size() * shared.len()];
            for (x, l) in live.iter_mut().enumerate() {
                *l = e.slot(x).is_live();
                if *l {
                    for (k, slot) in slots.iter().enumerate() {
                        coords[x * shared.len() + k] = slot.map_or(0, |i| e.coords()[i]);
                    }
                }
            }
            DimTable { live, coords }
        })
        .collect();
    // A shared axis whose largest live coordinates add up to less than its size can never
    // overshoot: it needs no check (`P / 4` with `P % 4` over `P = 8`).
    let ns = shared.len();
    let checked: Vec<usize> = (0..ns)
        .filter(|&k| {
            let reach: usize = tables
                .iter()
                .map(|t| {
                    (0..t.live.len())
                        .map(|x| t.coords[x * ns + k])
                        .max()
                        .unwrap_or(0)
                })
                .sum();
            reach >= shared[k].size
        })
        .collect();
    let tables = tables
        .into_iter()
        .map(|t| {
            let coords = (0..t.live.len())
                .flat_map(|x| checked.iter().map(move |&k| x * ns + k))
                .map(|i| t.coords[i])
                .collect();
            DimTable {
                live: t.live,
                coords,
            }
        })
        .collect();
    let limits = checked.iter().map(|&k| shared[k].size).collect();
    (tables, limits)
}

/// Marks the live positions under `prefix` (the position over the dimensions before `d`),
/// with `sums` the shared axes' coordinates so far.
fn fill(
    tables: &[DimTable],
    limits: &[usize],
    d: usize,
    prefix: usize,
    sums: &mut [usize],
    out: &mut [bool],
) {
    let Some(t) = tables.get(d) else {
        return;
    };
    let size = t.live.len();
    let last = d + 1 == tables.len();
    if last && limits.is_empty() {
        out[prefix * size..(prefix + 1) * size].copy_from_slice(&t.live);
        return;
    }
    let ns = limits.len();
    for (x, &live) in t.live.iter().enumerate() {
        let c = &t.coords[x * ns..(x + 1) * ns];
        if !live
            || sums
                .iter()
                .zip(c)
                .zip(limits)
                .any(|((s, c), n)| s + c >= *n)
        {
            continue;
        }
        let pos = prefix * size + x;
        if last {
            out[pos] = true;
        } else {
            sums.iter_mut().zip(c).for_each(|(s, c)| *s += c);
            fill(tables, limits, d + 1, pos, sums, out);
            sums.iter_mut().zip(c).for_each(|(s, c)| *s -= c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::Axes;

    /// The per-position evaluator, as the reference.
    fn slow(dims: &[&Mapping]) -> Vec<bool> {
        let mut e = Evaluator::of_dims(dims);
        (0..e.size()).map(|p| e.slot(p).is_live()).collect()
    }

    #[test]
    fn tables_agree_with_the_evaluator() {
        let ax = Axes::parse("A=16, B=6, C=4").expect("axes");
        let cases: [&[&str]; 9] = [
            &["1 # 2", "A / 8 # 3", "B", "A % 8"],
            &["A / 4", "A % 4 # 5", "B = 5 # 6"],
            &["B / 2", "A", "(B % 2) # 3"],
            &["C #{0} 6", "2", "A = 11", "C / 2"],
            &["1", "1", "1 # 4"],
            &["2", "A", "B / 3", "C"],
            &["1", "B / 2", "C", "B % 2"],
            &["A # 20", "A / 2 # 8"],
            &["A / 4", "A % 8"],
        ];
        for case in cases {
            let maps: Vec<Mapping> = case
                .iter()
                .map(|t| Mapping::parse(t, &ax).unwrap_or_else(|e| panic!("{t}: {e}")))
                .collect();
            let dims: Vec<&Mapping> = maps.iter().collect();
            let want = slow(&dims);
            assert_eq!(combined_liveness(&dims), want, "{case:?}");
            let partial = partial_liveness(&dims);
            assert_eq!(partial.is_none(), want.iter().all(|&l| l), "{case:?}");
            assert!(partial.is_none_or(|p| p == want), "{case:?}");
        }
    }
}
