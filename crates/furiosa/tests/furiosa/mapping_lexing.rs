//! How the m-notation parser reads its tokens (spec §1.4 grammar): plain decimal numbers with
//! `_` separators, the fill-kind markers `#{*}`, `#{0}`, `#{!}` (spaces allowed inside), columns
//! counted in characters, and every character outside the grammar refused where it stands.

use npusim_furiosa::mapping::{Axes, Mapping};

fn axes() -> Axes {
    Axes::parse("A=8,B=512").expect("axes")
}

fn shown(text: &str) -> String {
    match Mapping::parse(text, &axes()) {
        Ok(m) => m.to_string(),
        Err(e) => panic!("{text}: {e}"),
    }
}

fn refused(text: &str) -> (usize, String) {
    match Mapping::parse(text, &axes()) {
        Ok(m) => panic!("{text} parsed as {m}"),
        Err(e) => (e.column, e.kind.to_string()),
    }
}

#[test]
fn fill_markers_allow_spaces_and_other_braces_escape_a_number() {
    assert_eq!(shown("A #{ 0 } 16"), "A #{0} 16");
    assert_eq!(shown("A #{!}16"), "A #{!} 16");
    assert_eq!(shown("A # { * } 16"), shown("A # 16"));
    assert_eq!(shown("A # {16}"), shown("A # 16"));
    assert_eq!(shown("B #{0512}"), shown("B # 512"));
    assert_eq!(shown("B / 1_6"), shown("B / 16"));
}

#[test]
fn numbers_are_plain_decimals() {
    // `8abc` is the number 8, then the identifier `abc`.
    assert_eq!(
        refused("A / 8abc"),
        (
            6,
            "syntax error: unexpected `abc` after a complete mapping".into()
        )
    );
    assert_eq!(
        refused("A / 8x4"),
        (
            6,
            "syntax error: unexpected `x4` after a complete mapping".into()
        )
    );
    assert_eq!(
        refused("A / 99_999_999_999_999_999_999"),
        (
            5,
            "syntax error: number `99999999999999999999` is too large".into()
        )
    );
}

#[test]
fn characters_outside_the_grammar_are_refused_where_they_stand() {
    for (text, column, c) in [
        ("A * 2", 3, '*'),
        ("A -> B", 3, '-'),
        ("A | B", 3, '|'),
        ("A: B", 2, ':'),
        ("A, B !", 6, '!'),
        ("A #{* 2}", 5, '*'),
        ("A\u{3000}$", 3, '$'),
        ("é", 1, 'é'),
    ] {
        assert_eq!(
            refused(text),
            (column, format!("syntax error: unexpected character `{c}`")),
            "{text}"
        );
    }
}

/// A refused character is reported even when an earlier part of the text has another problem.
#[test]
fn token_errors_come_before_grammar_errors() {
    assert_eq!(
        refused("Q * 2"),
        (3, "syntax error: unexpected character `*`".into())
    );
}
