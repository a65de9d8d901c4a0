//! The cast of a `.safetensors` file of many small tensors holds memory near its header's own
//! size: each tensor's name and shape are kept once (moved from the parsed header into the
//! plan, then into the report), and neither the header text nor the output header is held
//! whole. Measured without timing, as the peak resident memory of a child process (Linux
//! `/proc/self/status`) that does nothing but the cast: other tests cannot disturb it.

// Test code: an unwrap that fails is a failed test (also in helpers).
#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::path::Path;

use crate::child_memory::{child_growth, measurable, print_reading, status_kb};
use npusim_io::{CastJob, Container, NoProgress, TensorReport, cast_file};
use npusim_numerics::Format;

/// Tensors in the file: enough that per-tensor costs dwarf the process's own.
const TENSORS: usize = 200_000;

/// The environment variable that makes the child test run the cast (its value: the input).
const CHILD_INPUT: &str = "NPUSIM_CAST_MEMORY_INPUT";

/// Writes a `.safetensors` file of `n` one-element F32 tensors `model.layers.<i>.mlp.w` (names
/// of 20 to 25 bytes, as a checkpoint's); returns the header's size in bytes.
fn many_tensors(path: &Path, n: usize) -> u64 {
    let mut json = String::from("{");
    for i in 0..n {
        if i > 0 {
            json.push(',');
        }
        json.push_str(&format!(
            "\"model.layers.{i}.mlp.w\":{{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[{},{}]}}",
            4 * i,
            4 * i + 4
        ));
    }
    json.push('}');
    while json.len() % 8 != 0 {
        json.push(' ');
    }
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    f.write_all(&(json.len() as u64).to_le_bytes()).unwrap();
    f.write_all(json.as_bytes()).unwrap();
    f.write_all(&vec![0u8; 4 * n]).unwrap();
    f.flush().unwrap();
    8 + json.len() as u64
}

#[test]
fn a_report_is_at_most_112_bytes_before_its_name_and_shape() {
    // A cast returns one report per tensor: name (24), shape (24), count (8), formats (2),
    // counts (5 x 8) and the error statistics boxed (8), rounded to 112. Error statistics held
    // inline made it 216.
    assert!(
        size_of::<TensorReport>() <= 112,
        "{} bytes",
        size_of::<TensorReport>()
    );
}

#[test]
#[ignore = "run by a_million_tensor_style_header_is_cast_within_3x_its_size_in_a_child"]
fn cast_memory_child_process_peak() {
    let Ok(input) = std::env::var(CHILD_INPUT) else {
        return;
    };
    let input = Path::new(&input);
    let output = input.with_file_name("out.safetensors");
    let before = status_kb("VmRSS:").unwrap();
    let job = CastJob::new(Container::Safetensors, Container::Safetensors, Format::BF16);
    let reports = cast_file(&job, input, &output, &mut NoProgress).unwrap();
    assert_eq!(reports.len(), TENSORS);
    // In output order: by name.
    assert!(matches!(&reports[2], TensorReport::Cast(c) if c.name == "model.layers.10.mlp.w"));
    print_reading("cast-memory", before);
}

#[test]
fn a_million_tensor_style_header_is_cast_within_3x_its_size_in_a_child() {
    if !measurable() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("many.safetensors");
    let header = many_tensors(&input, TENSORS);
    assert!(header > 16_000_000, "{header}");
    let (line, grown) = child_growth(
        "cast_memory_child_process_peak",
        "cast-memory",
        &[(CHILD_INPUT, &input)],
    );
    eprintln!("{line}: grown {grown} bytes for a {header}-byte header");
    // The reports the cast returns are 104 bytes a tensor plus the name and shape; the
    // header here is about 87 bytes a tensor. Copies of each name, a boxed summary per
    // tensor or the header held whole (as before) make it 10 times the header.
    assert!(
        grown <= 3 * header,
        "the cast of {TENSORS} tensors grew the process by {grown} bytes, more than 3 x the \
         {header}-byte header ({line})"
    );
}
