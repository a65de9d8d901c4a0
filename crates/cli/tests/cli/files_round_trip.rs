//! End-to-end tests of the `npusim` binary: bad inputs fail cleanly and leave no output;
//! .npy (including ml_dtypes' files), .safetensors and raw files round-trip bit-exactly.

use std::collections::HashMap;
use std::path::Path;

use crate::support::{fixture, npusim, npy_parts};
use predicates::prelude::*;
use safetensors::{Dtype, SafeTensors, tensor::TensorView};

fn f32s(data: &[u8]) -> Vec<f32> {
    data.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Runs a cast that must fail with `message` and leave the output directory empty.
fn fails_cleanly(args: &[&str], input: &Path, message: &str) {
    let dir = tempfile::tempdir().unwrap();
    let ext = input.extension().unwrap().to_string_lossy().into_owned();
    let out = dir.path().join(format!("out.{ext}"));
    npusim()
        .arg("cast")
        .arg(input)
        .arg("-o")
        .arg(&out)
        .args(args)
        .assert()
        .failure()
        .stderr(predicate::str::contains(message))
        .stderr(predicate::str::contains("panicked").not());
    assert!(
        files_in(dir.path()).is_empty(),
        "{:?}",
        files_in(dir.path())
    );
}

#[test]
fn unknown_format_name_lists_the_valid_ones() {
    fails_cleanly(
        &["--to", "f7e0"],
        &fixture("f32_values.npy"),
        "unknown format `f7e0`",
    );
    fails_cleanly(&["--to", "f7e0"], &fixture("f32_values.npy"), "f8e4m3fn");
    fails_cleanly(
        &["--to", "bf16", "--round", "sideways"],
        &fixture("f32_values.npy"),
        "unknown rounding mode `sideways`",
    );
}

#[test]
fn npy_header_claiming_more_data_than_the_file_has_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(fixture("f32_values.npy")).unwrap();
    let short = dir.path().join("short.npy");
    std::fs::write(&short, &bytes[..bytes.len() - 10]).unwrap();
    fails_cleanly(&["--to", "bf16"], &short, "truncated .npy data");
    fails_cleanly(&["--to", "bf16"], &short, "only 22 bytes of data");
    // A header cut short, and a shape whose size overflows.
    let cut = dir.path().join("cut.npy");
    std::fs::write(&cut, &bytes[..40]).unwrap();
    fails_cleanly(&["--to", "bf16"], &cut, "truncated .npy header");
    let huge = dir.path().join("huge.npy");
    let text = String::from_utf8_lossy(&bytes).replace("(2, 4)", "(9999999999999, 9999999)");
    std::fs::write(&huge, text.as_bytes()).unwrap();
    fails_cleanly(&["--to", "bf16"], &huge, "npy");
}

#[test]
fn truncated_safetensors_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.safetensors");
    write_model(&good);
    let bytes = std::fs::read(&good).unwrap();
    let cut = dir.path().join("cut.safetensors");
    std::fs::write(&cut, &bytes[..bytes.len() - 5]).unwrap();
    fails_cleanly(&["--to", "f8e4m3fn"], &cut, "truncated .safetensors file");
    let headless = dir.path().join("headless.safetensors");
    std::fs::write(&headless, &bytes[..50]).unwrap();
    fails_cleanly(&["--to", "f8e4m3fn"], &headless, "header length field says");
}

#[test]
fn from_must_match_the_element_size() {
    fails_cleanly(
        &["--from", "f32", "--to", "f16"],
        &fixture("ml_bfloat16.npy"),
        "--from f32 has 4-byte elements but the file's dtype '<V2' has 2-byte elements",
    );
}

#[test]
fn opaque_dtypes_need_from() {
    fails_cleanly(
        &["--to", "f32"],
        &fixture("ml_bfloat16.npy"),
        "use --from bf16",
    );
    fails_cleanly(&["--to", "f32"], &fixture("ml_float8_e5m2.npy"), "'<f1'");
    fails_cleanly(
        &["--to", "f32"],
        &fixture("ml_float8_e5m2.npy"),
        "--from f8e5m2",
    );
}

