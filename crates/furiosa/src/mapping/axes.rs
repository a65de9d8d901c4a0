//! Axis declarations: the named logical dimensions a mapping may refer to (`axes![A = 8, B = 512]`).

use std::fmt;

use thiserror::Error;

/// One declared axis: a name (`A`, `R16`, `Out`) and its size.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Axis {
    /// The axis name: an ASCII letter, then ASCII letters, digits or `_`.
    pub name: String,
    /// Number of coordinates along the axis (at least 1).
    pub size: usize,
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} = {}", self.name, self.size)
    }
}

/// A set of declared axes, in declaration order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Axes {
    axes: Vec<Axis>,
}

/// Why an axis declaration was refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum AxesError {
    /// The name does not follow the axis-name rule.
    #[error(
        "axis name `{0}` is invalid (rule: an ASCII letter followed by ASCII letters, digits or `_`)"
    )]
    BadName(String),
    /// The axis was declared twice.
    #[error("axis `{0}` is declared multiple times")]
    Duplicate(String),
    /// The size is zero.
    #[error("axis `{0}` has size 0 (rule: an axis has at least one coordinate)")]
    ZeroSize(String),
    /// A `NAME=SIZE` item could not be read.
    #[error("cannot read axis declaration `{0}` (expected NAME=SIZE, e.g. A=8)")]
    Syntax(String),
}

/// Whether `name` is a legal axis name (an ASCII letter, then alphanumerics or `_`). The
/// vendor's `axes!` wants an upper-case first letter; npusim also takes lower case
/// (`docs/furiosa-engines.md` §11.3, decision (b)).
pub fn is_axis_name(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() => chars.all(|c| c.is_ascii_alphanumeric() || c == '_'),
        _ => false,
    }
}

impl Axes {
    /// No axes.
    pub fn new() -> Axes {
        Axes::default()
    }

    /// Declares one more axis.
    pub fn declare(&mut self, name: &str, size: usize) -> Result<(), AxesError> {
        if !is_axis_name(name) {
            return Err(AxesError::BadName(name.to_string()));
        }
        if size == 0 {
            return Err(AxesError::ZeroSize(name.to_string()));
        }
        if self.get(name).is_some() {
            return Err(AxesError::Duplicate(name.to_string()));
        }
        self.axes.push(Axis {
            name: name.to_string(),
            size,
        });
        Ok(())
    }

    /// Builder form of [`Axes::declare`].
    pub fn with(mut self, name: &str, size: usize) -> Result<Axes, AxesError> {
        self.declare(name, size)?;
        Ok(self)
    }

    /// Declares each `(name, size)` in order (what [`axes!`](crate::axes) expands to).
    pub fn from_pairs(pairs: &[(&str, usize)]) -> Result<Axes, AxesError> {
        let mut axes = Axes::new();
        for (name, size) in pairs {
            axes.declare(name, *size)?;
        }
        Ok(axes)
    }

    /// Parses `A=8,B=512` (spaces allowed, one trailing comma allowed).
    pub fn parse(text: &str) -> Result<Axes, AxesError> {
        let mut axes = Axes::new();
        let items: Vec<&str> = text.split(',').collect();
        for (i, item) in items.iter().enumerate() {
            let item = item.trim();
            if item.is_empty() && i + 1 == items.len() && i > 0 {
                break;
            }
            let (name, size) = item
                .split_once('=')
                .ok_or_else(|| AxesError::Syntax(item.to_string()))?;
            let size: usize = size
                .trim()
                .parse()
                .map_err(|_| AxesError::Syntax(item.to_string()))?;
            axes.declare(name.trim(), size)?;
        }
        Ok(axes)
    }

    /// The axis called `name`, if declared.
    pub fn get(&self, name: &str) -> Option<&Axis> {
        self.axes.iter().find(|a| a.name == name)
    }

    /// The declared axes in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = &Axis> {
        self.axes.iter()
    }
}

impl fmt::Display for Axes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, a) in self.axes.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{a}")?;
        }
        Ok(())
    }
}

/// Declares axes like the vendor's `axes!`: `axes![R = 4, A = 512]` evaluates to
/// `Result<Axes, AxesError>`.
///
/// ```
/// use npusim_furiosa::axes;
/// let ax = axes![R = 4, A = 512].unwrap();
/// assert_eq!(ax.get("A").map(|a| a.size), Some(512));
/// assert!(axes![A = 4, A = 2].is_err());
/// ```
#[macro_export]
macro_rules! axes {
    ($($name:ident = $size:expr),* $(,)?) => {
        $crate::mapping::Axes::from_pairs(&[$((stringify!($name), $size)),*])
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects() {
        let a = Axes::parse("A=8, B = 512,").unwrap();
        assert_eq!(a.to_string(), "A = 8, B = 512");
        assert_eq!(
            Axes::parse("A=8,A=2"),
            Err(AxesError::Duplicate("A".into()))
        );
        // Lower case is npusim's extension (docs/furiosa-engines.md §11.3 (b)).
        assert_eq!(Axes::parse("a=8").unwrap().to_string(), "a = 8");
        assert!(matches!(
            Axes::parse("8a=8"),
            Err(AxesError::Syntax(_) | AxesError::BadName(_))
        ));
        assert!(matches!(Axes::parse("A=0"), Err(AxesError::ZeroSize(_))));
        assert!(matches!(Axes::parse(",A=4"), Err(AxesError::Syntax(_))));
        assert!(matches!(Axes::parse("A=4,,B=2"), Err(AxesError::Syntax(_))));
        assert!(is_axis_name("R16") && is_axis_name("P2C") && !is_axis_name("_A"));
    }
}
