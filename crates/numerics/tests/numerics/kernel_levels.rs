//! Says which instruction-set levels the kernel tests of this run exercise and which they skip
//! (and why: the CPU lacks the level's features, or `NPUSIM_KERNEL` caps it away), so that a
//! level no test ran is named rather than counted as passed. The report goes to standard
//! output, which the test harness shows with `--nocapture` (`.ci/run` runs this test so:
//! `cargo test -p npusim-numerics --test numerics -- kernel_levels:: --nocapture`). Fails when
//! `NPUSIM_KERNEL` names no switch, or when the library's level queries disagree with the
//! switch's cap.

use npusim_numerics::bulk::{KERNEL_SWITCH_VAR, KernelSwitch, SimdLevel};

#[test]
fn report_the_levels_exercised_and_skipped() {
    let value = std::env::var(KERNEL_SWITCH_VAR).unwrap_or_default();
    let switch = match KernelSwitch::current() {
        Ok(s) => s,
        Err(e) => panic!("kernel levels: {e}"),
    };
    let shown = if value.is_empty() { "unset" } else { &value };
    // one print, so that the report's lines stay together beside other tests' output
    let mut report = format!(
        "kernel levels: {KERNEL_SWITCH_VAR}={shown} (cap: {})\n",
        switch.cap().name()
    );
    let mut bad = Vec::new();
    for level in [SimdLevel::Portable, SimdLevel::Avx2, SimdLevel::Avx512] {
        match level.absence() {
            None => report += &format!("  {:<9} exercised\n", level.name()),
            Some(why) => report += &format!("  {:<9} SKIPPED: {why}\n", level.name()),
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
    print!("{report}");
    let available = SimdLevel::available();
    if available.last() != Some(&SimdLevel::best()) {
        bad.push(format!(
            "best level {:?} is not the last of {available:?}",
            SimdLevel::best()
        ));
    }
    assert!(bad.is_empty(), "kernel levels: inconsistent: {bad:#?}");
}