#[test]
fn packed_on_a_non_4_bit_cast_is_refused() {
    fails_cleanly(
        &["--to", "bf16", "--packed"],
        &fixture("f32_values.npy"),
        "--packed applies only to 4-bit formats",
    );
}

#[test]
fn raw_size_must_match_shape_times_format() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("x.bin");
    std::fs::write(&raw, [0u8; 10]).unwrap();
    fails_cleanly(
        &["--from", "f32", "--shape", "2,2", "--to", "f16"],
        &raw,
        "the raw file has 10 bytes but --shape [2, 2] of --from f32 needs 16 bytes",
    );
    fails_cleanly(&["--to", "f16"], &raw, "--from FMT --shape DIMS");
}

#[test]
fn a_failed_run_does_not_clobber_an_existing_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.npy");
    std::fs::write(&out, b"precious").unwrap();
    npusim()
        .arg("cast")
        .arg(fixture("ml_bfloat16.npy"))
        .arg("-o")
        .arg(&out)
        .args(["--to", "f32"])
        .assert()
        .failure();
    assert_eq!(std::fs::read(&out).unwrap(), b"precious");
    assert_eq!(files_in(dir.path()), ["out.npy"]);
}

#[test]
fn npy_f32_to_bf16_and_back_gives_the_bf16_rounded_values() {
    let dir = tempfile::tempdir().unwrap();
    let mid = dir.path().join("mid.npy");
    let back = dir.path().join("back.npy");
    npusim()
        .arg("cast")
        .arg(fixture("f32_values.npy"))
        .arg("-o")
        .arg(&mid)
        .args(["--to", "bf16"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "f32_values.npy: f32 -> bf16, 8 elements [2, 4]",
        ));
    let (descr, shape, _) = npy_parts(&mid);
    assert_eq!((descr.as_str(), shape.as_str()), ("<V2", "2,4"));
    npusim()
        .arg("cast")
        .arg(&mid)
        .arg("-o")
        .arg(&back)
        .args(["--from", "bfloat16", "--to", "float32"])
        .assert()
        .success();
    let (descr, shape, data) = npy_parts(&back);
    assert_eq!((descr.as_str(), shape.as_str()), ("<f4", "2,4"));
    let (_, _, want) = npy_parts(&fixture("ml_bfloat16_as_f32.npy"));
    assert_eq!(data, want);
    assert_eq!(f32s(&data)[2], 3.140625);
}

