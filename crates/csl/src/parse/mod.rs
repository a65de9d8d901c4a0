//! The CSL parser: recursive descent over the [lexer](crate::lex)'s tokens into a
//! [`Module`](crate::ast::Module), one file per construct (`decl`, `stmt`, `expr` for
//! operators, `primary` for literals and names, `types`, `literal` for number and string
//! values, `tensor_access`).
//!
//! Nesting (blocks, parentheses, prefix operators, type constructors) is limited to
//! [`MAX_NESTING`] levels: deeper text is an error, never a stack overflow.

mod cursor;
mod decl;
mod expr;
pub(crate) mod literal;
mod primary;
mod stmt;
mod switch;
mod tensor_access;
mod types;

use thiserror::Error;

use crate::ast::Module;
use crate::diagnostic::Diagnostic;
use crate::lex::{self, Tok};
use crate::source::SourceFile;
use crate::span::Span;
use cursor::Parser;

/// Deepest nesting the parser accepts (blocks, parentheses, prefix operators, nested
/// literals and types each count one level).
pub const MAX_NESTING: usize = 96;

/// A syntax error: what and where.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct ParseError {
    /// What is wrong.
    pub message: String,
    /// Where.
    pub span: Span,
}

impl ParseError {
    /// An error `message` at `span`.
    pub fn new(span: Span, message: impl Into<String>) -> ParseError {
        ParseError {
            message: message.into(),
            span,
        }
    }
}

/// Parses the text of `source` into its module, or the first error as a [`Diagnostic`].
///
/// ```
/// use npusim_csl::{SourceFile, parse::parse};
/// let file = SourceFile::new("pe.csl", "param N: i16;\nvar x: [N]f32 = @zeros([N]f32);\n");
/// assert_eq!(parse(&file).unwrap().decls.len(), 2);
/// let bad = SourceFile::new("pe.csl", "const x = 1 +;\n");
/// assert_eq!(
///     parse(&bad).unwrap_err().to_string(),
///     "pe.csl:1:14: error: expected an expression, found `;`\nconst x = 1 +;\n             ^"
/// );
/// ```
pub fn parse(source: &SourceFile) -> Result<Module, Diagnostic> {
    parse_text(source.text()).map_err(|e| source.diagnostic(e.span, e.message))
}

/// Parses `text` into its module, or the first error with its span.
pub fn parse_text(text: &str) -> Result<Module, ParseError> {
    let tokens = lex::lex(text).map_err(|e| ParseError::new(e.span(), e.to_string()))?;
    let tokens: Vec<_> = tokens
        .into_iter()
        .filter(|t| t.tok != Tok::Comment)
        .collect();
    let mut parser = Parser::new(text, tokens);
    parser.module()
}
