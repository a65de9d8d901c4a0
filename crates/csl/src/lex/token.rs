//! The CSL token kinds.

use std::fmt;

use logos::Logos;

/// A CSL token kind. Spaces, tabs, carriage returns, form feeds and line feeds separate
/// tokens; `//` comments are tokens the parser skips, so that a printer or formatter could keep
/// them.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\r\n\f]+")]
pub enum Tok {
    /// `// ...` up to the end of the line.
    #[regex(r"//[^\n]*", allow_greedy = true)]
    Comment,
    /// An identifier: an ASCII letter or `_`, then letters, digits and `_`.
    #[regex("[A-Za-z_][A-Za-z0-9_]*")]
    Ident,
    /// A builtin name: `@` and an identifier (`@fmacs`).
    #[regex("@[A-Za-z_][A-Za-z0-9_]*")]
    Builtin,
    /// An integer literal: decimal, `0x` hexadecimal, `0o` octal or `0b` binary, `_` between
    /// digits.
    #[regex("[0-9][0-9_]*")]
    #[regex("0x[0-9A-Fa-f_]+")]
    #[regex("0o[0-7_]+")]
    #[regex("0b[01_]+")]
    Int,
    /// A decimal float literal: digits `.` digits with an optional exponent, or digits and an
    /// exponent (`1.5`, `2.0e-3`, `1e6`).
    #[regex(r"[0-9][0-9_]*\.[0-9][0-9_]*([eE][+-]?[0-9][0-9_]*)?")]
    #[regex(r"[0-9][0-9_]*[eE][+-]?[0-9][0-9_]*")]
    Float,
    /// A string literal in double quotes, with `\` escapes, on one line.
    #[regex(r#""([^"\\\n]|\\[^\n])*""#)]
    Str,
    /// A character literal in single quotes.
    #[regex(r"'([^'\\\n]|\\[^\n])+'")]
    Char,

    /// `const`
    #[token("const")]
    Const,
    /// `var`
    #[token("var")]
    Var,
    /// `param`
    #[token("param")]
    Param,
    /// `fn`
    #[token("fn")]
    Fn,
    /// `task`
    #[token("task")]
    Task,
    /// `comptime`
    #[token("comptime")]
    Comptime,
    /// `layout`
    #[token("layout")]
    Layout,
    /// `if`
    #[token("if")]
    If,
    /// `else`
    #[token("else")]
    Else,
    /// `while`
    #[token("while")]
    While,
    /// `for`
    #[token("for")]
    For,
    /// `switch`
    #[token("switch")]
    Switch,
    /// `return`
    #[token("return")]
    Return,
    /// `break`
    #[token("break")]
    Break,
    /// `continue`
    #[token("continue")]
    Continue,
    /// `export`
    #[token("export")]
    Export,
    /// `extern`
    #[token("extern")]
    Extern,
    /// `inline`
    #[token("inline")]
    Inline,
    /// `struct`
    #[token("struct")]
    Struct,
    /// `enum`
    #[token("enum")]
    Enum,
    /// `align`
    #[token("align")]
    Align,
    /// `true`
    #[token("true")]
    True,
    /// `false`
    #[token("false")]
    False,
    /// `undefined`
    #[token("undefined")]
    Undefined,
    /// `null`
    #[token("null")]
    Null,
    /// `and`
    #[token("and")]
    And,
    /// `or`
    #[token("or")]
    Or,

    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
    /// `[`
    #[token("[")]
    LBracket,
    /// `]`
    #[token("]")]
    RBracket,
    /// `{`
    #[token("{")]
    LBrace,
    /// `}`
    #[token("}")]
    RBrace,
    /// `,`
    #[token(",")]
    Comma,
    /// `;`
    #[token(";")]
    Semi,
    /// `:`
    #[token(":")]
    Colon,
    /// `.`
    #[token(".")]
    Dot,
    /// `..`
    #[token("..")]
    DotDot,
    /// `.*`
    #[token(".*")]
    DotStar,
    /// `...` (a range of switch values)
    #[token("...")]
    Ellipsis,
    /// `=>`
    #[token("=>")]
    FatArrow,
    /// `->`
    #[token("->")]
    Arrow,
    /// `=`
    #[token("=")]
    Eq,
    /// `==`
    #[token("==")]
    EqEq,
    /// `!=`
    #[token("!=")]
    BangEq,
    /// `<`
    #[token("<")]
    Lt,
    /// `<=`
    #[token("<=")]
    Le,
    /// `>`
    #[token(">")]
    Gt,
    /// `>=`
    #[token(">=")]
    Ge,
    /// `<<`
    #[token("<<")]
    Shl,
    /// `>>`
    #[token(">>")]
    Shr,
    /// `+`
    #[token("+")]
    Plus,
    /// `-`
    #[token("-")]
    Minus,
    /// `*`
    #[token("*")]
    Star,
    /// `/`
    #[token("/")]
    Slash,
    /// `%`
    #[token("%")]
    Percent,
    /// `&`
    #[token("&")]
    Amp,
    /// `|`
    #[token("|")]
    Bar,
    /// `^`
    #[token("^")]
    Caret,
    /// `~`
    #[token("~")]
    Tilde,
    /// `!`
    #[token("!")]
    Bang,
    /// `++` (comptime array concatenation)
    #[token("++")]
    PlusPlus,
    /// `+=`
    #[token("+=")]
    PlusEq,
    /// `-=`
    #[token("-=")]
    MinusEq,
    /// `*=`
    #[token("*=")]
    StarEq,
    /// `/=`
    #[token("/=")]
    SlashEq,
    /// `%=`
    #[token("%=")]
    PercentEq,
    /// `&=`
    #[token("&=")]
    AmpEq,
    /// `|=`
    #[token("|=")]
    BarEq,
    /// `^=`
    #[token("^=")]
    CaretEq,
    /// `<<=`
    #[token("<<=")]
    ShlEq,
    /// `>>=`
    #[token(">>=")]
    ShrEq,
}

