//! The shared lexer: token kinds, character columns, errors and number reading.

use npusim_hw::lex::{LexError, LexErrorKind, Lexeme, Token, end_column, lex};

fn lexemes(text: &str) -> Vec<Lexeme<'_>> {
    lex(text)
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

fn kinds(text: &str) -> Vec<(Token, &str, usize)> {
    lexemes(text)
        .into_iter()
        .map(|l| (l.token, l.text, l.span.column))
        .collect()
}

#[test]
fn tensor_access_tokens_and_columns() {
    use Token::*;
    assert_eq!(
        kinds("|i, j|{5, 0x10} -> A[2 * i - j]"),
        [
            (Bar, "|", 1),
            (Ident, "i", 2),
            (Comma, ",", 3),
            (Ident, "j", 5),
            (Bar, "|", 6),
            (LBrace, "{", 7),
            (Number, "5", 8),
            (Comma, ",", 9),
            (Number, "0x10", 11),
            (RBrace, "}", 15),
            (Arrow, "->", 17),
            (Ident, "A", 20),
            (LBracket, "[", 21),
            (Number, "2", 22),
            (Star, "*", 24),
            (Ident, "i", 26),
            (Minus, "-", 28),
            (Ident, "j", 30),
            (RBracket, "]", 31),
        ]
    );
}

#[test]
fn m_notation_tokens() {
    use Token::*;
    let got: Vec<Token> = kinds("(A / 8) % 2, [R = 4] #{!} : B")
        .into_iter()
        .map(|k| k.0)
        .collect();
    assert_eq!(
        got,
        [
            LParen, Ident, Slash, Number, RParen, Percent, Number, Comma, LBracket, Ident, Eq,
            Number, RBracket, Hash, LBrace, Bang, RBrace, Colon, Ident
        ]
    );
}

/// `-` followed by `>` is one arrow; `- >` is a minus then an unexpected `>`.
#[test]
fn arrow_is_one_token_only_when_adjacent() {
    assert_eq!(kinds("a->b")[1], (Token::Arrow, "->", 2));
    let mut it = lex("a - >");
    assert_eq!(
        it.nth(1).map(|l| l.map(|l| l.token)),
        Some(Ok(Token::Minus))
    );
    let e = it.next().and_then(Result::err);
    assert_eq!(
        e,
        Some(LexError {
            column: 5,
            text: ">".into(),
            kind: LexErrorKind::UnexpectedCharacter
        })
    );
}

/// Columns count characters, not bytes; whitespace is Unicode `White_Space` like
/// `char::is_whitespace` (ideographic space, next line).
#[test]
fn columns_count_characters_and_unicode_whitespace_separates() {
    let text = "A\u{3000}/\u{85}8";
    assert_eq!(
        kinds(text),
        [
            (Token::Ident, "A", 1),
            (Token::Slash, "/", 3),
            (Token::Number, "8", 5)
        ]
    );
    assert_eq!(end_column(text), 6);
    let e = lex("ab é c").find_map(Result::err);
    assert_eq!(e.map(|e| (e.column, e.text)), Some((4, "é".to_string())));
}

/// The first unexpected character is the one reported, and lexing stops there.
#[test]
fn stops_at_the_first_unexpected_character() {
    let all: Vec<_> = lex("A $ B ? C").collect();
    assert_eq!(all.len(), 2);
    let e = all[1].clone().unwrap_err();
    assert_eq!(e.to_string(), "column 3: unexpected character `$`");
}

#[test]
fn number_words_are_one_lexeme() {
    assert_eq!(
        kinds("12abc 0x1F 1_000"),
        [
            (Token::Number, "12abc", 1),
            (Token::Number, "0x1F", 7),
            (Token::Number, "1_000", 12)
        ]
    );
}

fn read(text: &str, max: u64) -> Result<u64, LexError> {
    lexemes(text)[0].unsigned(max)
}

#[test]
fn unsigned_reads_decimal_and_hex_with_separators() {
    assert_eq!(read("0", u64::MAX), Ok(0));
    assert_eq!(read("1_000", u64::MAX), Ok(1000));
    assert_eq!(read("0x_1f", u64::MAX), Ok(31));
    assert_eq!(read("0X10", u64::MAX), Ok(16));
    assert_eq!(read("18446744073709551615", u64::MAX), Ok(u64::MAX));
}

#[test]
fn unsigned_detects_overflow_naming_the_limit() {
    let e = read("18446744073709551616", u64::MAX).unwrap_err();
    assert_eq!(e.kind, LexErrorKind::IntegerTooLarge { max: u64::MAX });
    assert_eq!(
        e.to_string(),
        "column 1: integer `18446744073709551616` is larger than 18446744073709551615"
    );
    let e = read("0x8000_0000_0000_0000", i64::MAX.unsigned_abs()).unwrap_err();
    assert_eq!(
        e.kind,
        LexErrorKind::IntegerTooLarge {
            max: 9223372036854775807
        }
    );
    assert_eq!(e.text, "0x8000_0000_0000_0000");
}

#[test]
fn unsigned_refuses_malformed_words() {
    for text in ["12abc", "0x", "0x_", "0xg", "1e5"] {
        let e = read(text, u64::MAX).unwrap_err();
        assert_eq!(
            (e.kind, e.column, e.text.as_str()),
            (LexErrorKind::MalformedInteger, 1, text)
        );
        assert_eq!(
            e.to_string(),
            format!("column 1: `{text}` is not a decimal or 0x hexadecimal integer")
        );
    }
}

#[test]
fn split_decimal_separates_the_glued_identifier() {
    // The ideographic space is 3 bytes and 1 column.
    let word = lexemes("\u{3000}0x10")[0];
    assert_eq!((word.token, word.span.column), (Token::Number, 2));
    let (number, rest) = word.split_decimal();
    assert_eq!(
        (number.text, number.span.start, number.span.end),
        ("0", 3, 4)
    );
    let rest = rest.unwrap();
    assert_eq!(
        (rest.token, rest.text, rest.span.column),
        (Token::Ident, "x10", 3)
    );
    assert_eq!((rest.span.start, rest.span.end), (4, 7));
    let plain = lexemes("1_2")[0];
    assert_eq!(plain.split_decimal(), (plain, None));
    let ident = lexemes("abc")[0];
    assert_eq!(ident.split_decimal(), (ident, None));
}
