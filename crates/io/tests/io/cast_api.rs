//! The library entry point without the CLI: whole-file casts of small `.npy` and
//! `.safetensors` buffers, their reports, progress calls and errors.

// Test code: an unwrap that fails is a failed test (clippy.toml allows it in #[test] bodies;
// this extends it to the helpers).
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::path::Path;

use npusim_io::cast::{KeepReason, KeptSummary};
use npusim_io::safetensors::{self as st, Dtype, OutTensor};
use npusim_io::{
    CastJob, CastProgress, Container, IoError, NoProgress, TensorReport, cast_bytes, cast_file, npy,
};
use npusim_numerics::{CastPolicy, Format, RoundMode};

fn f32_bytes(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// An `.npy` file of f32 values written through the library.
fn f32_npy(xs: &[f32], shape: &[usize]) -> Vec<u8> {
    let data = f32_bytes(xs);
    let e = npusim_io::Elements {
        storage: npusim_numerics::Storage::native(Format::F32),
        count: xs.len(),
        bytes: data.into(),
    };
    let mut out = Vec::new();
    npy::write(&mut out, &e, shape, false, false).unwrap();
    out
}

/// Records every progress call.
#[derive(Default)]
struct Recorder {
    calls: Vec<String>,
}

impl CastProgress for Recorder {
    fn begin(&mut self, input_bytes: u64, total_elements: u64) {
        self.calls
            .push(format!("begin {input_bytes} {total_elements}"));
    }
    fn advance(&mut self, elements: usize) {
        self.calls.push(format!("advance {elements}"));
    }
    fn set_message(&mut self, name: &str) {
        self.calls.push(format!("tensor {name}"));
    }
    fn finish(&mut self) {
        self.calls.push("finish".to_string());
    }
}

#[test]
fn an_npy_buffer_casts_to_e4m3fn_with_counts_and_progress() {
    let input = f32_npy(&[1.0, 1000.0, f32::NAN, -3.0], &[2, 2]);
    let mut job = CastJob::new(Container::Npy, Container::Npy, Format::F8E4M3FN);
    job.policy = CastPolicy::saturating(RoundMode::Rint);
    let mut progress = Recorder::default();
    let done = cast_bytes(&job, Path::new("dir/w.npy"), &input, &mut progress).unwrap();
    assert_eq!(
        progress.calls,
        [
            format!("begin {} 4", input.len()),
            "advance 4".into(),
            "finish".into()
        ]
    );
    assert_eq!(
        done.reports[0].to_string(),
        "w.npy: f32 -> f8e4m3fn, 4 elements [2, 2] (1 NaN, 0 Inf, 1 saturated)"
    );
    let TensorReport::Cast(summary) = &done.reports[0] else {
        panic!("not cast: {:?}", done.reports[0]);
    };
    assert_eq!(summary.stats.saturated, 1);
    let out = done.bytes.clone();
    let array = npy::parse(&out).unwrap();
    assert_eq!(array.descr, "<V1");
    assert_eq!(array.shape, [2, 2]);
    assert_eq!(array.data[0], 0x38);
    assert_eq!(array.data[1], 0x7e);
    assert_eq!(array.data[2] & 0x7f, 0x7f);
    assert_eq!(array.data[3], 0xc4);
}

#[test]
fn a_safetensors_buffer_casts_floats_and_keeps_the_rest() {
    let w = f32_bytes(&[1.0, -2.5, 3.2]);
    let ids: Vec<u8> = [7i64, 8].iter().flat_map(|x| x.to_le_bytes()).collect();
    let tensors = vec![
        (
            "w".to_string(),
            OutTensor {
                dtype: Dtype::F32,
                shape: vec![3],
                data: w.into(),
            },
        ),
        (
            "ids".to_string(),
            OutTensor {
                dtype: Dtype::I64,
                shape: vec![2],
                data: ids.clone().into(),
            },
        ),
    ];
    let meta = HashMap::from([("note".to_string(), "hi".to_string())]);
    let input = st::to_bytes(&tensors, Some(&meta)).unwrap();

    let job = CastJob::new(Container::Safetensors, Container::Safetensors, Format::HiF8);
    let mut progress = Recorder::default();
    let done = cast_bytes(&job, Path::new("m.safetensors"), &input, &mut progress).unwrap();
    assert!(progress.calls.contains(&"tensor w".to_string()));
    let lines: Vec<String> = done.reports.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        // File order: safetensors puts the 8-byte-aligned tensor first.
        [
            "ids: I64 [2] left unchanged (integer tensor)",
            "w: f32 -> hif8, 3 elements [3] (0 NaN, 0 Inf, 0 saturated)",
        ]
    );
    assert!(matches!(
        &done.reports[0],
        TensorReport::Kept(KeptSummary {
            reason: KeepReason::Integer,
            ..
        })
    ));
    assert_eq!(npusim_io::cast::tally(&done.reports), (1, 1));
    // The written file reads back: hif8 recorded as U8 plus the entry, ids untouched.
    let out = done.bytes.clone();
    let file = st::parse(&out).unwrap();
    let metadata = file.metadata.as_ref().unwrap();
    assert_eq!(metadata["npusim.dtype.w"], "hif8");
    assert_eq!(metadata["note"], "hi");
    let wv = file.tensor("w").unwrap();
    assert_eq!((wv.dtype, wv.shape), (Dtype::U8, &[3usize][..]));
    assert_eq!(file.tensor("ids").unwrap().data, ids);

    // And back to f32 through the recorded entry, which the cast drops.
    let mut back = CastJob::new(Container::Safetensors, Container::Safetensors, Format::F32);
    back.tensors = vec!["w".to_string()];
    let done = cast_bytes(&back, Path::new("h.safetensors"), &out, &mut NoProgress).unwrap();
    let out = done.bytes.clone();
    let file = st::parse(&out).unwrap();
    assert!(
        !file
            .metadata
            .as_ref()
            .unwrap()
            .contains_key("npusim.dtype.w")
    );
    let data = file.tensor("w").unwrap().data.to_vec();
    assert_eq!(data[..4], 1.0f32.to_le_bytes());
}

