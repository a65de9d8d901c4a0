//! `quantize` and `dequantize` of a file much larger than any of its tensors hold memory near
//! the largest tensor, not the file: one tensor is read at a time and the output streamed.
//! Measured without timing, as the peak resident memory of a child process (Linux
//! `/proc/self/status`) that does nothing but the run. Also: the progress callback counts the
//! input's tensor bytes up to their total, and the streamed output equals the in-memory one.

// Test code: an unwrap that fails is a failed test (also in helpers).
#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::path::Path;

use crate::child_memory::{child_growth, measurable, print_reading, status_kb};
use npusim_io::quantize::{
    QuantizeJob, dequantize_bytes, dequantize_file_with_progress, quantize_bytes,
    quantize_file_with_progress,
};
use npusim_numerics::Format;
use npusim_numerics::block::Scheme;

/// Tensors in the file, each `ROWS x COLS` f32 (16 MiB): the file is 8 times the largest.
const TENSORS: usize = 8;
const ROWS: usize = 1024;
const COLS: usize = 4096;
const TENSOR_BYTES: u64 = (ROWS * COLS * 4) as u64;

/// The environment variables that make the child test run (their value: the input, and
/// `quantize` or `dequantize`).
const CHILD_INPUT: &str = "NPUSIM_QUANTIZE_MEMORY_INPUT";
const CHILD_MODE: &str = "NPUSIM_QUANTIZE_MEMORY_MODE";

/// Writes a `.safetensors` file of `TENSORS` f32 weights `layers.<i>.w` plus a small bias,
/// without holding it in memory.
fn big_file(path: &Path) {
    let mut json = String::from("{\"__metadata__\":{\"format\":\"pt\"}");
    let mut at = 0u64;
    for i in 0..TENSORS {
        json.push_str(&format!(
            ",\"layers.{i}.w\":{{\"dtype\":\"F32\",\"shape\":[{ROWS},{COLS}],\"data_offsets\":[{at},{}]}}",
            at + TENSOR_BYTES
        ));
        at += TENSOR_BYTES;
    }
    json.push_str(&format!(
        ",\"bias\":{{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[{at},{}]}}}}",
        at + 16
    ));
    while json.len() % 8 != 0 {
        json.push(' ');
    }
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    f.write_all(&(json.len() as u64).to_le_bytes()).unwrap();
    f.write_all(json.as_bytes()).unwrap();
    let row: Vec<u8> = (0..COLS)
        .flat_map(|j| (((j * 37 % 101) as f32 - 50.0) / 7.0).to_le_bytes())
        .collect();
    for _ in 0..TENSORS * ROWS {
        f.write_all(&row).unwrap();
    }
    f.write_all(&[0u8; 16]).unwrap();
    f.flush().unwrap();
}

#[test]
#[ignore = "run by quantize_and_dequantize_hold_memory_near_the_largest_tensor_in_a_child"]
fn quantize_memory_child_process_peak() {
    let (Ok(input), Ok(mode)) = (std::env::var(CHILD_INPUT), std::env::var(CHILD_MODE)) else {
        return;
    };
    let input = Path::new(&input);
    let output = input.with_file_name(format!("{mode}.safetensors"));
    let before = status_kb("VmRSS:").unwrap();
    let mut seen = Vec::new();
    let mut progress = |done: u64, total: u64| seen.push((done, total));
    if mode == "quantize" {
        let job = QuantizeJob::new(Scheme::Mxfp8E4m3);
        let r = quantize_file_with_progress(&job, input, &output, &mut progress).unwrap();
        assert_eq!(r.quantized.len(), TENSORS);
    } else {
        let r = dequantize_file_with_progress(input, &output, Format::F32, &mut progress).unwrap();
        assert_eq!(r.dequantized.len(), TENSORS);
    }
    print_reading("quantize-memory", before);
    let total = seen.last().unwrap().1;
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0 && w[1].1 == total));
    assert_eq!(seen.last().unwrap().0, total);
}

