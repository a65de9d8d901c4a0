//! Worked examples of Furiosa's mapping expressions (`m![...]`) as data: each one's size and
//! the finalized cell at some buffer positions, as Furiosa's type-level mapping library
//! (`furiosa-mapping-types`, furiosa-opt v0.6) computes them. The tour evaluates them,
//! npusim-furiosa's `tests/furiosa/mapping_goldens.rs` checks them through the library and the CLI
//! tests through `npusim furiosa map --json`.
//!
//! Cells are written as [`Final`](npusim_furiosa::Final) prints them: `{}` (the live origin),
//! `{A: 1, B: 7}`, `top`, `zero`, `bottom`, and `out of bounds` for a position at or beyond the
//! size.

use npusim_furiosa::mapping::{Axes, AxesError, Mapping, ParseError};

/// One worked mapping with its size and the cells the reference gives.
#[derive(Clone, Copy, Debug)]
pub struct WorkedMapping {
    /// Axis declarations (`A=8,B=512`).
    pub axes: &'static str,
    /// The mapping as written inside `m![...]`.
    pub expr: &'static str,
    /// Its number of positions.
    pub size: usize,
    /// `(position, cell)` as the reference gives them.
    pub cells: &'static [(usize, &'static str)],
}

/// Every worked mapping (an NCHW trace as one mapping per dimension).
pub const WORKED_MAPPINGS: [WorkedMapping; 19] = [
    WorkedMapping {
        axes: "A=4",
        expr: "A",
        size: 4,
        cells: &[(0, "{}"), (3, "{A: 3}"), (4, "out of bounds")],
    },
    WorkedMapping {
        axes: "A=8,B=512",
        expr: "A, B",
        size: 4096,
        cells: &[
            (0, "{}"),
            (511, "{B: 511}"),
            (512, "{A: 1}"),
            (519, "{A: 1, B: 7}"),
            (4095, "{A: 7, B: 511}"),
            (4096, "out of bounds"),
        ],
    },
    WorkedMapping {
        axes: "B=512",
        expr: "B / 64, B % 64",
        size: 512,
        cells: &[(130, "{B: 130}")],
    },
    WorkedMapping {
        axes: "B=512",
        expr: "B / 64",
        size: 8,
        cells: &[(2, "{B: 128}"), (7, "{B: 448}"), (8, "out of bounds")],
    },
    WorkedMapping {
        axes: "B=512",
        expr: "B % 64",
        size: 64,
        cells: &[(63, "{B: 63}"), (64, "out of bounds")],
    },
    WorkedMapping {
        axes: "B=512",
        expr: "B / 64, B % 32, B / 32 % 2",
        size: 512,
        cells: &[(1, "{B: 32}"), (2, "{B: 1}"), (67, "{B: 97}")],
    },
    WorkedMapping {
        axes: "",
        expr: "1",
        size: 1,
        cells: &[(0, "{}"), (1, "out of bounds")],
    },
    WorkedMapping {
        axes: "",
        expr: "4",
        size: 4,
        cells: &[(0, "{}"), (3, "{}"), (4, "out of bounds")],
    },
    WorkedMapping {
        axes: "A=3",
        expr: "4, A",
        size: 12,
        cells: &[(5, "{A: 2}")],
    },
    WorkedMapping {
        axes: "C=13,D=61",
        expr: "C, D # 64",
        size: 832,
        cells: &[
            (60, "{D: 60}"),
            (61, "top"),
            (62, "top"),
            (63, "top"),
            (64, "{C: 1}"),
            (831, "top"),
            (832, "out of bounds"),
        ],
    },
    WorkedMapping {
        axes: "C=2,D=3",
        expr: "C, D = 2",
        size: 4,
        cells: &[
            (0, "{}"),
            (1, "{D: 1}"),
            (2, "{C: 1}"),
            (3, "{C: 1, D: 1}"),
            (4, "out of bounds"),
        ],
    },
    WorkedMapping {
        axes: "A=3,B=3",
        expr: "A #{0} 4, B #{!} 4",
        size: 16,
        cells: &[
            (2, "{B: 2}"),
            (3, "bottom"),
            (4, "{A: 1}"),
            (12, "zero"),
            (13, "zero"),
            (15, "zero"),
            (16, "out of bounds"),
        ],
    },
    WorkedMapping {
        axes: "A=8,B=512",
        expr: "A, B = 2 # 512",
        size: 4096,
        cells: &[(1, "{B: 1}"), (2, "top"), (512, "{A: 1}"), (514, "top")],
    },
    WorkedMapping {
        axes: "A=15",
        expr: "A % 5, A / 5",
        size: 15,
        cells: &[(1, "{A: 5}"), (3, "{A: 1}"), (14, "{A: 14}")],
    },
    // NCHW trace, index (N = 1, C = 17, H = 3, W = 5): each dimension's position holds its part.
    WorkedMapping {
        axes: "N=4,C=64,H=32,W=32",
        expr: "N",
        size: 4,
        cells: &[(1, "{N: 1}")],
    },
    WorkedMapping {
        axes: "N=4,C=64,H=32,W=32",
        expr: "C, H, W",
        size: 65536,
        cells: &[(17509, "{C: 17, H: 3, W: 5}")],
    },
    WorkedMapping {
        axes: "N=4,C=64,H=32,W=32",
        expr: "C / 2",
        size: 32,
        cells: &[(8, "{C: 16}")],
    },
    WorkedMapping {
        axes: "N=4,C=64,H=32,W=32",
        expr: "N, H, W, C % 2",
        size: 8192,
        cells: &[(2251, "{C: 1, H: 3, N: 1, W: 5}")],
    },
    WorkedMapping {
        axes: "N=4,C=64,H=32,W=32",
        expr: "N, H, W",
        size: 4096,
        cells: &[(1125, "{H: 3, N: 1, W: 5}")],
    },
];

/// The outcome of one worked example: the size and each listed cell, expected against got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkedCheck {
    /// The size the mapping has.
    pub size: usize,
    /// `(position, expected, got)` for each listed cell.
    pub cells: Vec<(usize, &'static str, String)>,
}

impl WorkedCheck {
    /// Whether the size and every listed cell match.
    pub fn pass(&self, expected_size: usize) -> bool {
        self.size == expected_size && self.cells.iter().all(|(_, want, got)| want == got)
    }
}

/// Why a worked example could not be evaluated.
#[derive(Debug, thiserror::Error)]
pub enum WorkedError {
    /// The axes declaration.
    #[error(transparent)]
    Axes(#[from] AxesError),
    /// The mapping does not parse.
    #[error(transparent)]
    Mapping(#[from] Box<ParseError>),
}

impl WorkedMapping {
    /// The declared axes.
    pub fn axes(&self) -> Result<Axes, WorkedError> {
        if self.axes.is_empty() {
            Ok(Axes::new())
        } else {
            Ok(Axes::parse(self.axes)?)
        }
    }

    /// Evaluates the mapping at the listed positions.
    pub fn check(&self) -> Result<WorkedCheck, WorkedError> {
        let axes = self.axes()?;
        let m = Mapping::parse(self.expr, &axes).map_err(Box::new)?;
        Ok(WorkedCheck {
            size: m.size(),
            cells: self
                .cells
                .iter()
                .map(|&(p, want)| (p, want, m.cell(p).to_string()))
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_worked_example_matches() {
        for w in WORKED_MAPPINGS {
            let c = w.check().unwrap_or_else(|e| panic!("{}: {e}", w.expr));
            assert!(c.pass(w.size), "{} over {}: {c:?}", w.expr, w.axes);
        }
    }
}