#[test]
fn ml_dtypes_files_are_read_with_from() {
    for (file, from, to, expected) in [
        ("ml_bfloat16.npy", "bf16", "f32", "ml_bfloat16_as_f32.npy"),
        (
            "ml_float8_e4m3fn.npy",
            "float8_e4m3fn",
            "f32",
            "ml_float8_e4m3fn_as_f32.npy",
        ),
        (
            "ml_float8_e5m2.npy",
            "f8e5m2",
            "f32",
            "ml_float8_e5m2_as_f32.npy",
        ),
        (
            "ml_float4_e2m1fn.npy",
            "float4_e2m1fn",
            "f32",
            "ml_float4_e2m1fn_as_f32.npy",
        ),
        ("ml_int4.npy", "int4", "i8", "ml_int4_as_i8.npy"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.npy");
        npusim()
            .arg("cast")
            .arg(fixture(file))
            .arg("-o")
            .arg(&out)
            .args(["--from", from, "--to", to])
            .assert()
            .success();
        let (descr, shape, data) = npy_parts(&out);
        let (want_descr, want_shape, want) = npy_parts(&fixture(expected));
        assert_eq!(descr, want_descr, "{file}");
        assert_eq!(shape, want_shape, "{file}");
        assert_eq!(data, want, "{file}");
    }
}

#[test]
fn narrow_outputs_are_written_the_way_ml_dtypes_writes_them() {
    for (to, ml_file, descr, source) in [
        ("bf16", "ml_bfloat16.npy", "<V2", "f32_values.npy"),
        ("f8e4m3fn", "ml_float8_e4m3fn.npy", "<V1", "f32_values.npy"),
        // ml_dtypes writes '<f1' here, which numpy cannot load: npusim writes '<V1'.
        ("f8e5m2", "ml_float8_e5m2.npy", "<V1", "f32_values.npy"),
        ("f4e2m1", "ml_float4_e2m1fn.npy", "<V1", "f32_values.npy"),
        ("i4", "ml_int4.npy", "<V1", "i8_values.npy"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.npy");
        npusim()
            .arg("cast")
            .arg(fixture(source))
            .arg("-o")
            .arg(&out)
            .args(["--to", to])
            .assert()
            .success();
        let (got_descr, got_shape, got) = npy_parts(&out);
        let (_, want_shape, want) = npy_parts(&fixture(ml_file));
        assert_eq!(got_descr, descr, "{to}");
        assert_eq!(got_shape, want_shape, "{to}");
        assert_eq!(got, want, "{to}");
    }
}

#[test]
fn packed_4_bit_npy_round_trips_with_an_odd_last_dimension() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("x.bin");
    let xs = [1.0f32, -2.0, 3.0, 0.5, 6.0, -0.5];
    std::fs::write(
        &raw,
        xs.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>(),
    )
    .unwrap();
    let packed = dir.path().join("p.npy");
    npusim()
        .arg("cast")
        .arg(&raw)
        .arg("-o")
        .arg(&packed)
        .args([
            "--from", "f32", "--shape", "2,3", "--to", "f4e2m1", "--packed",
        ])
        .assert()
        .success();
    let (descr, shape, data) = npy_parts(&packed);
    assert_eq!((descr.as_str(), shape.as_str()), ("|u1", "2,2"));
    // f4e2m1 codes: 1.0=0x2, -2.0=0xC, 3.0=0x5 | 0.5=0x1, 6.0=0x7, -0.5=0x9; each row padded.
    assert_eq!(data, [0xC2, 0x05, 0x71, 0x09]);
    let back = dir.path().join("back.bin");
    npusim()
        .arg("cast")
        .arg(&packed)
        .arg("-o")
        .arg(&back)
        .args([
            "--from", "f4e2m1", "--packed", "--shape", "2,3", "--to", "f32",
        ])
        .assert()
        .success();
    assert_eq!(f32s(&std::fs::read(&back).unwrap()), xs);
}

#[test]
fn hybrid_rounding_is_reproducible_from_its_seed() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("x.bin");
    let xs: Vec<u8> = (0..1000)
        .flat_map(|i| (1.0f32 + i as f32 / 1000.0).to_le_bytes())
        .collect();
    std::fs::write(&raw, xs).unwrap();
    let run = |seed: &str, name: &str| {
        let out = dir.path().join(name);
        npusim()
            .arg("cast")
            .arg(&raw)
            .arg("-o")
            .arg(&out)
            .args(["--from", "f32", "--shape", "1000", "--to", "f8e4m3fn"])
            .args(["--round", "CAST_HYBRID", "--seed", seed])
            .assert()
            .success();
        std::fs::read(out).unwrap()
    };
    assert_eq!(run("7", "a.bin"), run("7", "b.bin"));
    assert_ne!(run("7", "a.bin"), run("8", "c.bin"));
}

