//! Says which instruction-set levels the kernel tests of this run exercise and which they skip
//! (and why: the CPU lacks the level's features, or `NPUSIM_KERNEL` caps it away), so that a
//! level no test ran is named in `cargo test`'s output rather than counted as passed. A plain
//! program (no test harness), whose output `cargo test` always shows. Fails when
//! `NPUSIM_KERNEL` names no switch, or when the library's level queries disagree with the
//! switch's cap.

use std::process::ExitCode;

use npusim_numerics::bulk::{KERNEL_SWITCH_VAR, KernelSwitch, SimdLevel};

fn main() -> ExitCode {
    let value = std::env::var(KERNEL_SWITCH_VAR).unwrap_or_default();
    let switch = match KernelSwitch::current() {
        Ok(s) => s,
        Err(e) => {
            println!("kernel levels: {e}");
            return ExitCode::FAILURE;
        }
    };
    let shown = if value.is_empty() { "unset" } else { &value };
    println!(
        "kernel levels: {KERNEL_SWITCH_VAR}={shown} (cap: {})",
        switch.cap().name()
    );
    let mut bad = Vec::new();
    for level in [SimdLevel::Portable, SimdLevel::Avx2, SimdLevel::Avx512] {
        match level.absence() {
            None => println!("  {:<9} exercised", level.name()),
            Some(why) => println!("  {:<9} SKIPPED: {why}", level.name()),
        }
        let allowed = level <= switch.cap() && level.on_cpu();
        if level.is_available() != allowed {
            bad.push(format!(
                "{level:?}: available {} but the CPU has it: {}, the cap allows it: {}",
                level.is_available(),
                level.on_cpu(),
                level <= switch.cap()
            ));
        }
    }
    let available = SimdLevel::available();
    if available.last() != Some(&SimdLevel::best()) {
        bad.push(format!(
            "best level {:?} is not the last of {available:?}",
            SimdLevel::best()
        ));
    }
    for b in &bad {
        println!("kernel levels: inconsistent: {b}");
    }
    if bad.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