/// Runs the child on `input` in `mode`; returns the growth of its resident memory in bytes.
fn child_growth_of(input: &Path, mode: &str) -> u64 {
    let (line, grown) = child_growth(
        "quantize_memory_child_process_peak",
        "quantize-memory",
        &[(CHILD_INPUT, input), (CHILD_MODE, Path::new(mode))],
    );
    eprintln!("{mode}: {line}: grown {grown} bytes; largest tensor {TENSOR_BYTES} bytes");
    grown
}

#[test]
fn quantize_and_dequantize_hold_memory_near_the_largest_tensor_in_a_child() {
    if !measurable() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.safetensors");
    big_file(&input);
    let file = TENSORS as u64 * TENSOR_BYTES;
    // The input held whole is 8 x the largest tensor (as before: read whole, output built in
    // memory); one f32 tensor, its copy as values and its MXFP8 parts stay under 3 x.
    let grown = child_growth_of(&input, "quantize");
    assert!(
        grown <= 3 * TENSOR_BYTES,
        "quantize of a {file}-byte file grew the process by {grown} bytes, more than 3 x its \
         largest tensor ({TENSOR_BYTES} bytes)"
    );
    // dequantize reads the MXFP8 parts (a quarter of a tensor) and writes a whole f32 one
    let quantized = dir.path().join("quantize.safetensors");
    let moved = dir.path().join("q.safetensors");
    std::fs::rename(&quantized, &moved).unwrap();
    let grown = child_growth_of(&moved, "dequantize");
    assert!(
        grown <= 3 * TENSOR_BYTES,
        "dequantize to a {file}-byte file grew the process by {grown} bytes, more than 3 x its \
         largest tensor ({TENSOR_BYTES} bytes)"
    );
}

#[test]
fn streamed_files_equal_the_in_memory_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("small.safetensors");
    // a small model through both paths: one NVFP4 weight (its scales come before its codes in
    // the output, so it is quantised twice), a bias kept
    let w: Vec<f32> = (0..64 * 48)
        .map(|i| ((i % 91) as f32 - 45.0) / 9.0)
        .collect();
    let tensors = vec![
        (
            "w".to_string(),
            npusim_io::safetensors::OutTensor {
                dtype: npusim_io::safetensors::Dtype::F32,
                shape: vec![64, 48],
                data: std::borrow::Cow::Owned(w.iter().flat_map(|x| x.to_le_bytes()).collect()),
            },
        ),
        (
            "b".to_string(),
            npusim_io::safetensors::OutTensor {
                dtype: npusim_io::safetensors::Dtype::BF16,
                shape: vec![3],
                data: std::borrow::Cow::Owned(vec![1, 2, 3, 4, 5, 6]),
            },
        ),
    ];
    let bytes = npusim_io::safetensors::to_bytes(&tensors, None).unwrap();
    std::fs::write(&input, &bytes).unwrap();
    let job = QuantizeJob::new(Scheme::Nvfp4);
    let (in_memory, _) = quantize_bytes(&job, &bytes).unwrap();
    let out = dir.path().join("q.safetensors");
    let mut seen = Vec::new();
    let r = quantize_file_with_progress(&job, &input, &out, &mut |d, t| seen.push((d, t))).unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), in_memory);
    assert_eq!(r.quantized.len(), 1);
    // the bias (6 bytes) and the weight (64 x 48 x 4) counted once each
    assert_eq!(seen.last(), Some(&(6 + 64 * 48 * 4, 6 + 64 * 48 * 4)));
    let (back, _) = dequantize_bytes(&in_memory, Format::BF16).unwrap();
    let out2 = dir.path().join("d.safetensors");
    dequantize_file_with_progress(&out, &out2, Format::BF16, &mut |_, _| {}).unwrap();
    assert_eq!(std::fs::read(&out2).unwrap(), back);
}