#[test]
fn large_raw_inputs_are_cast_in_chunks() {
    // 6 MB of f32: above the progress-bar threshold, so the chunked path is used.
    let n = 1_500_000usize;
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("big.bin");
    let xs: Vec<u8> = (0..n)
        .flat_map(|i| ((i % 256) as f32 * 0.5).to_le_bytes())
        .collect();
    std::fs::write(&raw, xs).unwrap();
    let out = dir.path().join("big_bf16.bin");
    npusim()
        .arg("cast")
        .arg(&raw)
        .arg("-o")
        .arg(&out)
        .args(["--from", "f32", "--shape", &n.to_string(), "--to", "bf16"])
        .assert()
        .success();
    let data = std::fs::read(&out).unwrap();
    assert_eq!(data.len(), 2 * n);
    for i in [0usize, 1, 999, 1_048_575, 1_048_576, n - 1] {
        let bits = u16::from_le_bytes([data[2 * i], data[2 * i + 1]]);
        let want = (i % 256) as f32 * 0.5;
        assert_eq!(f32::from_bits(u32::from(bits) << 16), want, "element {i}");
    }
}

/// A model with an f32 tensor, a bf16 tensor, an integer tensor and metadata.
fn write_model(path: &Path) {
    let w32: Vec<u8> = [1.0f32, -2.5, 3.2, 0.1, 448.0, 1000.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    // bf16 1.0, 0.30078125, -7.0, 0.00099945068359375
    let wbf: Vec<u8> = [0x3f80u16, 0x3e9a, 0xc0e0, 0x3a83]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let ids: Vec<u8> = [1i64, 2, 3].iter().flat_map(|x| x.to_le_bytes()).collect();
    let tensors = [
        (
            "w32",
            TensorView::new(Dtype::F32, vec![2, 3], &w32).unwrap(),
        ),
        ("wbf", TensorView::new(Dtype::BF16, vec![4], &wbf).unwrap()),
        ("ids", TensorView::new(Dtype::I64, vec![3], &ids).unwrap()),
    ];
    let meta = HashMap::from([
        ("format".to_string(), "pt".to_string()),
        ("note".to_string(), "hello".to_string()),
    ]);
    safetensors::serialize_to_file(tensors, Some(meta), path).unwrap();
}

fn cast_st(input: &Path, out: &Path, args: &[&str]) -> String {
    let assert = npusim()
        .arg("cast")
        .arg(input)
        .arg("-o")
        .arg(out)
        .args(args)
        .assert()
        .success();
    String::from_utf8(assert.get_output().stdout.clone()).unwrap()
}

#[test]
fn safetensors_round_trip_keeps_metadata_and_untouched_tensors() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.safetensors");
    write_model(&model);
    let e4 = dir.path().join("e4.safetensors");
    let stdout = cast_st(&model, &e4, &["--to", "e4m3fn", "--saturate"]);
    assert!(
        stdout.contains("ids: I64 [3] left unchanged (integer tensor)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("w32: f32 -> f8e4m3fn, 6 elements [2, 3] (0 NaN, 0 Inf, 1 saturated)"),
        "{stdout}"
    );
    let bytes = std::fs::read(&e4).unwrap();
    let st = SafeTensors::deserialize(&bytes).unwrap();
    assert_eq!(st.tensor("w32").unwrap().dtype(), Dtype::F8_E4M3);
    assert_eq!(st.tensor("wbf").unwrap().dtype(), Dtype::F8_E4M3);
    // 1, -2.5, 3.25, 0.1015625, 448, 448 (saturated)
    assert_eq!(
        st.tensor("w32").unwrap().data(),
        [0x38, 0xC2, 0x45, 0x1D, 0x7E, 0x7E]
    );

    let mid = dir.path().join("mid.safetensors");
    cast_st(&e4, &mid, &["--tensor", "w32", "--to", "f32"]);
    let back = dir.path().join("back.safetensors");
    let stdout = cast_st(&mid, &back, &["--tensor", "wbf", "--to", "bf16"]);
    assert!(
        stdout.contains("w32: F32 [2, 3] left unchanged (not selected)"),
        "{stdout}"
    );

    let bytes = std::fs::read(&back).unwrap();
    let st = SafeTensors::deserialize(&bytes).unwrap();
    let w32 = st.tensor("w32").unwrap();
    assert_eq!((w32.dtype(), w32.shape()), (Dtype::F32, &[2usize, 3][..]));
    assert_eq!(f32s(w32.data()), [1.0, -2.5, 3.25, 0.1015625, 448.0, 448.0]);
    let wbf = st.tensor("wbf").unwrap();
    assert_eq!((wbf.dtype(), wbf.shape()), (Dtype::BF16, &[4usize][..]));
    // e4m3fn-rounded: 1.0, 0.3125, -7.0, 2^-9
    let want: Vec<u8> = [0x3f80u16, 0x3ea0, 0xc0e0, 0x3b00]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    assert_eq!(wbf.data(), want);
    let ids = st.tensor("ids").unwrap();
    assert_eq!(ids.dtype(), Dtype::I64);
    assert_eq!(
        ids.data(),
        [1i64, 2, 3]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect::<Vec<_>>()
    );
    let (_, header) = SafeTensors::read_metadata(&bytes).unwrap();
    let meta = header.metadata().clone().unwrap();
    assert_eq!(meta.len(), 2);
    assert_eq!(meta["format"], "pt");
    assert_eq!(meta["note"], "hello");
}

#[test]
fn safetensors_formats_without_a_dtype_are_recorded_in_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.safetensors");
    write_model(&model);
    let h8 = dir.path().join("h8.safetensors");
    cast_st(&model, &h8, &["--to", "hifloat8_t", "--tensor", "w32"]);
    let e1 = dir.path().join("e1.safetensors");
    cast_st(
        &h8,
        &e1,
        &[
            "--to", "f4e1m2", "--packed", "--tensor", "w32", "--tensor", "wbf",
        ],
    );
    let bytes = std::fs::read(&e1).unwrap();
    let (_, header) = SafeTensors::read_metadata(&bytes).unwrap();
    let meta = header.metadata().clone().unwrap();
    assert_eq!(meta["npusim.dtype.w32"], "f4e1m2:packed:3");
    assert_eq!(meta["npusim.dtype.wbf"], "f4e1m2:packed");
    assert_eq!(meta["format"], "pt");
    let st = SafeTensors::deserialize(&bytes).unwrap();
    assert_eq!(st.tensor("w32").unwrap().shape(), [2, 2]);
    assert_eq!(st.tensor("w32").unwrap().dtype(), Dtype::U8);
    // Back to f32: the reader honours the entry and drops it.
    let back = dir.path().join("back.safetensors");
    cast_st(&e1, &back, &["--to", "f32", "--tensor", "w32"]);
    let bytes = std::fs::read(&back).unwrap();
    let (_, header) = SafeTensors::read_metadata(&bytes).unwrap();
    let meta = header.metadata().clone().unwrap();
    assert!(!meta.contains_key("npusim.dtype.w32"));
    assert_eq!(meta["npusim.dtype.wbf"], "f4e1m2:packed");
    let st = SafeTensors::deserialize(&bytes).unwrap();
    // hif8 then e1m2 (max 1.75, IEEE policy on a format without Inf/NaN: ±max).
    assert_eq!(
        f32s(st.tensor("w32").unwrap().data()),
        [1.0, -1.75, 1.75, 0.0, 1.75, 1.75]
    );
}

