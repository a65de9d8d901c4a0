//! A parsed tensor access expression: induction variables, their lengths, the array and one
//! affine index expression per array dimension.

use std::fmt;

/// An affine expression `sum_v coefficients[v] * v + constant` over the induction variables.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Affine {
    /// One coefficient per induction variable, in declaration order (outermost first).
    pub coefficients: Vec<i64>,
    /// The constant term.
    pub constant: i64,
}

impl Affine {
    /// The constant `value` over `vars` variables.
    pub fn constant(vars: usize, value: i64) -> Affine {
        Affine {
            coefficients: vec![0; vars],
            constant: value,
        }
    }

    /// The induction variable number `k` of `vars`.
    pub fn variable(vars: usize, k: usize) -> Affine {
        let mut coefficients = vec![0; vars];
        if let Some(c) = coefficients.get_mut(k) {
            *c = 1;
        }
        Affine {
            coefficients,
            constant: 0,
        }
    }

    /// The value if no variable appears.
    pub fn as_constant(&self) -> Option<i64> {
        self.coefficients
            .iter()
            .all(|&c| c == 0)
            .then_some(self.constant)
    }

    /// `self + other`, `None` on overflow.
    pub fn add(&self, other: &Affine) -> Option<Affine> {
        let coefficients = self
            .coefficients
            .iter()
            .zip(&other.coefficients)
            .map(|(a, b)| a.checked_add(*b))
            .collect::<Option<Vec<_>>>()?;
        Some(Affine {
            coefficients,
            constant: self.constant.checked_add(other.constant)?,
        })
    }

    /// `-self`, `None` on overflow.
    pub fn neg(&self) -> Option<Affine> {
        self.scale(-1)
    }

    /// `k * self`, `None` on overflow.
    pub fn scale(&self, k: i64) -> Option<Affine> {
        let coefficients = self
            .coefficients
            .iter()
            .map(|c| c.checked_mul(k))
            .collect::<Option<Vec<_>>>()?;
        Some(Affine {
            coefficients,
            constant: self.constant.checked_mul(k)?,
        })
    }

    /// The value at the induction-variable values `at` (outermost first), in `i128`.
    pub fn eval(&self, at: &[i64]) -> i128 {
        self.coefficients
            .iter()
            .zip(at)
            .map(|(&c, &v)| i128::from(c) * i128::from(v))
            .sum::<i128>()
            + i128::from(self.constant)
    }

    /// Writes the expression in normal form (`2 * i + j - 1`) with the given variable names.
    pub fn write(&self, f: &mut impl fmt::Write, names: &[String]) -> fmt::Result {
        let mut first = true;
        for (c, name) in self.coefficients.iter().zip(names) {
            if *c == 0 {
                continue;
            }
            let (neg, mag) = (*c < 0, c.unsigned_abs());
            match (first, neg) {
                (true, true) => f.write_str("-")?,
                (true, false) => {}
                (false, true) => f.write_str(" - ")?,
                (false, false) => f.write_str(" + ")?,
            }
            if mag != 1 {
                write!(f, "{mag} * ")?;
            }
            f.write_str(name)?;
            first = false;
        }
        if first {
            write!(f, "{}", self.constant)
        } else if self.constant < 0 {
            write!(f, " - {}", self.constant.unsigned_abs())
        } else if self.constant > 0 {
            write!(f, " + {}", self.constant)
        } else {
            Ok(())
        }
    }
}

/// A parsed tensor access expression `|v, ...|{len, ...} -> array[expr, ...]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorAccess {
    /// The induction variables, outermost first.
    pub variables: Vec<String>,
    /// Their lengths (iteration counts), in the same order.
    pub lengths: Vec<i64>,
    /// The accessed array's name.
    pub array: String,
    /// One affine index expression per array dimension.
    pub indices: Vec<Affine>,
}

impl TensorAccess {
    /// Every induction-variable tuple in loop order (last variable fastest).
    pub fn tuples(&self) -> impl Iterator<Item = Vec<i64>> + '_ {
        let total: u128 = self
            .lengths
            .iter()
            .map(|&l| u128::try_from(l).unwrap_or(0))
            .product();
        let mut cur = vec![0i64; self.lengths.len()];
        let mut left = total;
        std::iter::from_fn(move || {
            if left == 0 {
                return None;
            }
            left -= 1;
            let out = cur.clone();
            for k in (0..cur.len()).rev() {
                cur[k] += 1;
                if cur[k] < self.lengths[k] {
                    break;
                }
                cur[k] = 0;
            }
            Some(out)
        })
    }
}

impl fmt::Display for TensorAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "|{}|{{", self.variables.join(", "))?;
        for (k, l) in self.lengths.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{l}")?;
        }
        write!(f, "}} -> {}[", self.array)?;
        for (k, e) in self.indices.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            e.write(f, &self.variables)?;
        }
        f.write_str("]")
    }
}
