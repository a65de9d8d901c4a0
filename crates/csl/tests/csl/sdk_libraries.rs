//! The SDK libraries PE code calls at run time beyond memcpy: `<time>` (the timestamp
//! counter is the simulator's cycle counter, three `u16` words, low first), `<math>`
//! (square roots rounded once to nearest even), and a library's compile-time field
//! (`timestamp.tsc_size_words`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use npusim_csl::compiled::{CompileOptions, CompiledProgram};
use npusim_csl::comptime::Arch;
use npusim_csl::sdk::{MemcpyDataType, MemcpyOrder, MemcpyRect, SdkRuntime};

const ROW: MemcpyOrder = MemcpyOrder::RowMajor;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/csl/programs/sdk_time_math")
}

fn runtime(arch: Arch, pe_program: Option<&str>) -> Result<SdkRuntime, String> {
    let read = |f: &str| std::fs::read_to_string(dir().join(f)).unwrap();
    let sources = BTreeMap::from([
        ("layout.csl".to_string(), read("layout.csl")),
        (
            "pe_program.csl".to_string(),
            pe_program.map_or_else(|| read("pe_program.csl"), str::to_string),
        ),
    ]);
    let options = CompileOptions {
        arch,
        memcpy: true,
        ..CompileOptions::default()
    };
    CompiledProgram::compile("layout.csl", sources, options)
        .map(SdkRuntime::from_program)
        .map_err(|e| e.to_string())
}

fn rect(elements: u32) -> MemcpyRect {
    MemcpyRect {
        x: 0,
        y: 0,
        w: 1,
        h: 1,
        elements,
    }
}

/// The 48-bit counter of three u16 words (zero-extended in host words), low first.
fn counter(words: &[u32]) -> u64 {
    words
        .iter()
        .enumerate()
        .map(|(k, w)| u64::from(*w & 0xffff) << (16 * k))
        .sum()
}

#[test]
fn time_stamps_are_simulator_cycles_and_math_square_roots_round_once() {
    for arch in [Arch::Wse2, Arch::Wse3] {
        let mut rt = runtime(arch, None).unwrap();
        rt.load().unwrap();
        rt.run().unwrap();
        let before = rt.report().unwrap().cycles;
        let x = [2.0f32, 3.0, 0.25, 1.0e-3];
        let xb: Vec<u32> = x.iter().map(|v| v.to_bits()).collect();
        rt.memcpy_h2d("x", &xb, rect(4), false, ROW, MemcpyDataType::Bits32, false)
            .unwrap();
        // f16 2.0 and 0.5
        let h = [half::f16::from_f32(2.0), half::f16::from_f32(0.5)];
        let hb: Vec<u32> = h.iter().map(|v| u32::from(v.to_bits())).collect();
        rt.memcpy_h2d("h", &hb, rect(2), false, ROW, MemcpyDataType::Bits16, false)
            .unwrap();
        rt.launch("compute", false).unwrap();
        let mut r = vec![0u32; 4];
        rt.memcpy_d2h(
            &mut r,
            "r",
            rect(4),
            false,
            ROW,
            MemcpyDataType::Bits32,
            false,
        )
        .unwrap();
        let mut hr = vec![0u32; 2];
        rt.memcpy_d2h(
            &mut hr,
            "h",
            rect(2),
            false,
            ROW,
            MemcpyDataType::Bits16,
            false,
        )
        .unwrap();
        let (mut t0, mut t1) = (vec![0u32; 3], vec![0u32; 3]);
        rt.memcpy_d2h(
            &mut t0,
            "t0",
            rect(3),
            false,
            ROW,
            MemcpyDataType::Bits16,
            false,
        )
        .unwrap();
        rt.memcpy_d2h(
            &mut t1,
            "t1",
            rect(3),
            false,
            ROW,
            MemcpyDataType::Bits16,
            false,
        )
        .unwrap();
        let end = rt.stop().unwrap().unwrap().cycles;
        // IEEE square root, correctly rounded to f32 (what one rounding gives)
        let want: Vec<u32> = x.iter().map(|v| v.sqrt().to_bits()).collect();
        assert_eq!(r, want, "{arch:?}");
        // sqrt(2) in f16: 1.414 (0x3DA8); sqrt(0.5): 0.7070 (0x39A8)
        let want_h: Vec<u32> = [2.0f64, 0.5]
            .iter()
            .map(|v| u32::from(half::f16::from_f64(v.sqrt()).to_bits()))
            .collect();
        assert_eq!(hr, want_h, "{arch:?}");
        let (c0, c1) = (counter(&t0), counter(&t1));
        // taken during `compute`, in order, the loop and two statements between them
        assert!(
            before < c0 && c0 < c1 && c1 <= end,
            "{before} {c0} {c1} {end}"
        );
        assert!(c1 - c0 >= 6, "{c0} {c1}");
    }
}

#[test]
fn a_timestamp_buffer_too_short_or_of_another_type_is_an_error_naming_it() {
    let text = std::fs::read_to_string(dir().join("pe_program.csl")).unwrap();
    let short = text.replace(
        "var t1 = @zeros([timestamp.tsc_size_words]u16);",
        "var t1 = @zeros([2]u16);",
    );
    let mut rt = runtime(Arch::Wse3, Some(&short)).unwrap();
    rt.load().unwrap();
    rt.run().unwrap();
    let e = rt.launch("compute", false).unwrap_err().to_string();
    assert!(
        e.contains("pe_program.csl:")
            && e.contains("3 u16 words")
            && e.contains("`t1`, which has 2"),
        "{e}"
    );
}

#[test]
fn an_unknown_compile_time_field_of_a_library_is_an_error_naming_it() {
    let text = std::fs::read_to_string(dir().join("pe_program.csl")).unwrap();
    let bad = text.replace(
        "timestamp.tsc_size_words]u16);\nvar t1",
        "timestamp.tsc_words]u16);\nvar t1",
    );
    let e = runtime(Arch::Wse2, Some(&bad)).unwrap_err();
    assert!(
        e.contains("library `<time>` has no compile-time field `tsc_words`"),
        "{e}"
    );
}
