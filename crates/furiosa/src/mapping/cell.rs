//! Cells: what a mapping position holds — a live index, a padding kind, or nothing.

use std::collections::BTreeMap;
use std::fmt;

use super::Axis;

/// The kind of a padding cell, in strictness order `Bottom < Zero < Top`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PaddingKind {
    /// Inaccessible: reading or writing it is an error (`#{!}`).
    Bottom,
    /// Accessible and known to hold zero (`#{0}`).
    Zero,
    /// Accessible with undefined contents (`#`, `#{*}`).
    Top,
}

impl PaddingKind {
    /// The lowercase name used by the CLI and JSON (`top`, `zero`, `bottom`).
    pub fn name(self) -> &'static str {
        match self {
            PaddingKind::Bottom => "bottom",
            PaddingKind::Zero => "zero",
            PaddingKind::Top => "top",
        }
    }

    /// The operator that pads with this kind in m-notation (`#`, `#{0}`, `#{!}`).
    pub fn operator(self) -> &'static str {
        match self {
            PaddingKind::Bottom => "#{!}",
            PaddingKind::Zero => "#{0}",
            PaddingKind::Top => "#",
        }
    }
}

/// A raw cell as a mapping produces it, before finalisation.
///
/// The index maps each axis to a partial coordinate; combining two indices adds the partial
/// coordinates of the same axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cell {
    /// A live cell: axis → summed partial coordinate (may overshoot the axis).
    Index(BTreeMap<Axis, usize>),
    /// A padding cell of the given kind.
    Padding(PaddingKind),
    /// A position at or beyond the mapping's size.
    OutOfBounds,
}

impl Cell {
    /// The live cell with no coordinates (what a broadcast position holds).
    pub fn empty() -> Cell {
        Cell::Index(BTreeMap::new())
    }

    /// `major ⊕ minor`: the major side's padding or out-of-bounds wins, two live
    /// indices add their coordinates axis by axis.
    pub fn combine(self, minor: Cell) -> Cell {
        match (self, minor) {
            (Cell::OutOfBounds, _) => Cell::OutOfBounds,
            (Cell::Padding(k), _) => Cell::Padding(k),
            (Cell::Index(_), Cell::Padding(k)) => Cell::Padding(k),
            (Cell::Index(_), Cell::OutOfBounds) => Cell::OutOfBounds,
            (Cell::Index(mut a), Cell::Index(b)) => {
                for (axis, c) in b {
                    *a.entry(axis).or_insert(0) += c;
                }
                Cell::Index(a)
            }
        }
    }

    /// Finalises the cell: drops zero coordinates, and turns a cell whose coordinate overshoots
    /// its axis into `Top` padding.
    pub fn finalize(&self) -> Final {
        match self {
            Cell::OutOfBounds => Final::OutOfBounds,
            Cell::Padding(k) => Final::Padding(*k),
            Cell::Index(index) => {
                let mut out = BTreeMap::new();
                for (axis, &c) in index {
                    if c >= axis.size {
                        return Final::Padding(PaddingKind::Top);
                    }
                    if c != 0 {
                        out.insert(axis.name.clone(), c);
                    }
                }
                Final::Live(out)
            }
        }
    }
}

/// A finalised cell: absolute coordinates by axis name (zeros left out), a padding kind, or
/// out of bounds.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Final {
    /// Live: the axis coordinates, zero coordinates omitted.
    Live(BTreeMap<String, usize>),
    /// A padding cell (including cells whose coordinates overshoot: `Top`).
    Padding(PaddingKind),
    /// Beyond the mapping's size.
    OutOfBounds,
}

impl Final {
    /// Whether the cell holds a logical element.
    pub fn is_live(&self) -> bool {
        matches!(self, Final::Live(_))
    }

    /// The coordinate of `axis` (0 when omitted); `None` for a dead cell.
    pub fn coordinate(&self, axis: &str) -> Option<usize> {
        match self {
            Final::Live(m) => Some(m.get(axis).copied().unwrap_or(0)),
            _ => None,
        }
    }

    /// Builds a live cell from `(axis, coordinate)` pairs (zeros dropped), for tests and tools.
    pub fn live(coords: &[(&str, usize)]) -> Final {
        Final::Live(
            coords
                .iter()
                .filter(|(_, c)| *c != 0)
                .map(|(a, c)| (a.to_string(), *c))
                .collect(),
        )
    }
}

impl fmt::Display for Final {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Final::Live(m) => {
                f.write_str("{")?;
                for (i, (a, c)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{a}: {c}")?;
                }
                f.write_str("}")
            }
            Final::Padding(k) => f.write_str(k.name()),
            Final::OutOfBounds => f.write_str("out of bounds"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idx(name: &str, size: usize, c: usize) -> Cell {
        let mut m = BTreeMap::new();
        m.insert(
            Axis {
                name: name.into(),
                size,
            },
            c,
        );
        Cell::Index(m)
    }

    #[test]
    fn combine_is_major_first() {
        let z = Cell::Padding(PaddingKind::Zero);
        let b = Cell::Padding(PaddingKind::Bottom);
        assert_eq!(z.clone().combine(b.clone()), z);
        assert_eq!(b.clone().combine(z.clone()), b);
        assert_eq!(idx("A", 4, 1).combine(z.clone()), z);
        assert_eq!(idx("A", 4, 1).combine(idx("A", 4, 2)), idx("A", 4, 3));
        assert_eq!(Cell::OutOfBounds.combine(idx("A", 4, 1)), Cell::OutOfBounds);
    }

    #[test]
    fn finalize_drops_zeros_and_kills_overshoot() {
        assert_eq!(idx("A", 4, 0).finalize(), Final::live(&[]));
        assert_eq!(idx("A", 4, 3).finalize(), Final::live(&[("A", 3)]));
        assert_eq!(idx("A", 4, 4).finalize(), Final::Padding(PaddingKind::Top));
        assert_eq!(Final::live(&[("A", 3)]).to_string(), "{A: 3}");
    }
}