#[test]
fn job_rules_are_typed_errors() {
    let input = f32_npy(&[1.0, 2.0], &[2]);
    let mut job = CastJob::new(Container::Npy, Container::Safetensors, Format::BF16);
    let e = cast_bytes(&job, Path::new("a.npy"), &input, &mut NoProgress).unwrap_err();
    assert!(matches!(e, IoError::ContainerMismatch { .. }));
    job.output = Container::Npy;
    job.packed = true;
    let e = cast_bytes(&job, Path::new("a.npy"), &input, &mut NoProgress).unwrap_err();
    assert_eq!(
        e.to_string(),
        "packed storage applies only to 4-bit formats (f4e2m1, f4e1m2, i4, u4), but this casts f32 (32 bits) to bf16 (16 bits)"
    );
    let e = cast_bytes(
        &job,
        Path::new("a.npy"),
        &input[..input.len() - 1],
        &mut NoProgress,
    )
    .unwrap_err();
    assert!(matches!(e, IoError::Reading { .. }));
    assert!(e.to_string().starts_with("reading `a.npy`"));
}

#[test]
fn cast_file_writes_atomically_and_leaves_nothing_on_failure() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("x.npy");
    std::fs::write(&input, f32_npy(&[0.5, 0.25], &[2])).unwrap();
    let output = dir.path().join("y.bin");
    let job = CastJob::new(Container::Npy, Container::Raw, Format::F16);
    let reports = cast_file(&job, &input, &output, &mut NoProgress).unwrap();
    assert_eq!(reports.len(), 1);
    assert_eq!(std::fs::read(&output).unwrap(), [0x00, 0x38, 0x00, 0x34]);
    let missing = dir.path().join("none.npy");
    let e = cast_file(&job, &missing, &dir.path().join("z.bin"), &mut NoProgress).unwrap_err();
    assert!(matches!(e, IoError::CannotRead { .. }));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn a_safetensors_file_is_streamed_tensor_by_tensor_across_chunks() {
    use npusim_io::SubByte;
    use npusim_io::cast::CHUNK_ELEMENTS;
    use npusim_numerics::{BulkOptions, Storage, cast_elements};
    // Three rows of an odd length (an odd count, which F4 cannot hold): more than one chunk,
    // packed two per byte row by row.
    let row = CHUNK_ELEMENTS / 2 + 1;
    let n = 3 * row;
    let xs: Vec<f32> = (0..n)
        .map(|i| ((i % 1000) as f32 - 500.0) * 0.013)
        .collect();
    let ids: Vec<u8> = [7i64, 8, 9].iter().flat_map(|x| x.to_le_bytes()).collect();
    let tensors = vec![
        (
            "big".to_string(),
            OutTensor {
                dtype: Dtype::F32,
                shape: vec![3, row],
                data: f32_bytes(&xs).into(),
            },
        ),
        (
            "ids".to_string(),
            OutTensor {
                dtype: Dtype::I64,
                shape: vec![3],
                data: ids.clone().into(),
            },
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("m.safetensors");
    std::fs::write(&input, st::to_bytes(&tensors, None).unwrap()).unwrap();
    let output = dir.path().join("o.safetensors");
    let mut job = CastJob::new(
        Container::Safetensors,
        Container::Safetensors,
        Format::F4E2M1,
    );
    job.packed = true;
    job.policy = CastPolicy::saturating(RoundMode::Rint);
    let mut progress = Recorder::default();
    let reports = npusim_io::cast_file(&job, &input, &output, &mut progress).unwrap();
    assert_eq!(reports.len(), 2);
    let advances = progress
        .calls
        .iter()
        .filter(|c| c.starts_with("advance"))
        .count();
    assert!(advances >= 2, "{:?}", progress.calls);

    let out = std::fs::read(&output).unwrap();
    let file = st::parse(&out).unwrap();
    let meta = file.metadata.as_ref().unwrap();
    assert_eq!(meta["npusim.dtype.big"], format!("f4e2m1:packed:{row}"));
    assert_eq!(file.tensor("ids").unwrap().data, ids);
    // The reference: one whole cast one element per byte, then each row packed.
    let unpacked = SubByte::OnePerByte.storage(Format::F4E2M1, n);
    let mut whole = vec![0u8; n];
    cast_elements(
        &f32_bytes(&xs),
        Storage::native(Format::F32),
        &mut whole,
        unpacked,
        n,
        &job.policy,
        &BulkOptions::default(),
    )
    .unwrap();
    let e = npusim_io::Elements {
        storage: unpacked,
        count: n,
        bytes: whole.into(),
    };
    let big = file.tensor("big").unwrap();
    assert_eq!(big.shape, [3, row.div_ceil(2)]);
    assert_eq!(big.data, &e.to_file(SubByte::PackedRows { row })[..]);
    // The in-memory cast gives the same file.
    let again = cast_bytes(
        &job,
        &input,
        &std::fs::read(&input).unwrap(),
        &mut NoProgress,
    )
    .unwrap();
    assert_eq!(again.bytes, out);
}

/// A small checkpoint: f32 MLP and attention weights, an f16 norm with an odd count, integer
/// ids and a BOOL mask.
fn checkpoint() -> Vec<u8> {
    let f32_t = |n: usize| OutTensor {
        dtype: Dtype::F32,
        shape: vec![n],
        data: f32_bytes(&(0..n).map(|i| i as f32 * 0.37 - 2.0).collect::<Vec<_>>()).into(),
    };
    let tensors = vec![
        ("layers.0.mlp.up.weight".to_string(), f32_t(6)),
        ("layers.0.mlp.down.weight".to_string(), f32_t(5)),
        ("layers.0.attn.q.weight".to_string(), f32_t(4)),
        (
            "norm".to_string(),
            OutTensor {
                dtype: Dtype::F16,
                shape: vec![3],
                data: vec![0u8, 0x3c, 0, 0x40, 0, 0xc0].into(),
            },
        ),
        (
            "ids".to_string(),
            OutTensor {
                dtype: Dtype::I64,
                shape: vec![1],
                data: 5i64.to_le_bytes().to_vec().into(),
            },
        ),
        (
            "mask".to_string(),
            OutTensor {
                dtype: Dtype::BOOL,
                shape: vec![2],
                data: vec![1u8, 0].into(),
            },
        ),
    ];
    st::to_bytes(&tensors, None).unwrap()
}

#[test]
fn the_preview_is_the_plan_the_cast_runs_selection_and_bytes_included() {
    use npusim_io::cast::preview;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("m.safetensors");
    std::fs::write(&input, checkpoint()).unwrap();
    let output = dir.path().join("o.safetensors");
    for (to, packed, tensors, exclude) in [
        (
            Format::F4E2M1,
            true,
            vec!["layers.*.mlp.*"],
            vec!["*.down.*"],
        ),
        (Format::HiF8, false, vec![], vec!["norm"]),
        (Format::I4, true, vec!["norm", "layers.0.*"], vec![]),
        (Format::BF16, false, vec![], vec![]),
    ] {
        let mut job = CastJob::new(Container::Safetensors, Container::Safetensors, to);
        job.packed = packed;
        job.tensors = tensors.iter().map(|s| s.to_string()).collect();
        job.exclude = exclude.iter().map(|s| s.to_string()).collect();
        let _ = std::fs::remove_file(&output);
        let rows = preview(&job, &input).unwrap();
        assert!(!output.exists());
        let reports = cast_file(&job, &input, &output, &mut NoProgress).unwrap();
        let out = std::fs::read(&output).unwrap();
        let file = st::parse(&out).unwrap();
        // Same tensors in the same order, the same decisions, and the bytes predicted are the
        // bytes written.
        assert_eq!(rows.len(), reports.len());
        for (row, report) in rows.iter().zip(&reports) {
            match report {
                TensorReport::Cast(c) => {
                    assert_eq!((&row.name, row.action), (&c.name, Ok(to)));
                }
                TensorReport::Kept(k) => {
                    assert_eq!((&row.name, row.action), (&k.name, Err(k.reason)));
                }
            }
            let written = file.tensor(&row.name).unwrap().data.len() as u64;
            assert_eq!(row.bytes_out, written, "{to} {}", row.name);
        }
        let excluded = rows
            .iter()
            .filter(|r| r.action == Err(KeepReason::Excluded))
            .count();
        assert_eq!(excluded, job.exclude.len(), "{to}");
    }
    // A .npy with a packed odd last dimension: the data section is the predicted size.
    let npy_in = dir.path().join("w.npy");
    std::fs::write(&npy_in, f32_npy(&[0.5; 15], &[3, 5])).unwrap();
    let mut job = CastJob::new(Container::Npy, Container::Npy, Format::F4E2M1);
    job.packed = true;
    let rows = preview(&job, &npy_in).unwrap();
    assert_eq!((rows[0].dtype.as_str(), rows[0].bytes_in), ("<f4", 60));
    let npy_out = dir.path().join("w4.npy");
    cast_file(&job, &npy_in, &npy_out, &mut NoProgress).unwrap();
    let bytes = std::fs::read(&npy_out).unwrap();
    let written = npy::parse(&bytes).unwrap().data.len() as u64;
    assert_eq!((rows[0].bytes_out, written), (9, 9));
    // --exclude on a single-tensor file is refused by the preview and the cast alike.
    job.exclude = vec!["x".into()];
    let a = preview(&job, &npy_in).unwrap_err().to_string();
    let b = cast_file(&job, &npy_in, &npy_out, &mut NoProgress)
        .unwrap_err()
        .to_string();
    assert_eq!(a, b);
    assert!(
        a.starts_with("excluding tensors applies to .safetensors files"),
        "{a}"
    );
}

#[test]
fn fail_on_nan_refuses_the_output_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("w.npy");
    // 1e6 and -1e6 overflow e4m3fn (no Inf) into NaN; the NaN input does not count.
    std::fs::write(&input, f32_npy(&[1.0, 1e6, -1e6, f32::NAN], &[4])).unwrap();
    let output = dir.path().join("o.npy");
    let mut job = CastJob::new(Container::Npy, Container::Npy, Format::F8E4M3FN);
    job.error_stats = true;
    let reports = cast_file(&job, &input, &output, &mut NoProgress).unwrap();
    let TensorReport::Cast(c) = &reports[0] else {
        panic!("{reports:?}");
    };
    assert_eq!((c.stats.nan, c.stats.nonfinite_from_finite), (3, 2));
    let e = c.stats.error.as_deref().unwrap();
    assert_eq!((e.total, e.nan_inputs, e.exact), (4, 1, 2));
    std::fs::remove_file(&output).unwrap();
    job.fail_on_nan = true;
    let err = cast_file(&job, &input, &output, &mut NoProgress).unwrap_err();
    assert!(
        matches!(err, IoError::NonFiniteFromFinite { count: 2, .. }),
        "{err}"
    );
    // Neither the output nor a temporary file.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["w.npy"]);
    // Saturating, nothing becomes NaN: the same job passes.
    job.policy = CastPolicy::saturating(RoundMode::Rint);
    cast_file(&job, &input, &output, &mut NoProgress).unwrap();
}

#[test]
fn cast_reader_streams_into_any_writer_as_cast_bytes_does() {
    let input = checkpoint();
    let job = CastJob::new(
        Container::Safetensors,
        Container::Safetensors,
        Format::F8E5M2,
    );
    let whole = cast_bytes(&job, Path::new("m.safetensors"), &input, &mut NoProgress).unwrap();
    let mut out = Vec::new();
    let reports = npusim_io::cast_reader(
        &job,
        Path::new("m.safetensors"),
        std::io::Cursor::new(&input),
        input.len() as u64,
        &mut out,
        &mut NoProgress,
    )
    .unwrap();
    assert_eq!((reports, out), (whole.reports, whole.bytes));
}

/// A file cast reads its large chunks in pieces on several threads: the output equals the
/// in-memory cast of the same bytes, and a file cut short is refused before anything is
/// written.
#[test]
fn a_file_read_in_parallel_pieces_equals_the_in_memory_cast_and_a_short_file_is_an_error() {
    let n = (5 << 20) / 2 + 3;
    let xs: Vec<f32> = (0..n)
        .map(|i| ((i % 7919) as f32 - 3000.0) * 0.0173)
        .collect();
    let file = f32_npy(&xs, &[n]);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("x.npy");
    std::fs::write(&input, &file).unwrap();
    let output = dir.path().join("y.npy");
    let job = CastJob::new(Container::Npy, Container::Npy, Format::BF16);
    cast_file(&job, &input, &output, &mut NoProgress).unwrap();
    let want = cast_bytes(&job, &input, &file, &mut NoProgress).unwrap();
    assert!(std::fs::read(&output).unwrap() == want.bytes);
    // Cut 1.5 MiB before the end: the header still promises every element.
    std::fs::write(&input, &file[..file.len() - (3 << 19)]).unwrap();
    let e = cast_file(&job, &input, &dir.path().join("z.npy"), &mut NoProgress).unwrap_err();
    assert!(e.to_string().contains("x.npy"), "{e}");
    assert!(!dir.path().join("z.npy").exists());
}
