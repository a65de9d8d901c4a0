//! The crossover measurement's result: every size of every case, on the calling thread and
//! split, and the table that says from which size splitting pays.

use std::io::{self, Write};

use npusim_numerics::bulk::PARALLEL_THRESHOLD;

/// Smallest and largest log2 of the element counts tried (below 2^13 the cast never splits).
pub(super) const LOG2_SIZES: std::ops::RangeInclusive<u32> = 13..=22;

/// One size of one case: median Gelem/s on the calling thread and split.
pub(super) struct Point {
    /// The case's name.
    pub(super) case: String,
    /// Elements cast.
    pub(super) elements: usize,
    /// Median Gelem/s on the calling thread.
    pub(super) serial: f64,
    /// Median Gelem/s split over the pool's threads.
    pub(super) split: f64,
}

/// The crossover measurement: every size of every picked case, on how many threads the
/// split casts ran.
pub(crate) struct Crossover {
    /// The picked cases' names, in order.
    pub(super) names: Vec<String>,
    /// Every case at every size.
    pub(super) points: Vec<Point>,
    /// Threads of the split casts.
    pub(super) threads: usize,
}

impl Crossover {
    /// Writes the table, from which size splitting pays for each case, and the library's
    /// threshold.
    pub(crate) fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        let threads = self.threads;
        writeln!(
            out,
            "{:<26} {:>9} {:>10} {:>10} {:>7}",
            "case",
            "elements",
            "1 thread",
            format!("{threads} threads"),
            "split×"
        )?;
        for p in &self.points {
            writeln!(
                out,
                "{:<26} {:>9} {:>10.3} {:>10.3} {:>7.2}",
                p.case,
                p.elements,
                p.serial,
                p.split,
                p.split / p.serial
            )?;
        }
        writeln!(out)?;
        for name in &self.names {
            let mine: Vec<&Point> = self.points.iter().filter(|p| &p.case == name).collect();
            match pays_from(&mine) {
                Some(n) => writeln!(out, "{name}: splitting pays from {n} elements")?,
                None => writeln!(
                    out,
                    "{name}: splitting does not pay at {} elements",
                    1usize << LOG2_SIZES.end()
                )?,
            }
        }
        writeln!(
            out,
            "\nGelem/s are medians; the library splits from {PARALLEL_THRESHOLD} elements (npusim_numerics::PARALLEL_THRESHOLD)."
        )
    }
}

/// The smallest measured size from which splitting is faster at every larger measured size.
fn pays_from(points: &[&Point]) -> Option<usize> {
    let mut from = None;
    for p in points.iter().rev() {
        if p.split > p.serial {
            from = Some(p.elements);
        } else {
            break;
        }
    }
    from
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(elements: usize, serial: f64, split: f64) -> Point {
        Point {
            case: "c".into(),
            elements,
            serial,
            split,
        }
    }

    #[test]
    fn splitting_pays_from_the_first_size_of_the_last_winning_run() {
        let p = [
            point(1, 1.0, 0.5),
            point(2, 1.0, 1.2),
            point(4, 1.0, 0.9),
            point(8, 1.0, 1.5),
            point(16, 1.0, 1.9),
        ];
        let refs: Vec<&Point> = p.iter().collect();
        assert_eq!(pays_from(&refs), Some(8));
        let never = [point(1, 1.0, 0.5), point(2, 1.0, 0.7)];
        let refs: Vec<&Point> = never.iter().collect();
        assert_eq!(pays_from(&refs), None);
    }
}