#[test]
fn safetensors_unknown_tensor_names_list_the_tensors() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.safetensors");
    write_model(&model);
    fails_cleanly(
        &["--to", "bf16", "--tensor", "nope"],
        &model,
        "no tensor named `nope`",
    );
    fails_cleanly(&["--to", "bf16", "--tensor", "nope"], &model, "w32");
}

#[test]
fn tour_passes_every_case() {
    npusim()
        .arg("tour")
        .assert()
        .success()
        .stdout(predicate::str::contains(" 0 FAIL"))
        .stdout(predicate::str::contains("tour: all cases PASS"))
        .stdout(predicate::str::contains("512/512 lanes as printed"))
        .stdout(predicate::str::contains("G120"))
        .stdout(predicate::str::contains("pending").not());
}

#[test]
fn tour_is_short_by_default_and_complete_with_verbose() {
    let short = npusim().arg("tour").assert().success();
    let short = String::from_utf8(short.get_output().stdout.clone()).unwrap();
    assert!(short.lines().count() < 40, "{short}");
    assert!(!short.contains("G213"));
    assert!(
        !short.contains("shared/"),
        "the tour names documents, not paths outside the repository"
    );
    let long = npusim().args(["tour", "--verbose"]).assert().success();
    let long = String::from_utf8(long.get_output().stdout.clone()).unwrap();
    for id in ["G001", "G120", "G208", "G213"] {
        assert!(long.contains(id), "{id}");
    }
    assert!(long.lines().filter(|l| l.starts_with("PASS")).count() > 250);
    assert!(long.contains("tour: all cases PASS"));
    let failures = npusim()
        .args(["tour", "--failures-only"])
        .assert()
        .success();
    let failures = String::from_utf8(failures.get_output().stdout.clone()).unwrap();
    assert!(
        !failures.lines().any(|l| l.starts_with("PASS")),
        "{failures}"
    );
}

