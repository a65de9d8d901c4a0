//! The library's messages say what is wrong in its own words (issue 29): a raw input needs a
//! source format and a shape, packed storage applies to 4-bit formats, the tensor selection
//! matches nothing. No message names a command-line option (`--from`, `--shape`, `--packed`,
//! `--tensor`, ...); the CLI maps them. Lists of formats come from the format table.

// Test code: an unwrap that fails is a failed test.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use npusim_io::cast::KeepReason;
use npusim_io::safetensors::{self as st, Dtype, OutTensor};
use npusim_io::{CastJob, Container, IoError, NoProgress, cast_bytes, nibble_formats, npy};
use npusim_numerics::Format;

/// An `.npy` file of dtype `descr` and `shape` holding `data`.
fn npy_file(descr: &str, shape: &[usize], data: &[u8]) -> Vec<u8> {
    let mut out = npy::header_bytes(descr, false, shape);
    out.extend_from_slice(data);
    out
}

/// A `.safetensors` file with one f32 tensor `w` of 2 elements.
fn st_file() -> Vec<u8> {
    let w = OutTensor {
        dtype: Dtype::F32,
        shape: vec![2],
        data: [1.0f32, 2.0]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect::<Vec<u8>>()
            .into(),
    };
    st::to_bytes(&[("w".to_string(), w)], None).unwrap()
}

/// The whole report chain of the error `job` gives on `bytes` (named `name`).
fn message(job: &CastJob, name: &str, bytes: &[u8]) -> String {
    let e = cast_bytes(job, Path::new(name), bytes, &mut NoProgress).unwrap_err();
    let mut text = e.to_string();
    let mut cause: Option<&dyn std::error::Error> = std::error::Error::source(&e);
    while let Some(c) = cause {
        text = format!("{text}: {c}");
        cause = c.source();
    }
    text
}

/// Asserts `text` contains `words` and names no command-line option.
fn says(text: &str, words: &str) {
    assert!(text.contains(words), "{text:?} should say {words:?}");
    assert!(!text.contains("--"), "{text:?} names a command-line option");
}

#[test]
fn a_raw_input_needs_a_source_format_and_a_shape() {
    let job = CastJob::new(Container::Raw, Container::Raw, Format::F16);
    says(
        &message(&job, "x.bin", &[0; 8]),
        "a raw .bin input has no header: it needs a source format and a shape",
    );
    let mut job = job;
    job.from = Some(Format::F32);
    job.shape = Some(vec![2, 2]);
    says(
        &message(&job, "x.bin", &[0; 10]),
        "the raw file has 10 bytes but shape [2, 2] of source format f32 needs 16 bytes",
    );
}

#[test]
fn an_opaque_npy_dtype_needs_a_source_format_of_its_size() {
    let bf16 = npy_file("<V2", &[2], &[0; 4]);
    let job = CastJob::new(Container::Npy, Container::Npy, Format::F32);
    says(
        &message(&job, "a.npy", &bf16),
        "ml_dtypes saves bfloat16 this way: give the source format, bf16",
    );
    let one_byte = npy_file("<V1", &[2], &[0; 2]);
    says(
        &message(&job, "a.npy", &one_byte),
        "give the source format, e.g. f8e4m3fn, f8e5m2, f8e8m0, hif8, f4e2m1, f4e1m2 or i4",
    );
    let mut job = job;
    job.from = Some(Format::F32);
    says(
        &message(&job, "a.npy", &bf16),
        "the source format f32 has 4-byte elements but the file's dtype '<V2' has 2-byte elements",
    );
    says(
        &message(&job, "a.npy", &npy_file("<c8", &[1], &[0; 8])),
        "1- or 2-byte raw (void) elements given their source format",
    );
}

#[test]
fn shapes_given_for_files_that_state_their_own_are_refused() {
    let f32s = npy_file("<f4", &[2], &[0; 8]);
    let mut job = CastJob::new(Container::Npy, Container::Npy, Format::F16);
    job.shape = Some(vec![3]);
    says(
        &message(&job, "a.npy", &f32s),
        "a shape is given only for raw .bin inputs (and packed 4-bit .npy inputs)",
    );
    let mut job = CastJob::new(Container::Safetensors, Container::Safetensors, Format::F16);
    job.shape = Some(vec![2]);
    says(
        &message(&job, "m.safetensors", &st_file()),
        "a shape does not apply to .safetensors inputs",
    );
    job.shape = None;
    job.from = Some(Format::F32);
    says(
        &message(&job, "m.safetensors", &st_file()),
        "a source format does not apply to .safetensors inputs",
    );
}

#[test]
fn packed_storage_lists_the_4_bit_formats_of_the_format_table() {
    let table: Vec<&str> = Format::ALL
        .into_iter()
        .filter(|f| f.bits() == 4)
        .map(Format::name)
        .collect();
    let listed: Vec<&str> = nibble_formats().map(Format::name).collect();
    assert_eq!(listed, table);
    let list = format!(
        "packed storage applies only to 4-bit formats ({})",
        table.join(", ")
    );
    let mut job = CastJob::new(Container::Npy, Container::Npy, Format::BF16);
    job.packed = true;
    let text = message(&job, "a.npy", &npy_file("<f4", &[2], &[0; 8]));
    says(&text, &list);
    says(&text, "but this casts f32 (32 bits) to bf16 (16 bits)");
    let mut job = CastJob::new(Container::Safetensors, Container::Safetensors, Format::BF16);
    job.packed = true;
    let text = message(&job, "m.safetensors", &st_file());
    says(&text, &list);
    says(&text, "not to the destination format bf16 (16 bits)");
}

#[test]
fn the_tensor_selection_is_named_as_such() {
    let f32s = npy_file("<f4", &[2], &[0; 8]);
    let mut job = CastJob::new(Container::Npy, Container::Npy, Format::F16);
    job.tensors = vec!["w".into()];
    says(
        &message(&job, "a.npy", &f32s),
        "selecting tensors applies to .safetensors files; a .npy file holds one tensor",
    );
    let mut job = CastJob::new(Container::Safetensors, Container::Safetensors, Format::F16);
    job.exclude = vec!["*.bias".into()];
    says(
        &message(&job, "m.safetensors", &st_file()),
        "tensor exclusion `*.bias` matches no tensor of `m.safetensors` (1 tensors: w)",
    );
    job.exclude.clear();
    job.tensors = vec!["a[".into()];
    says(
        &message(&job, "m.safetensors", &st_file()),
        "tensor selection `a[` is not a valid glob pattern",
    );
    says(
        &KeepReason::ScaleTensor.to_string(),
        "f8e8m0 scale tensor; cast only when selected by name",
    );
}

#[test]
fn new_non_finite_values_are_refused_in_the_library_words() {
    let big = npy_file("<f4", &[1], &1e6f32.to_le_bytes());
    let mut job = CastJob::new(Container::Npy, Container::Npy, Format::F8E4M3FN);
    job.fail_on_nan = true;
    let e = cast_bytes(&job, Path::new("w.npy"), &big, &mut NoProgress).unwrap_err();
    assert!(
        matches!(e, IoError::NonFiniteFromFinite { count: 1, .. }),
        "{e}"
    );
    says(
        &e.to_string(),
        "1 finite input value(s) became NaN or Inf (w.npy: 1); nothing was written",
    );
}
