//! Values of literals: integers in every base with `_` separators, floats, strings and
//! characters with their escapes.

use super::ParseError;
use crate::span::Span;

/// Checks that every `_` of `digits` sits between two digits.
fn check_separators(text: &str, digits: &str, span: Span) -> Result<(), ParseError> {
    let bytes = digits.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'_' {
            let before = i.checked_sub(1).and_then(|j| bytes.get(j));
            let after = bytes.get(i + 1);
            let digit = |c: Option<&u8>| c.is_some_and(|c| *c != b'_' && *c != b'.');
            if !digit(before) || !digit(after) {
                return Err(ParseError::new(
                    span,
                    format!("`{text}`: `_` must stand between two digits"),
                ));
            }
        }
    }
    Ok(())
}

/// The value of an integer literal (`42`, `1_000`, `0x1F`, `0o17`, `0b1010`).
pub(super) fn int_value(text: &str, span: Span) -> Result<u128, ParseError> {
    let (digits, radix) = match text.get(..2) {
        Some("0x") => (&text[2..], 16),
        Some("0o") => (&text[2..], 8),
        Some("0b") => (&text[2..], 2),
        _ => (text, 10),
    };
    check_separators(text, digits, span)?;
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    u128::from_str_radix(&clean, radix).map_err(|_| {
        ParseError::new(
            span,
            format!("integer literal `{text}` is larger than 2^128 - 1"),
        )
    })
}

/// A float literal's text without `_`, checked.
pub(super) fn float_text(text: &str, span: Span) -> Result<String, ParseError> {
    let mantissa_end = text.find(['e', 'E']).unwrap_or(text.len());
    for part in text[..mantissa_end].split('.') {
        check_separators(text, part, span)?;
    }
    if let Some(exp) = text.get(mantissa_end + 1..) {
        let exp = exp.trim_start_matches(['+', '-']);
        check_separators(text, exp, span)?;
    }
    Ok(text.chars().filter(|&c| c != '_').collect())
}

/// Decodes the escapes of the body of a string or character literal (quotes removed).
pub(crate) fn unescape(body: &str, span: Span) -> Result<String, ParseError> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let bad = |what: &str| ParseError::new(span, format!("invalid escape `\\{what}`"));
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some('\'') => out.push('\''),
            Some('"') => out.push('"'),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                let v = u8::from_str_radix(&hex, 16)
                    .ok()
                    .filter(|_| hex.len() == 2)
                    .ok_or_else(|| bad(&format!("x{hex}")))?;
                out.push(char::from(v));
            }
            Some('u') => {
                let rest = chars.as_str();
                let close = rest.find('}').filter(|_| rest.starts_with('{'));
                let code = close
                    .and_then(|i| u32::from_str_radix(&rest[1..i], 16).ok())
                    .and_then(char::from_u32);
                match (close, code) {
                    (Some(i), Some(ch)) => {
                        out.push(ch);
                        chars = rest[i + 1..].chars();
                    }
                    _ => return Err(bad("u")),
                }
            }
            Some(other) => return Err(bad(&other.to_string())),
            None => return Err(bad("")),
        }
    }
    Ok(out)
}
