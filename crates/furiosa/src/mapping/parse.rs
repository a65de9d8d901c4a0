//! The runtime parser of m-notation: `"A / 8, R # 4"` → [`Mapping`], with errors
//! that point at the offending column.
//!
//! Grammar (`,` right-associative and weakest; postfix operators left-associative):
//!
//! ```text
//! mapping0 := mapping1 "," mapping0 | mapping1 [","]
//! mapping1 := mapping1 ("/" | "%" | "=" | "#" | "#{*}" | "#{0}" | "#{!}") num | atom
//! atom     := Axis | Nat | "(" mapping0 ")" | "[" mapping0 "]" | "{" mapping0 "}"
//! num      := Nat | Axis | "(" mapping0 ")" | "[" mapping0 "]" | "{" const "}"
//! const    := term (("+" | "-") term)*
//! term     := factor (("*" | "/" | "%") factor)*
//! factor   := Nat | Axis | "(" const ")"
//! ```
//!
//! An operand that is an axis or a bracketed mapping stands for its size (`A / B` is
//! `A / B.SIZE`); a braced constant expression is evaluated with overflow, negative results
//! and inexact division refused (`docs/furiosa-engines.md` §11.3). `+`, `-` and `*` exist only
//! inside such braces.

use std::fmt;

use npusim_hw::lex::{self, Lexeme, Token};
use thiserror::Error;

use super::{Axes, Mapping, PaddingKind, ShapeError};

/// Why a text is not a mapping.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseErrorKind {
    /// The text does not follow the grammar.
    #[error("syntax error: {0}")]
    Syntax(String),
    /// An identifier that is not a declared axis.
    #[error("unknown axis `{name}` (rule: every axis must be declared; declared: {declared})")]
    UnknownAxis {
        /// The identifier.
        name: String,
        /// The declared axes, `A = 8, B = 512`.
        declared: String,
    },
    /// A constructor constraint is broken.
    #[error(transparent)]
    Shape(#[from] ShapeError),
}

/// A parse failure: what went wrong, and where (1-based character column).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub struct ParseError {
    /// 1-based column of the offending character.
    pub column: usize,
    /// What went wrong.
    pub kind: ParseErrorKind,
    /// The text that was parsed.
    pub text: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "column {}: {}", self.column, self.kind)?;
        writeln!(f, "  {}", self.text)?;
        write!(f, "  {}^", " ".repeat(self.column.saturating_sub(1)))
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Nat(usize),
    Comma,
    Slash,
    Percent,
    Eq,
    Hash(PaddingKind),
    Plus,
    Minus,
    Star,
    Open(char),
    Close(char),
    End,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "`{s}`"),
            Tok::Nat(n) => write!(f, "`{n}`"),
            Tok::Comma => f.write_str("`,`"),
            Tok::Slash => f.write_str("`/`"),
            Tok::Percent => f.write_str("`%`"),
            Tok::Eq => f.write_str("`=`"),
            Tok::Hash(k) => write!(f, "`{}`", k.operator()),
            Tok::Plus => f.write_str("`+`"),
            Tok::Minus => f.write_str("`-`"),
            Tok::Star => f.write_str("`*`"),
            Tok::Open(c) | Tok::Close(c) => write!(f, "`{c}`"),
            Tok::End => f.write_str("end of input"),
        }
    }
}

