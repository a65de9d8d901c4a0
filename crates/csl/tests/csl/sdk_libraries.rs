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

/// The generator the SDK documents for `@random16` (an LFSR with polynomial
/// x^23 + x^18 + 1, advanced 128 iterations after each use, starting at `0xdeadbeef`) with
/// the choices `docs/csl.md` writes down (23 state bits, a Fibonacci step taking bit 22 XOR
/// bit 17 in at bit 0, the low 16 bits as the value), and `random_f32` as two values `a`,
/// `b`: the top 24 bits `u` of `a << 16 | b` give `lo + (hi - lo) * u / 2^24` rounded once.
fn documented_random(n: usize, lo: f64, hi: f64) -> Vec<f32> {
    let mut s: u32 = 0xdead_beef & 0x7f_ffff;
    let mut next16 = || {
        let v = s & 0xffff;
        for _ in 0..128 {
            let bit = ((s >> 22) ^ (s >> 17)) & 1;
            s = ((s << 1) | bit) & 0x7f_ffff;
        }
        v
    };
    (0..n)
        .map(|_| {
            let r = (next16() << 16) | next16();
            let u = f64::from(r >> 8) / f64::from(1u32 << 24);
            (lo + (hi - lo) * u) as f32
        })
        .collect()
}

#[test]
fn random_f32_draws_the_documented_sequence_within_its_bounds() {
    for arch in [Arch::Wse2, Arch::Wse3] {
        let mut rt = runtime(arch, None).unwrap();
        rt.load().unwrap();
        rt.run().unwrap();
        let ones = vec![1.0f32.to_bits(); 4];
        rt.memcpy_h2d(
            "x",
            &ones,
            rect(4),
            false,
            ROW,
            MemcpyDataType::Bits32,
            false,
        )
        .unwrap();
        rt.launch("compute", false).unwrap();
        let mut got = vec![0u32; 4];
        rt.memcpy_d2h(
            &mut got,
            "rnd",
            rect(4),
            false,
            ROW,
            MemcpyDataType::Bits32,
            false,
        )
        .unwrap();
        let got: Vec<f32> = got.into_iter().map(f32::from_bits).collect();
        assert_eq!(got, documented_random(4, -1.0, 1.0), "{arch:?}");
        assert!(got.iter().all(|v| (-1.0..=1.0).contains(v)), "{got:?}");
        assert!(got.windows(2).all(|w| w[0] != w[1]), "{got:?}");
    }
}

#[test]
fn a_library_field_is_a_param_its_import_was_given() {
    let text = std::fs::read_to_string(dir().join("pe_program.csl")).unwrap();
    // the layout gives width 1: asserting 2 fails at compile time, at the assert
    let two = text.replace("sys_mod.width == 1", "sys_mod.width == 2");
    let e = runtime(Arch::Wse3, Some(&two)).unwrap_err();
    assert!(
        e.contains("pe_program.csl:") && e.contains("compile-time assertion failed"),
        "{e}"
    );
    let missing = text.replace("sys_mod.width == 1", "sys_mod.depth == 1");
    let e = runtime(Arch::Wse3, Some(&missing)).unwrap_err();
    assert!(
        e.contains("library `<memcpy/memcpy>` has no compile-time field `depth`"),
        "{e}"
    );
}

#[test]
fn debug_entries_are_read_back_in_order_and_join_the_chrome_trace() {
    let mut rt = runtime(Arch::Wse3, None).unwrap();
    rt.record_trace(true);
    rt.load().unwrap();
    rt.run().unwrap();
    let x = [2.0f32, 3.0, 0.25, 1.0e-3].map(f32::to_bits);
    rt.memcpy_h2d("x", &x, rect(4), false, ROW, MemcpyDataType::Bits32, false)
        .unwrap();
    rt.launch("compute", false).unwrap();
    let entries = rt.debug_trace();
    let texts: Vec<&str> = entries.iter().map(|e| e.text.as_str()).collect();
    let sqrt2 = format!("f32 {:?}", 2.0f32.sqrt());
    assert_eq!(texts, ["timestamp", sqrt2.as_str(), "i16 -3", "bool true"]);
    assert!(entries.iter().all(|e| (e.x, e.y) == (0, 0)));
    assert!(
        entries.windows(2).all(|w| w[0].cycle < w[1].cycle),
        "{entries:?}"
    );
    let trace = rt.chrome_trace();
    assert!(
        trace.contains(&format!(
            "{{\"name\":\"{sqrt2}\",\"cat\":\"debug\",\"ph\":\"X\",\"ts\":{},",
            entries[1].cycle
        )),
        "{trace}"
    );
    assert!(trace.ends_with("]}"));
}

