//! What compile-time evaluation refuses.

use thiserror::Error;

use crate::span::Span;

/// A compile-time error: what and where.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct EvalError {
    /// What is wrong.
    pub message: String,
    /// Where.
    pub span: Span,
}

impl EvalError {
    /// An error `message` at `span`.
    pub fn new(span: Span, message: impl Into<String>) -> EvalError {
        EvalError {
            message: message.into(),
            span,
        }
    }
}

/// A result of evaluation.
pub type EResult<T> = Result<T, EvalError>;
