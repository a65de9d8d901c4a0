//! The lexer: every token kind the CSL programs use, byte spans, and the refusals.

use npusim_csl::Span;
use npusim_csl::lex::{LexError, Tok, lex};

fn kinds(text: &str) -> Vec<Tok> {
    lex(text).unwrap().iter().map(|t| t.tok).collect()
}

fn texts(text: &str) -> Vec<&str> {
    lex(text)
        .unwrap()
        .iter()
        .map(|t| &text[t.span.start..t.span.end])
        .collect()
}

#[test]
fn keywords_are_their_own_tokens_and_prefixes_of_names_are_not() {
    let src = "const var param fn task comptime layout if else while for return break \
               continue export extern inline struct enum align true false undefined null and or";
    let k = kinds(src);
    assert_eq!(k.len(), 26);
    assert!(!k.contains(&Tok::Ident));
    assert_eq!(kinds("constant variable layouts fn_x _"), [Tok::Ident; 5]);
}

#[test]
fn builtins_identifiers_and_comments() {
    assert_eq!(
        kinds("@fmacs(dst) // a comment @ $ \"\nx"),
        [
            Tok::Builtin,
            Tok::LParen,
            Tok::Ident,
            Tok::RParen,
            Tok::Comment,
            Tok::Ident
        ]
    );
    assert_eq!(texts("@get_dsd x_1"), ["@get_dsd", "x_1"]);
}

#[test]
fn integers_in_every_base_with_separators() {
    let src = "42 1_000 0x1F 0xdead_BEEF 0o17 0b1010_0101";
    assert_eq!(kinds(src), [Tok::Int; 6]);
    assert_eq!(
        texts(src),
        ["42", "1_000", "0x1F", "0xdead_BEEF", "0o17", "0b1010_0101"]
    );
}

#[test]
fn floats_and_ranges() {
    assert_eq!(kinds("1.5 2.0e-3 1e6 3_0.2_5"), [Tok::Float; 4]);
    // `0..5` is a range, not a float followed by `.5`.
    assert_eq!(
        kinds("a[0..5]"),
        [
            Tok::Ident,
            Tok::LBracket,
            Tok::Int,
            Tok::DotDot,
            Tok::Int,
            Tok::RBracket
        ]
    );
}

#[test]
fn strings_and_characters() {
    assert_eq!(
        texts(r#""pe_program.csl" "a\"b" 'x'"#),
        [r#""pe_program.csl""#, r#""a\"b""#, "'x'"]
    );
    assert_eq!(kinds(r#""a" 'x'"#), [Tok::Str, Tok::Char]);
}

#[test]
fn every_operator() {
    let src = "( ) [ ] { } , ; : . .. .* -> = == != < <= > >= << >> + - * / % & | ^ ~ ! ++ \
               += -= *= /= %= &= |= ^= <<= >>=";
    let k = kinds(src);
    assert_eq!(k.len(), 43);
    assert_eq!(texts("p.*=x.y"), ["p", ".*", "=", "x", ".", "y"]);
    assert_eq!(texts("a<<=b>>c"), ["a", "<<=", "b", ">>", "c"]);
}

#[test]
fn spans_are_byte_ranges() {
    let toks = lex("var é_x = 1;").err();
    // `é` is not an identifier character.
    assert_eq!(
        toks,
        Some(LexError::UnexpectedCharacter {
            text: "é".into(),
            span: Span::new(4, 6)
        })
    );
    let toks = lex("  x = \"ü\";").unwrap();
    assert_eq!(toks[0].span, Span::new(2, 3));
    assert_eq!(toks[2].span, Span::new(6, 10));
    assert_eq!(toks[3].span, Span::new(10, 11));
}

#[test]
fn numbers_glued_to_letters_are_errors() {
    for (src, word) in [
        ("x = 12abc;", "12abc"),
        ("0x;", "0x"),
        ("0b12", "0b12"),
        ("1.5f", "1.5f"),
    ] {
        match lex(src) {
            Err(LexError::MalformedNumber { text, .. }) => assert_eq!(text, word, "{src}"),
            other => panic!("{src}: {other:?}"),
        }
    }
}

#[test]
fn unexpected_characters_and_open_strings() {
    assert_eq!(
        lex("a $ b").unwrap_err(),
        LexError::UnexpectedCharacter {
            text: "$".into(),
            span: Span::new(2, 3)
        }
    );
    assert_eq!(
        lex("x = \"abc\n\";").unwrap_err(),
        LexError::UnterminatedString {
            span: Span::new(4, 8)
        }
    );
}
