//! npusim-csl: the CSL front end of the npusim Cerebras model.
//!
//! Today: the [lexer](lex), the [parser](parse) into an [AST](ast), a [printer](print) of
//! canonical text, and [compile-time evaluation](comptime) of a `layout.csl` into a
//! [`Layout`](comptime::Layout) value (rectangle, per-PE programs and parameters, routes,
//! exported symbols), and [PE programs](pe) (with their [own modules](link)) compiled with their params and run on the
//! Cerebras simulator (scalar code interpreted inside its scheduler, DSD builtins as its
//! operations); [whole programs](compiled) (a layout and its PE programs on one simulator,
//! `cslc`'s `out/` directory) and [the SDK](sdk) modelled natively (memcpy copy mode, the
//! host runtime `SdkRuntime`, `cs-python`). Errors are [`Diagnostic`]s printed as `cslc`
//! prints them: `file:line:col: error: message`, the source line and a caret.

pub mod ast;
pub mod compiled;
pub mod comptime;
pub mod diagnostic;
pub mod lex;
pub mod link;
pub mod parse;
pub mod pe;
pub mod print;
pub mod sdk;
pub mod source;
pub mod span;

pub use diagnostic::Diagnostic;
pub use source::SourceFile;
pub use span::Span;