#[test]
fn formats_lists_every_format() {
    let assert = npusim().arg("formats").assert().success();
    let out = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    for name in [
        "f64", "f32", "f16", "bf16", "f8e4m3fn", "f8e5m2", "f8e8m0", "hif8", "f4e2m1", "f4e1m2",
        "i4", "i8", "i16", "i32", "i64", "u8", "u16", "u32",
    ] {
        assert!(out.lines().any(|l| l.starts_with(name)), "{name}");
    }
    assert!(out.contains("448"));
}

#[test]
fn cast_help_shows_a_worked_example() {
    npusim()
        .args(["cast", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Examples:"))
        .stdout(predicate::str::contains(
            "npusim cast w.npy -o w_e4m3.npy --to f8e4m3fn",
        ));
}

#[test]
fn big_endian_npy_files_written_by_numpy_are_read() {
    for (file, to, twin) in [
        ("be_f4_values.npy", "f32", "f32_values.npy"),
        ("be_i2_values.npy", "i8", "i8_values.npy"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.npy");
        npusim()
            .arg("cast")
            .arg(fixture(file))
            .arg("-o")
            .arg(&out)
            .args(["--to", to])
            .assert()
            .success()
            .stdout(predicate::str::contains(format!("{file}: ")));
        let (descr, shape, data) = npy_parts(&out);
        let (want_descr, want_shape, want) = npy_parts(&fixture(twin));
        assert_eq!((descr, shape), (want_descr, want_shape), "{file}");
        assert_eq!(data, want, "{file}");
    }
}

#[test]
fn cast_help_says_big_endian_npy_files_are_read() {
    npusim()
        .args(["cast", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("big-endian"))
        .stdout(predicate::str::contains("'>f4'"));
}

/// A `.safetensors` file with the JSON header `header` and `data` bytes of data.
fn raw_safetensors(path: &Path, header: &str, data: usize) {
    let mut b = (header.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(header.as_bytes());
    b.resize(b.len() + data, 0);
    std::fs::write(path, b).unwrap();
}

#[test]
fn a_tensor_named_twice_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let twice = dir.path().join("twice.safetensors");
    let entry = r#"{"dtype":"F32","shape":[1],"data_offsets":[0,4]}"#;
    raw_safetensors(&twice, &format!(r#"{{"w":{entry},"w":{entry}}}"#), 4);
    fails_cleanly(
        &["--to", "bf16"],
        &twice,
        "the .safetensors header names tensor `w` twice",
    );
}

#[test]
fn a_zero_dimension_beside_a_huge_one_has_no_elements() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("z.safetensors");
    raw_safetensors(
        &input,
        r#"{"z":{"dtype":"F32","shape":[4611686018427387904,0],"data_offsets":[0,0]}}"#,
        0,
    );
    let out = dir.path().join("o.safetensors");
    let stdout = cast_st(&input, &out, &["--to", "bf16"]);
    assert!(stdout.contains("z: f32 -> bf16, 0 elements"), "{stdout}");
    let bytes = std::fs::read(&out).unwrap();
    let st = SafeTensors::deserialize(&bytes).unwrap();
    let z = st.tensor("z").unwrap();
    assert_eq!(z.shape(), [1usize << 62, 0]);
    assert_eq!(z.dtype(), Dtype::BF16);
}

#[test]
fn header_faults_name_the_tensor_the_field_and_the_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.safetensors");
    raw_safetensors(
        &path,
        r#"{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}"#,
        8,
    );
    fails_cleanly(
        &["--to", "bf16"],
        &path,
        "tensor `w`: dtype F32 and shape [3] need 3 elements × 32 bits = 12 bytes, but data_offsets [0, 8] hold 8 bytes",
    );
    raw_safetensors(
        &path,
        r#"{"w":{"dtype":"F3","shape":[2],"data_offsets":[0,8]}}"#,
        8,
    );
    fails_cleanly(
        &["--to", "bf16"],
        &path,
        "tensor `w`: field `dtype` is `F3`, which is no safetensors dtype",
    );
}

#[test]
fn a_directory_as_input_is_named_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("d.npy");
    std::fs::create_dir(&input).unwrap();
    let out = dir.path().join("o.npy");
    npusim()
        .arg("cast")
        .arg(&input)
        .args(["--to", "bf16", "-o"])
        .arg(&out)
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "it is a directory, not a tensor file",
        ));
    assert!(!out.exists());
}

#[test]
fn safetensors_metadata_is_written_in_sorted_order() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("m.safetensors");
    let mut meta: Vec<String> = (0..40)
        .map(|i| format!(r#""k{:02}":"v""#, (i * 17) % 40))
        .collect();
    meta.push(r#""format":"pt""#.to_string());
    let header = format!(
        r#"{{"__metadata__":{{{}}},"w":{{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}}}"#,
        meta.join(",")
    );
    raw_safetensors(&input, &header, 4);
    let out = dir.path().join("o.safetensors");
    cast_st(&input, &out, &["--to", "bf16"]);
    let bytes = std::fs::read(&out).unwrap();
    let len = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let text = std::str::from_utf8(&bytes[8..8 + len]).unwrap();
    let keys: Vec<&str> = text
        .split('"')
        .filter(|k| k.starts_with('k') && k.len() == 3 || *k == "format")
        .collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(keys.len(), 41);
    assert_eq!(keys, sorted);
    // Casting twice gives the same bytes.
    let again = dir.path().join("p.safetensors");
    cast_st(&input, &again, &["--to", "bf16"]);
    assert_eq!(std::fs::read(&again).unwrap(), bytes);
}

#[test]
fn ascend_names_the_option_that_gave_the_wrong_type() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.npy");
    npusim()
        .args(["ascend", "cast"])
        .arg(fixture("f32_values.npy"))
        .args(["--src", "half", "--dst", "float", "-o"])
        .arg(&out)
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "--src half has 2-byte elements but the file's dtype '<f4' has 4-byte elements",
        ))
        .stderr(predicate::str::contains("--from").not());
    assert!(!out.exists());
}

#[test]
fn sync_writes_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let (lazy, synced) = (dir.path().join("a.npy"), dir.path().join("b.npy"));
    for (out, extra) in [(&lazy, None), (&synced, Some("--sync"))] {
        npusim()
            .arg("cast")
            .arg(fixture("f32_values.npy"))
            .args(["--to", "bf16", "-o"])
            .arg(out)
            .args(extra)
            .assert()
            .success();
    }
    assert_eq!(
        std::fs::read(&lazy).unwrap(),
        std::fs::read(&synced).unwrap()
    );
    assert_eq!(files_in(dir.path()), ["a.npy", "b.npy"]);
}
