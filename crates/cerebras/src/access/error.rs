//! What can be wrong with a tensor access expression or its lowering.

use npusim_hw::LimitError;
use thiserror::Error;

/// A tensor access expression that cannot be parsed or lowered.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum AccessError {
    /// The text does not follow `|v, ...|{len, ...} -> array[expr, ...]`.
    #[error("syntax error at column {column}: expected {expected}, found {found}")]
    Syntax {
        /// 1-based character column of the offending token.
        column: usize,
        /// What the grammar allows there.
        expected: String,
        /// What the text has there.
        found: String,
    },
    /// A product of two expressions that both use induction variables.
    #[error("expression is not affine at column {column}: a product needs one constant factor")]
    NotAffine {
        /// 1-based column of the `*`.
        column: usize,
    },
    /// An identifier in an index expression that is not an induction variable.
    #[error(
        "unknown identifier `{name}` at column {column}: only the induction variables {variables:?} may appear"
    )]
    UnknownIdentifier {
        /// The identifier.
        name: String,
        /// 1-based column.
        column: usize,
        /// The declared induction variables.
        variables: Vec<String>,
    },
    /// A length expression that uses an induction variable (lengths are comptime constants).
    #[error("length {position} uses induction variable `{name}`: lengths must be constants")]
    VariableInLength {
        /// 0-based position of the length.
        position: usize,
        /// The variable.
        name: String,
    },
    /// An induction variable declared twice.
    #[error("induction variable `{name}` is declared twice")]
    DuplicateVariable {
        /// The variable.
        name: String,
    },
    /// The number of lengths differs from the number of induction variables.
    #[error("{lengths} lengths for {variables} induction variables: the counts must match")]
    LengthCount {
        /// Induction variables declared.
        variables: usize,
        /// Lengths given.
        lengths: usize,
    },
    /// The number of index expressions differs from the array's rank.
    #[error(
        "{indices} index expressions for array `{array}` of rank {rank}: there must be one per dimension"
    )]
    IndexCount {
        /// The array.
        array: String,
        /// Its rank.
        rank: usize,
        /// Index expressions given.
        indices: usize,
    },
    /// The expression names another array than the one it is lowered over.
    #[error("the expression accesses `{found}` but the array given is `{expected}`")]
    ArrayName {
        /// The array supplied.
        expected: String,
        /// The array in the text.
        found: String,
    },
    /// An array shape with no dimensions or a zero dimension.
    #[error("array `{array}` has an invalid shape {shape:?}: every dimension must be at least 1")]
    Shape {
        /// The array.
        array: String,
        /// Its shape.
        shape: Vec<u64>,
    },
    /// Parentheses and unary signs nested deeper than
    /// [`MAX_NESTING`](super::parse::MAX_NESTING) levels.
    #[error(
        "expression nests deeper than {max} levels at column {column} (parentheses and unary signs each count one level)"
    )]
    TooDeep {
        /// 1-based column of the parenthesis or sign one level too deep.
        column: usize,
        /// The most levels allowed.
        max: usize,
    },
    /// A constant or a lowered value too large to compute with.
    #[error("arithmetic overflow in {what}")]
    Overflow {
        /// Where.
        what: String,
    },
    /// A hardware limit broken by a lowered field.
    #[error("{}", limit_message(what, limit))]
    Limit {
        /// Which field (and dimension) broke the limit.
        what: String,
        /// The limit and the number.
        limit: LimitError,
    },
    /// Under the strict bounds policy, an access outside the array.
    #[error(
        "strict bounds: {array}{tuple:?} is element {element} of `{array}`, outside [0, {elements})"
    )]
    OutOfBounds {
        /// The array.
        array: String,
        /// The induction-variable values of the first offending access (outermost first).
        tuple: Vec<i64>,
        /// Its row-major element index.
        element: i64,
        /// Elements in the array.
        elements: i64,
    },
}

impl AccessError {
    /// Wraps a limit error with the field it concerns.
    pub fn limit(what: impl Into<String>, limit: LimitError) -> AccessError {
        AccessError::Limit {
            what: what.into(),
            limit,
        }
    }
}

/// `limit`'s message, prefixed with `what` unless the limit's own name already says it.
pub(crate) fn limit_message(what: &str, limit: &LimitError) -> String {
    if what == limit.limit.name {
        limit.to_string()
    } else {
        format!("{what}: {limit}")
    }
}
