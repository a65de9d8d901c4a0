//! How the tensor access parser reads its tokens (module docs of `access::parse`): decimal or
//! `0x` integers with `_` separators up to `i64::MAX`, whitespace anywhere between tokens,
//! columns counted in characters, and every other character refused where it stands.

use npusim_cerebras::access::{AccessError, parse};

fn syntax(text: &str) -> (usize, String, String) {
    match parse(text) {
        Err(AccessError::Syntax {
            column,
            expected,
            found,
        }) => (column, expected, found),
        other => panic!("{text}: {other:?}"),
    }
}

fn lengths(text: &str) -> Vec<i64> {
    match parse(text) {
        Ok(a) => a.lengths,
        Err(e) => panic!("{text}: {e}"),
    }
}

#[test]
fn integers_are_decimal_or_hex_with_separators() {
    assert_eq!(lengths("|i, j|{0x_F, 1_0} -> A[i, j]"), [15, 10]);
    assert_eq!(lengths("|i|{0X10} -> A[i]"), [16]);
    assert_eq!(lengths("|i|{9223372036854775807} -> A[i]"), [i64::MAX]);
}

#[test]
fn integers_beyond_i64_or_malformed_name_the_word() {
    let e = parse("|i|{9_223_372_036_854_775_808} -> A[i]").unwrap_err();
    assert_eq!(
        e.to_string(),
        "syntax error at column 5: expected an integer, found `9223372036854775808`"
    );
    let found = |t: &str| syntax(t);
    assert_eq!(
        found("|i|{12abc} -> A[i]"),
        (5, "an integer".into(), "`12abc`".into())
    );
    assert_eq!(
        found("|i|{2} -> A[0x]"),
        (13, "an integer".into(), "`0x`".into())
    );
}

#[test]
fn characters_outside_the_grammar_are_refused_where_they_stand() {
    for (text, column, c) in [
        ("|i|{5} -> A[i/2]", 14, "/"),
        ("|i|{5} -> A[i%2]", 14, "%"),
        ("|i|{5} -> A[#i]", 13, "#"),
        ("|i|{5}: A[i]", 7, ":"),
        ("|i|{2}\u{3000}-> é[i]", 11, "é"),
    ] {
        assert_eq!(
            syntax(text),
            (column, "a token".into(), format!("`{c}`")),
            "{text}"
        );
    }
}

/// The arrow is one token: a lone `-` is a minus where `->` belongs, and a character outside
/// the grammar is refused before the grammar is checked.
#[test]
fn a_lone_minus_is_not_an_arrow() {
    assert_eq!(syntax("|i|{2} - A[i]"), (8, "`->`".into(), "`-`".into()));
    assert_eq!(
        syntax("|i|{2} - > A[i]"),
        (10, "a token".into(), "`>`".into())
    );
}

#[test]
fn end_of_input_is_the_column_after_the_last_character() {
    assert_eq!(syntax("|é|"), (2, "a token".into(), "`é`".into()));
    assert_eq!(
        syntax("|\u{3000}2|"),
        (3, "an induction variable".into(), "`2`".into())
    );
    let (column, _, found) = syntax("|i|{2} -> A[i");
    assert_eq!((column, found.as_str()), (14, "end of input"));
}
