//! Any text evaluated as a layout: a layout or an error, never a panic, a stack overflow or
//! unbounded memory.

#![no_main]

use libfuzzer_sys::fuzz_target;
use npusim_csl::SourceFile;
use npusim_csl::comptime::{Arch, ComptimeConfig, evaluate_layout};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let source = SourceFile::new("layout.csl", text);
    for arch in [Arch::Wse2, Arch::Wse3] {
        let config = ComptimeConfig { arch, params: Vec::new() };
        if let Err(e) = evaluate_layout(&source, &config) {
            let _ = e.to_string();
        }
    }
});
