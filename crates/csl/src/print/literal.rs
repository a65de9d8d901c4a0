//! String and character literals with their escapes.

/// `s` as a double-quoted CSL string literal.
pub(super) fn quote_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        escape_into(&mut out, c, '"');
    }
    out.push('"');
    out
}

/// `c` as a single-quoted CSL character literal.
pub(super) fn quote_char(c: u32) -> String {
    let mut out = String::from("'");
    match char::from_u32(c) {
        Some(c) => escape_into(&mut out, c, '\''),
        None => out.push_str(&format!("\\u{{{c:x}}}")),
    }
    out.push('\'');
    out
}

fn escape_into(out: &mut String, c: char, quote: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\\' => out.push_str("\\\\"),
        c if c == quote => {
            out.push('\\');
            out.push(c);
        }
        c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
        c => out.push(c),
    }
}
