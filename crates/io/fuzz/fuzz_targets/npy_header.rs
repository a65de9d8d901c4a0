//! Fuzz target: the `.npy` header reader never panics, and a header it parses is within the
//! size and nesting limits (run with `-timeout=` to catch a parse that takes long).
//!
//! Input: byte 0 picks the mode. Even: the rest is a whole file (`npy::parse`). Odd: the rest
//! is the header text, put behind a valid version 1.0 preamble with 0-15 data bytes (byte 0's
//! high nibble), so the fuzzer spends its time inside the dictionary.
#![no_main]

use libfuzzer_sys::fuzz_target;
use npusim_io::npy;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode % 2 == 0 {
        if let Ok(a) = npy::parse(rest) {
            let _ = npy::element_format(&a, None);
        }
        return;
    }
    let Ok(len) = u16::try_from(rest.len()) else {
        return;
    };
    let mut file = b"\x93NUMPY\x01\x00".to_vec();
    file.extend_from_slice(&len.to_le_bytes());
    file.extend_from_slice(rest);
    file.resize(file.len() + usize::from(mode >> 4), 0);
    let whole = npy::parse(&file);
    let Ok(end) = npy::header_end(&file, file.len() as u64) else {
        assert!(whole.is_err());
        return;
    };
    let head = npy::parse_head(&file[..end], (file.len() - end) as u64);
    // The two ways in agree.
    assert_eq!(whole.is_ok(), head.is_ok());
    if let Ok(head) = head {
        assert!(npy::check_header_text(rest).is_ok());
        let _ = npy::head_format(&head, None);
    }
});
