//! Any text through the CSL lexer and parser: an error or a tree, never a panic or a stack
//! overflow; a tree prints to text that parses again and prints the same.

#![no_main]

use libfuzzer_sys::fuzz_target;
use npusim_csl::SourceFile;
use npusim_csl::parse::{parse, parse_text};
use npusim_csl::print::print_module;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let source = SourceFile::new("fuzz.csl", text);
    match parse(&source) {
        Ok(module) => {
            let printed = print_module(&module);
            let again = parse_text(&printed)
                .unwrap_or_else(|e| panic!("printed text does not parse: {e}\n{printed}"));
            assert_eq!(print_module(&again), printed);
        }
        Err(diagnostic) => {
            let _ = diagnostic.to_string();
        }
    }
});
