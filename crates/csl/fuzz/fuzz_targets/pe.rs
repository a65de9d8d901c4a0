//! Any text compiled as a PE program (each own module it imports being the same text) and,
//! when it compiles, loaded on one PE of the
//! simulator and run for a bounded number of cycles: a result or an error, never a panic,
//! a stack overflow or unbounded memory.

#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use npusim_cerebras::sched::Sim;
use npusim_csl::SourceFile;
use npusim_csl::comptime::{Arch, ComptimeConfig};
use npusim_csl::pe::{PeProgram, load, run};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let source = SourceFile::new("pe.csl", text);
    for (arch, sim_arch) in [
        (Arch::Wse2, npusim_cerebras::Arch::Wse2),
        (Arch::Wse3, npusim_cerebras::Arch::Wse3),
    ] {
        let config = ComptimeConfig { arch, params: Vec::new() };
        // every own module a program imports is the program's own text again (so imports
        // nest until a cycle is refused)
        let lookup = |_: &str| Some(text.to_string());
        let program = match PeProgram::compile_with_modules(&source, &config, &lookup) {
            Ok(p) => Arc::new(p),
            Err(e) => {
                let _ = e.to_string();
                continue;
            }
        };
        let Ok(mut sim) = Sim::new(sim_arch, 1, 1) else {
            return;
        };
        match load(&program, &mut sim, 0, 0) {
            Ok(pe) => {
                if let Err(e) = run(&mut sim, 2_000, &[pe]) {
                    let _ = e.to_string();
                }
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
});