/// Converts the shared lexer's lexemes into this grammar's tokens with their 1-based columns,
/// refusing the kinds it does not use (`*`, `->`, `|`, ...) where they appear. Numbers are
/// plain decimals: a number word is its digits then an identifier (`8abc` is `8`, `abc`).
fn lex(text: &str) -> Result<Vec<(Tok, usize)>, (usize, String)> {
    let mut lexemes = Vec::new();
    for lexeme in lex::lex(text) {
        match lexeme {
            Ok(l) => {
                let (number, glued) = l.split_decimal();
                lexemes.push(Ok(number));
                lexemes.extend(glued.map(Ok));
            }
            Err(e) => lexemes.push(Err(e)),
        }
    }
    let mut toks: Vec<(Tok, usize)> = Vec::new();
    // Depth of the braces of a constant operand (`A # {4 + 4}`), where `+ - *` are tokens.
    let mut constant = 0usize;
    let mut i = 0;
    while let Some(lexeme) = lexemes.get(i) {
        let lexeme = match lexeme {
            Ok(l) => l,
            Err(e) => return Err((e.column, format!("unexpected character `{}`", e.text))),
        };
        let col = lexeme.span.column;
        i += 1;
        let tok = match lexeme.token {
            Token::Ident => Tok::Ident(lexeme.text.to_string()),
            Token::Number => {
                let n = lexeme.unsigned(u64::MAX).ok();
                let n = n.and_then(|n| usize::try_from(n).ok()).ok_or_else(|| {
                    let digits = lexeme.text.replace('_', "");
                    (col, format!("number `{digits}` is too large"))
                })?;
                Tok::Nat(n)
            }
            Token::Comma => Tok::Comma,
            Token::Slash => Tok::Slash,
            Token::Percent => Tok::Percent,
            Token::Eq => Tok::Eq,
            Token::Plus if constant > 0 => Tok::Plus,
            Token::Minus if constant > 0 => Tok::Minus,
            Token::Star if constant > 0 => Tok::Star,
            Token::LParen => Tok::Open('('),
            Token::LBracket => Tok::Open('['),
            Token::LBrace => {
                let operand = matches!(
                    toks.last(),
                    Some((Tok::Slash | Tok::Percent | Tok::Eq | Tok::Hash(_), _))
                );
                if constant > 0 || operand {
                    constant += 1;
                }
                Tok::Open('{')
            }
            Token::RParen => Tok::Close(')'),
            Token::RBracket => Tok::Close(']'),
            Token::RBrace => {
                constant = constant.saturating_sub(1);
                Tok::Close('}')
            }
            Token::Hash => {
                // `#{*}`, `#{0}`, `#{!}` are fill-kind markers; any other brace group after `#`
                // is an escaped number and is left to the parser.
                let kind = match lexemes.get(i..i + 3) {
                    Some([Ok(open), Ok(marker), Ok(close)])
                        if open.token == Token::LBrace && close.token == Token::RBrace =>
                    {
                        fill_marker(marker)
                    }
                    _ => None,
                };
                if kind.is_some() {
                    i += 3;
                }
                Tok::Hash(kind.unwrap_or(PaddingKind::Top))
            }
            _ => {
                let c = lexeme.first_char();
                return Err((col, format!("unexpected character `{c}`")));
            }
        };
        toks.push((tok, col));
    }
    toks.push((Tok::End, lex::end_column(text)));
    Ok(toks)
}

/// The fill kind a lexeme between `#{` and `}` names: `*`, `0` or `!`.
fn fill_marker(marker: &Lexeme<'_>) -> Option<PaddingKind> {
    match (marker.token, marker.text) {
        (Token::Star, _) => Some(PaddingKind::Top),
        (Token::Number, "0") => Some(PaddingKind::Zero),
        (Token::Bang, _) => Some(PaddingKind::Bottom),
        _ => None,
    }
}

/// Most tokens a mapping text may have (keeps evaluation recursion shallow).
pub const MAX_TOKENS: usize = 4096;

/// Deepest bracket nesting a mapping text may have.
pub const MAX_NESTING: usize = 64;

struct Parser<'a> {
    toks: Vec<(Tok, usize)>,
    at: usize,
    axes: &'a Axes,
    depth: usize,
}

type PResult<T> = Result<T, (usize, ParseErrorKind)>;

fn syntax<T>(col: usize, msg: String) -> PResult<T> {
    Err((col, ParseErrorKind::Syntax(msg)))
}

