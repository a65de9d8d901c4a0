//! Mapping expressions (the RNGD book's m-notation): axes, the expression AST, its parser and
//! printer, the position → cell evaluator and normalisation.

mod axes;
mod cell;
mod eval;
mod expr;
mod normal;
mod parse;
pub mod sequence;

pub use axes::{Axes, AxesError, Axis, is_axis_name};
pub use cell::{Cell, Final, PaddingKind};
pub use eval::{Evaluator, Slot};
pub use expr::{Form, Mapping, ShapeError};
pub use parse::{ParseError, ParseErrorKind};
