//! The one size and nesting limit of a `.npy` header, checked before anything parses it.
//!
//! The header is a Python literal parsed by `py_literal` (through `npyz`), whose parser
//! backtracks: its time grows exponentially with the nesting of brackets (a 260-byte header of
//! nested lists and dicts takes minutes). A plain array's header, `{'descr': '<f4',
//! 'fortran_order': False, 'shape': (2, 3), }`, nests two levels and is under 1 KiB; a
//! structured dtype (which npusim refuses anyway) nests a few more. So `cast`, `cast --dry-run`
//! and `info` all refuse a header longer than [`MAX_HEADER_BYTES`] or nested deeper than
//! [`MAX_HEADER_DEPTH`] before parsing it, and say which limit it broke.

use crate::error::IoError;

/// Largest `.npy` header (the dictionary text after the length field) npusim reads: 64 KiB,
/// the most a version 1.0 file can hold, and far above a plain array's header (under 1 KiB).
pub const MAX_HEADER_BYTES: usize = 65_536;

/// Deepest nesting of brackets (`{`, `[`, `(` outside string literals) in a `.npy` header
/// npusim parses: a plain header nests 2, a structured dtype with sub-arrays 4 or 5.
pub const MAX_HEADER_DEPTH: usize = 8;

/// Checks a header length field against [`MAX_HEADER_BYTES`].
pub fn check_header_len(header_len: u64) -> Result<(), IoError> {
    if header_len > MAX_HEADER_BYTES as u64 {
        return Err(IoError::NpyHeaderTooLarge {
            header_len,
            max: MAX_HEADER_BYTES,
        });
    }
    Ok(())
}

/// Checks the header text (the bytes after the length field) against both limits, in one
/// pass that parses nothing.
pub fn check_header_text(text: &[u8]) -> Result<(), IoError> {
    check_header_len(text.len() as u64)?;
    let depth = nesting_depth(text);
    if depth > MAX_HEADER_DEPTH {
        return Err(IoError::NpyHeaderTooDeep {
            depth,
            max: MAX_HEADER_DEPTH,
        });
    }
    Ok(())
}

/// The deepest nesting of `{ [ (` in `text`, outside `'...'` and `"..."` string literals
/// (a backslash escapes the next byte inside one). Unbalanced closers count as nothing.
fn nesting_depth(text: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    for &b in text {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == q {
                    quote = None;
                }
            }
            None => match b {
                b'\'' | b'"' => quote = Some(b),
                b'{' | b'[' | b'(' => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                b'}' | b']' | b')' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_structured_headers_fit() {
        let plain = b"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
        assert_eq!(nesting_depth(plain), 2);
        assert!(check_header_text(plain).is_ok());
        let structured = b"{'descr': [('a', '<f4', (2,)), ('b', [('c', '<i2')])], 'shape': (1,), }";
        assert_eq!(nesting_depth(structured), 5);
        assert!(check_header_text(structured).is_ok());
    }

    #[test]
    fn brackets_inside_strings_do_not_nest() {
        assert_eq!(
            nesting_depth(br"{'a': '[[[[', 'b': '\'(((', 'c': ']]]'}"),
            1
        );
        assert_eq!(nesting_depth(br#"{"a": "{{{{{{{{{{"}"#), 1);
    }

    #[test]
    fn deep_or_long_headers_are_refused_with_the_numbers() {
        let deep = format!("{{'x': {}{}}}", "[{'a': ".repeat(12), "1}]".repeat(12));
        assert_eq!(
            check_header_text(deep.as_bytes()).unwrap_err().to_string(),
            "the .npy header nests brackets 25 levels deep, more than the 8 npusim parses (a plain array's header nests 2)"
        );
        assert!(
            check_header_text(format!("{{'x': {}{}}}", "(".repeat(7), ")".repeat(7)).as_bytes())
                .is_ok()
        );
        assert!(
            check_header_text(format!("{{'x': {}{}}}", "(".repeat(8), ")".repeat(8)).as_bytes())
                .is_err()
        );
        assert_eq!(
            check_header_len(400_000_000).unwrap_err().to_string(),
            "the .npy header is 400000000 bytes, more than the 65536 npusim reads (a plain array's header is under 1 KiB)"
        );
        assert!(check_header_len(65_536).is_ok());
    }
}