impl Parser<'_> {
    fn peek(&self) -> &(Tok, usize) {
        &self.toks[self.at.min(self.toks.len() - 1)]
    }

    fn bump(&mut self) -> (Tok, usize) {
        let t = self.peek().clone();
        if self.at < self.toks.len() - 1 {
            self.at += 1;
        }
        t
    }

    fn mapping0(&mut self) -> PResult<Mapping> {
        let left = self.mapping1()?;
        if self.peek().0 != Tok::Comma {
            return Ok(left);
        }
        let (_, comma_col) = self.bump();
        if matches!(self.peek().0, Tok::End | Tok::Close(_)) {
            return Ok(left);
        }
        let right = self.mapping0()?;
        left.pair(right).map_err(|e| (comma_col, e.into()))
    }

    fn mapping1(&mut self) -> PResult<Mapping> {
        let mut m = self.atom()?;
        loop {
            let (tok, col) = self.peek().clone();
            let op: fn(Mapping, usize) -> Result<Mapping, ShapeError> = match tok {
                Tok::Slash => Mapping::stride,
                Tok::Percent => Mapping::modulo,
                Tok::Eq => Mapping::resize,
                Tok::Hash(PaddingKind::Top) => |m, n| m.pad(n, PaddingKind::Top),
                Tok::Hash(PaddingKind::Zero) => |m, n| m.pad(n, PaddingKind::Zero),
                Tok::Hash(PaddingKind::Bottom) => |m, n| m.pad(n, PaddingKind::Bottom),
                _ => return Ok(m),
            };
            self.bump();
            let n = self.num(&tok)?;
            m = op(m, n).map_err(|e| (col, e.into()))?;
        }
    }

    /// The operand of `/ % = #`: a number, an axis or a bracketed mapping (its size), or a
    /// braced constant expression.
    fn num(&mut self, after: &Tok) -> PResult<usize> {
        match self.peek().clone() {
            (Tok::Nat(n), _) => {
                self.bump();
                Ok(n)
            }
            (Tok::Ident(_) | Tok::Open('(' | '['), _) => Ok(self.atom()?.size()),
            (Tok::Open('{'), col) => {
                self.bump();
                let n = self.constant()?;
                match self.bump() {
                    (Tok::Close('}'), _) => Ok(n),
                    (t, c) => syntax(
                        c,
                        format!("expected `}}` closing the `{{` at column {col}, found {t}"),
                    ),
                }
            }
            (t, c) => {
                let hint = if matches!(after, Tok::Hash(PaddingKind::Zero)) {
                    " (`#{0}` is read as the zero-fill marker, which takes a size after it; to pad to the constant 0 write `# 0`)"
                } else {
                    ""
                };
                syntax(
                    c,
                    format!(
                        "expected a number, an axis or a bracketed mapping after {after}, found {t}{hint}"
                    ),
                )
            }
        }
    }

    /// `const := term (("+" | "-") term)*`.
    fn constant(&mut self) -> PResult<usize> {
        let mut v = self.term()?;
        loop {
            let (tok, col) = self.peek().clone();
            let add = match tok {
                Tok::Plus => true,
                Tok::Minus => false,
                _ => return Ok(v),
            };
            self.bump();
            let r = self.term()?;
            v = if add {
                v.checked_add(r)
            } else {
                v.checked_sub(r)
            }
            .ok_or_else(|| {
                let op = if add { '+' } else { '-' };
                (
                    col,
                    ParseErrorKind::Syntax(format!(
                        "{v} {op} {r} is out of range (rule: a constant is a size, 0 to {})",
                        usize::MAX
                    )),
                )
            })?;
        }
    }

    /// `term := factor (("*" | "/" | "%") factor)*`.
    fn term(&mut self) -> PResult<usize> {
        let mut v = self.factor()?;
        loop {
            let (tok, col) = self.peek().clone();
            if !matches!(tok, Tok::Star | Tok::Slash | Tok::Percent) {
                return Ok(v);
            }
            self.bump();
            let r = self.factor()?;
            let op = match tok {
                Tok::Star => '*',
                Tok::Slash => '/',
                _ => '%',
            };
            let fail = |why: &str| (col, ParseErrorKind::Syntax(format!("{v} {op} {r} {why}")));
            v = match tok {
                Tok::Star => v.checked_mul(r).ok_or_else(|| fail("overflows"))?,
                _ if r == 0 => return Err(fail("divides by zero")),
                Tok::Slash if !v.is_multiple_of(r) => {
                    return Err(fail("is not exact (rule: a constant divides exactly)"));
                }
                Tok::Slash => v / r,
                _ => v % r,
            };
        }
    }

    /// `factor := Nat | Axis | "(" const ")"`.
    fn factor(&mut self) -> PResult<usize> {
        match self.bump() {
            (Tok::Nat(n), _) => Ok(n),
            (Tok::Ident(name), col) => match self.axes.get(&name) {
                Some(a) => Ok(a.size),
                None => Err((col, self.unknown(name))),
            },
            (Tok::Open('('), col) => {
                let v = self.constant()?;
                match self.bump() {
                    (Tok::Close(')'), _) => Ok(v),
                    (t, c) => syntax(
                        c,
                        format!("expected `)` closing the `(` at column {col}, found {t}"),
                    ),
                }
            }
            (t @ (Tok::Plus | Tok::Minus | Tok::Star), c) => {
                let ch = t.to_string().trim_matches('`').to_string();
                syntax(c, format!("unexpected character `{ch}`"))
            }
            (t, c) => syntax(
                c,
                format!("expected a number, an axis or `(` in a constant, found {t}"),
            ),
        }
    }

    fn unknown(&self, name: String) -> ParseErrorKind {
        ParseErrorKind::UnknownAxis {
            name,
            declared: if self.axes.iter().next().is_none() {
                "none".to_string()
            } else {
                self.axes.to_string()
            },
        }
    }

    fn atom(&mut self) -> PResult<Mapping> {
        match self.bump() {
            (Tok::Ident(name), col) => match self.axes.get(&name) {
                Some(a) => Ok(Mapping::axis(a)),
                None => Err((col, self.unknown(name))),
            },
            (Tok::Nat(n), col) => Mapping::broadcast(n).map_err(|e| (col, e.into())),
            (Tok::Open(open), col) => {
                if self.depth >= MAX_NESTING {
                    return syntax(
                        col,
                        format!("brackets nest deeper than {MAX_NESTING} levels"),
                    );
                }
                self.depth += 1;
                let close = match open {
                    '(' => ')',
                    '[' => ']',
                    _ => '}',
                };
                let inner = self.mapping0()?;
                self.depth -= 1;
                match self.bump() {
                    (Tok::Close(c), _) if c == close => Ok(inner),
                    (t, c) => syntax(
                        c,
                        format!(
                            "expected `{close}` closing the `{open}` at column {col}, found {t}"
                        ),
                    ),
                }
            }
            (t, c) => syntax(
                c,
                format!("expected an axis, a number or `(`, `[`, `{{`, found {t}"),
            ),
        }
    }
}

