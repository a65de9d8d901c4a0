//! The runtime parser of m-notation (spec §1.4): `"A / 8, R # 4"` → [`Mapping`], with errors
//! that point at the offending column.
//!
//! Grammar (`,` right-associative and weakest; postfix operators left-associative):
//!
//! ```text
//! mapping0 := mapping1 "," mapping0 | mapping1 [","]
//! mapping1 := mapping1 ("/" | "%" | "=" | "#" | "#{*}" | "#{0}" | "#{!}") num | atom
//! atom     := Axis | Nat | "(" mapping0 ")" | "[" mapping0 "]" | "{" mapping0 "}"
//! num      := Nat | "{" Nat "}"
//! ```

use std::fmt;

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
            Tok::Open(c) | Tok::Close(c) => write!(f, "`{c}`"),
            Tok::End => f.write_str("end of input"),
        }
    }
}

struct Lexed {
    toks: Vec<(Tok, usize)>,
}

fn lex(text: &str) -> Result<Lexed, (usize, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    let skip_ws = |mut j: usize| {
        while j < chars.len() && chars[j].is_whitespace() {
            j += 1;
        }
        j
    };
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            toks.push((Tok::Ident(word), col));
            continue;
        }
        if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '_') {
                i += 1;
            }
            let digits: String = chars[start..i].iter().filter(|c| **c != '_').collect();
            let n = digits
                .parse::<usize>()
                .map_err(|_| (col, format!("number `{digits}` is too large")))?;
            toks.push((Tok::Nat(n), col));
            continue;
        }
        let tok = match c {
            ',' => Tok::Comma,
            '/' => Tok::Slash,
            '%' => Tok::Percent,
            '=' => Tok::Eq,
            '(' | '[' | '{' => Tok::Open(c),
            ')' | ']' | '}' => Tok::Close(c),
            '#' => {
                // `#{*}`, `#{0}`, `#{!}` are fill-kind markers; any other brace group after `#`
                // is an escaped number and is left to the parser.
                let mut kind = PaddingKind::Top;
                let j = skip_ws(i + 1);
                if j < chars.len() && chars[j] == '{' {
                    let k = skip_ws(j + 1);
                    let marker = chars.get(k).copied();
                    let close = skip_ws(k + 1);
                    if chars.get(close) == Some(&'}') {
                        let found = match marker {
                            Some('*') => Some(PaddingKind::Top),
                            Some('0') => Some(PaddingKind::Zero),
                            Some('!') => Some(PaddingKind::Bottom),
                            _ => None,
                        };
                        if let Some(found) = found {
                            kind = found;
                            i = close;
                        }
                    }
                }
                Tok::Hash(kind)
            }
            _ => return Err((col, format!("unexpected character `{c}`"))),
        };
        toks.push((tok, col));
        i += 1;
    }
    toks.push((Tok::End, chars.len() + 1));
    Ok(Lexed { toks })
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

    fn num(&mut self, after: &Tok) -> PResult<usize> {
        match self.bump() {
            (Tok::Nat(n), _) => Ok(n),
            (Tok::Open('{'), _) => match self.bump() {
                (Tok::Nat(n), _) => match self.bump() {
                    (Tok::Close('}'), _) => Ok(n),
                    (t, c) => syntax(c, format!("expected `}}` closing the number, found {t}")),
                },
                (t, c) => syntax(c, format!("expected a number inside `{{ }}`, found {t}")),
            },
            (t, c) => syntax(c, format!("expected a number after {after}, found {t}")),
        }
    }

    fn atom(&mut self) -> PResult<Mapping> {
        match self.bump() {
            (Tok::Ident(name), col) => match self.axes.get(&name) {
                Some(a) => Ok(Mapping::axis(a)),
                None => Err((
                    col,
                    ParseErrorKind::UnknownAxis {
                        name,
                        declared: if self.axes.iter().next().is_none() {
                            "none".to_string()
                        } else {
                            self.axes.to_string()
                        },
                    },
                )),
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
        let lexed = lex(text).map_err(|(c, m)| fail((c, ParseErrorKind::Syntax(m))))?;
        if lexed.toks.len() > MAX_TOKENS {
            let col = lexed.toks[MAX_TOKENS].1;
            return Err(fail((
                col,
                ParseErrorKind::Syntax(format!("a mapping has at most {MAX_TOKENS} tokens")),
            )));
        }
        let mut p = Parser {
            toks: lexed.toks,
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