#[test]
fn a_debug_value_of_the_wrong_type_or_one_entry_too_many_is_an_error() {
    let text = std::fs::read_to_string(dir().join("pe_program.csl")).unwrap();
    let wrong = text.replace("debug.trace_f32(r[0]);", "debug.trace_f32(@as(i16, 1));");
    let mut rt = runtime(Arch::Wse2, Some(&wrong)).unwrap();
    rt.load().unwrap();
    rt.run().unwrap();
    let e = rt.launch("compute", false).unwrap_err().to_string();
    assert!(
        e.contains("`trace_f32` takes a f32 value, found i16"),
        "{e}"
    );
    let many = text.replace(
        "debug.trace_timestamp();",
        "for (@range(i16, 14)) |i| { debug.trace_timestamp(); }",
    );
    let mut rt = runtime(Arch::Wse2, Some(&many)).unwrap();
    rt.load().unwrap();
    rt.run().unwrap();
    let e = rt.launch("compute", false).unwrap_err().to_string();
    assert!(
        // the import's `.buffer_size = 16` bounds its entries
        e.contains("the <debug> instance `t` was imported with buffer_size 16; `trace_bool` would be entry 17"),
        "{e}"
    );
}

/// A seed whose low 23 bits are zero would leave the documented LFSR at zero for good: an
/// error naming the seed, not a generator stuck at 0.
#[test]
fn a_seed_that_leaves_the_lfsr_zero_is_an_error() {
    let text = std::fs::read_to_string(dir().join("pe_program.csl")).unwrap();
    let zero = text.replace(
        "rnd[i] = random.random_f32(-1.0, 1.0);",
        "random.set_global_prng_seed(0x800000);\n    rnd[i] = random.random_f32(-1.0, 1.0);",
    );
    let mut rt = runtime(Arch::Wse3, Some(&zero)).unwrap();
    rt.load().unwrap();
    rt.run().unwrap();
    let e = rt.launch("compute", false).unwrap_err().to_string();
    assert!(
        e.contains("`set_global_prng_seed(0x800000)` leaves the 23-bit LFSR state zero"),
        "{e}"
    );
    let arg = text.replace(
        "rnd[i] = random.random_f32(-1.0, 1.0);",
        "rnd[i] = @as(f32, @random16(1));",
    );
    let e = runtime(Arch::Wse3, Some(&arg)).unwrap_err();
    assert!(e.contains("@random16 takes no arguments, found 1"), "{e}");
}

/// A launched function's parameters take the host's arguments: a typed argument of another
/// type is an error at the parameter, naming both types; a plain number is converted.
#[test]
fn launch_arguments_are_checked_against_the_parameters() {
    use npusim_csl::sdk::LaunchArg;
    let text = std::fs::read_to_string(dir().join("pe_program.csl")).unwrap();
    let with_args = text.replace(
        "fn compute() void {",
        "fn compute(k: i16, s: f32) void {\n  x[0] = s * @as(f32, k);",
    );
    let fresh = || {
        let mut rt = runtime(Arch::Wse2, Some(&with_args)).unwrap();
        rt.load().unwrap();
        rt.run().unwrap();
        rt
    };
    let e = fresh()
        .launch_with("compute", &[LaunchArg::U16(3), LaunchArg::F32(0.5)], false)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("launch argument 1 of `compute` is u16 3, its parameter `k` is i16"),
        "{e}"
    );
    let e = fresh()
        .launch_with(
            "compute",
            &[LaunchArg::Int(70000), LaunchArg::Float(0.5)],
            false,
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("launch argument 1 of `compute` (parameter `k`)"),
        "{e}"
    );
    let mut rt = fresh();
    let e = rt.launch("compute", false).unwrap_err().to_string();
    assert_eq!(
        e,
        "`compute` takes 2 arguments, launch() gave 0 (at most 16)"
    );
    rt.launch_with("compute", &[LaunchArg::Int(-3), LaunchArg::F32(0.5)], false)
        .unwrap();
    let mut x = vec![0u32; 4];
    rt.memcpy_d2h(
        &mut x,
        "x",
        rect(4),
        false,
        ROW,
        MemcpyDataType::Bits32,
        false,
    )
    .unwrap();
    assert_eq!(f32::from_bits(x[0]), -1.5);
}