impl Mapping {
    /// Parses m-notation against the declared `axes`.
    ///
    /// ```
    /// use npusim_furiosa::mapping::{Axes, Mapping, Final};
    /// let axes = Axes::parse("A=8,B=512").unwrap();
    /// let m = Mapping::parse("A, B", &axes).unwrap();
    /// assert_eq!(m.size(), 4096);
    /// assert_eq!(m.cell(519), Final::live(&[("A", 1), ("B", 7)]));
    /// let e = Mapping::parse("A / 3", &axes).unwrap_err();
    /// assert_eq!(e.column, 3);
    /// ```
    pub fn parse(text: &str, axes: &Axes) -> Result<Mapping, ParseError> {
        let fail = |(column, kind): (usize, ParseErrorKind)| ParseError {
            column,
            kind,
            text: text.to_string(),
        };
        let toks = lex(text).map_err(|(c, m)| fail((c, ParseErrorKind::Syntax(m))))?;
        if toks.len() > MAX_TOKENS {
            let col = toks[MAX_TOKENS].1;
            return Err(fail((
                col,
                ParseErrorKind::Syntax(format!("a mapping has at most {MAX_TOKENS} tokens")),
            )));
        }
        let mut p = Parser {
            toks,
            at: 0,
            axes,
            depth: 0,
        };
        let m = p.mapping0().map_err(fail)?;
        match p.bump() {
            (Tok::End, _) => Ok(m),
            (t, c) => Err(fail((
                c,
                ParseErrorKind::Syntax(format!("unexpected {t} after a complete mapping")),
            ))),
        }
    }
}

/// Parses m-notation like the vendor's `m!`: `m!(axes; A / 8, R)` evaluates to
/// `Result<Mapping, ParseError>`.
///
/// ```
/// use npusim_furiosa::{axes, m};
/// let ax = axes![R = 4, A = 512].unwrap();
/// let slice = m!(ax; A / 8, R).unwrap();
/// assert_eq!(slice.size(), 256);
/// assert_eq!(m!(ax; A #{0} 1024).unwrap().to_string(), "A #{0} 1024");
/// ```
#[macro_export]
macro_rules! m {
    ($axes:expr; $($t:tt)*) => {
        $crate::mapping::Mapping::parse(stringify!($($t)*), &$axes)
    };
}