impl Tok {
    /// How the token is named in an error message (`` `;` ``, `an identifier`).
    pub fn describe(self) -> &'static str {
        match self {
            Tok::Comment => "a comment",
            Tok::Ident => "an identifier",
            Tok::Builtin => "a builtin name",
            Tok::Int => "an integer",
            Tok::Float => "a float",
            Tok::Str => "a string",
            Tok::Char => "a character literal",
            other => other.spelling(),
        }
    }

    /// The fixed text of a keyword or punctuation token (`""` for the others).
    pub fn spelling(self) -> &'static str {
        match self {
            Tok::Const => "`const`",
            Tok::Var => "`var`",
            Tok::Param => "`param`",
            Tok::Fn => "`fn`",
            Tok::Task => "`task`",
            Tok::Comptime => "`comptime`",
            Tok::Layout => "`layout`",
            Tok::If => "`if`",
            Tok::Else => "`else`",
            Tok::While => "`while`",
            Tok::For => "`for`",
            Tok::Switch => "`switch`",
            Tok::Return => "`return`",
            Tok::Break => "`break`",
            Tok::Continue => "`continue`",
            Tok::Export => "`export`",
            Tok::Extern => "`extern`",
            Tok::Inline => "`inline`",
            Tok::Struct => "`struct`",
            Tok::Enum => "`enum`",
            Tok::Align => "`align`",
            Tok::True => "`true`",
            Tok::False => "`false`",
            Tok::Undefined => "`undefined`",
            Tok::Null => "`null`",
            Tok::And => "`and`",
            Tok::Or => "`or`",
            Tok::LParen => "`(`",
            Tok::RParen => "`)`",
            Tok::LBracket => "`[`",
            Tok::RBracket => "`]`",
            Tok::LBrace => "`{`",
            Tok::RBrace => "`}`",
            Tok::Comma => "`,`",
            Tok::Semi => "`;`",
            Tok::Colon => "`:`",
            Tok::Dot => "`.`",
            Tok::DotDot => "`..`",
            Tok::DotStar => "`.*`",
            Tok::Ellipsis => "`...`",
            Tok::FatArrow => "`=>`",
            Tok::Arrow => "`->`",
            Tok::Eq => "`=`",
            Tok::EqEq => "`==`",
            Tok::BangEq => "`!=`",
            Tok::Lt => "`<`",
            Tok::Le => "`<=`",
            Tok::Gt => "`>`",
            Tok::Ge => "`>=`",
            Tok::Shl => "`<<`",
            Tok::Shr => "`>>`",
            Tok::Plus => "`+`",
            Tok::Minus => "`-`",
            Tok::Star => "`*`",
            Tok::Slash => "`/`",
            Tok::Percent => "`%`",
            Tok::Amp => "`&`",
            Tok::Bar => "`|`",
            Tok::Caret => "`^`",
            Tok::Tilde => "`~`",
            Tok::Bang => "`!`",
            Tok::PlusPlus => "`++`",
            Tok::PlusEq => "`+=`",
            Tok::MinusEq => "`-=`",
            Tok::StarEq => "`*=`",
            Tok::SlashEq => "`/=`",
            Tok::PercentEq => "`%=`",
            Tok::AmpEq => "`&=`",
            Tok::BarEq => "`|=`",
            Tok::CaretEq => "`^=`",
            Tok::ShlEq => "`<<=`",
            Tok::ShrEq => "`>>=`",
            Tok::Comment
            | Tok::Ident
            | Tok::Builtin
            | Tok::Int
            | Tok::Float
            | Tok::Str
            | Tok::Char => "",
        }
    }
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}
