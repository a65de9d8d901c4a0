//! The one switch over the kernels' instruction sets, `NPUSIM_KERNEL`, seen from outside: each
//! test runs this test program again as a child process with the variable set (the switch is
//! read once per process), and the child checks what the library does under it. Under a cap
//! every level query, the kernel names and the casts stay at or below the cap, as on a CPU
//! without the higher levels; an unknown value fails every cast with an error that names it.

use std::process::Command;

use npusim_numerics::bulk::{KernelSwitch, LevelAbsence, SimdLevel};
use npusim_numerics::{
    BulkOptions, CastPolicy, Format, KernelChoice, NumericsError, Storage, cast_elements,
    kernel_name, kernel_name_at,
};

/// Runs the test `name` of this module again in a child process (this test program, filtered
/// to the test's full name, its module path included) with `NPUSIM_KERNEL=value` and
/// `NPUSIM_SWITCH_CHILD` set, and fails unless it passes there.
fn run_child(name: &str, value: &str) {
    let exe = std::env::current_exe().expect("the test program's path");
    // the harness names a test by its module path without the program's own name
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let full = format!("{module}::{name}");
    let out = Command::new(exe)
        .args([full.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env("NPUSIM_KERNEL", value)
        .env("NPUSIM_SWITCH_CHILD", "1")
        .output()
        .expect("the test program runs again");
    assert!(
        out.status.success(),
        "{name} under NPUSIM_KERNEL={value}:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("1 passed"),
        "{name} did not run in the child:\n{stdout}"
    );
}

/// Whether this process is a child started by [`run_child`].
fn is_child() -> bool {
    std::env::var_os("NPUSIM_SWITCH_CHILD").is_some()
}

/// f32 → bf16 of a few values under the default options.
fn cast_some() -> Result<(), NumericsError> {
    let src: Vec<u8> = [1.0f32, -2.5, 3.0e38, f32::NAN]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let mut dst = [0u8; 8];
    let (s, d) = (Storage::native(Format::F32), Storage::native(Format::BF16));
    cast_elements(
        &src,
        s,
        &mut dst,
        d,
        4,
        &CastPolicy::default(),
        &BulkOptions::default(),
    )
}

#[test]
fn capped_at_avx2_the_library_behaves_as_on_a_cpu_without_avx512() {
    if !is_child() {
        run_child(
            "capped_at_avx2_the_library_behaves_as_on_a_cpu_without_avx512",
            "avx2",
        );
        return;
    }
    assert_eq!(
        KernelSwitch::current(),
        Ok(KernelSwitch::Cap(SimdLevel::Avx2))
    );
    assert!(!SimdLevel::Avx512.is_available());
    assert!(SimdLevel::best() <= SimdLevel::Avx2);
    assert!(!SimdLevel::available().contains(&SimdLevel::Avx512));
    assert_eq!(SimdLevel::Avx2.is_available(), SimdLevel::Avx2.on_cpu());
    if SimdLevel::Avx512.on_cpu() {
        assert_eq!(
            SimdLevel::Avx512.absence(),
            Some(LevelAbsence::Capped {
                cap: SimdLevel::Avx2
            })
        );
    }
    // a level above the cap runs the portable code, as a level the CPU lacks does
    assert_eq!(
        KernelChoice::Level(SimdLevel::Avx512).resolve(),
        Some(SimdLevel::Portable)
    );
    assert_eq!(KernelChoice::Fastest.resolve(), Some(SimdLevel::best()));
    let (s, d) = (Storage::native(Format::F32), Storage::native(Format::BF16));
    let p = CastPolicy::default();
    assert!(!kernel_name(s, d, &p).ends_with("avx512"));
    assert_eq!(kernel_name_at(s, d, &p, SimdLevel::Avx512), "f32-float");
    assert_eq!(cast_some(), Ok(()));
}

#[test]
fn capped_at_portable_no_simd_level_is_available() {
    if !is_child() {
        run_child("capped_at_portable_no_simd_level_is_available", "portable");
        return;
    }
    assert_eq!(SimdLevel::available(), [SimdLevel::Portable]);
    assert_eq!(SimdLevel::best(), SimdLevel::Portable);
    let (s, d) = (Storage::native(Format::F32), Storage::native(Format::BF16));
    assert_eq!(kernel_name(s, d, &CastPolicy::default()), "f32-float");
    assert_eq!(cast_some(), Ok(()));
}

#[test]
fn the_reference_switch_runs_default_casts_by_the_reference_routine() {
    if !is_child() {
        run_child(
            "the_reference_switch_runs_default_casts_by_the_reference_routine",
            "Reference",
        );
        return;
    }
    assert_eq!(KernelChoice::Fastest.resolve(), None);
    assert_eq!(SimdLevel::best(), SimdLevel::Portable);
    let (s, d) = (Storage::native(Format::F32), Storage::native(Format::BF16));
    assert_eq!(kernel_name(s, d, &CastPolicy::default()), "reference");
    assert_eq!(cast_some(), Ok(()));
}

#[test]
fn an_unknown_switch_value_fails_every_cast_with_an_error_naming_it() {
    if !is_child() {
        run_child(
            "an_unknown_switch_value_fails_every_cast_with_an_error_naming_it",
            "avx-512",
        );
        return;
    }
    let e = cast_some().unwrap_err();
    assert!(
        matches!(&e, NumericsError::UnknownKernelSwitch { value, .. } if value == "avx-512"),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("NPUSIM_KERNEL") && msg.contains("avx-512"),
        "{msg}"
    );
    // until a cast reports it, nothing above the portable level runs
    assert_eq!(SimdLevel::best(), SimdLevel::Portable);
}
