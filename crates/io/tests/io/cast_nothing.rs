//! A cast that would cast no tensor is refused before anything is written when the job asks
//! for it (`fail_on_empty`), and is otherwise a plain copy.

// Test code: an unwrap that fails is a failed test.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use npusim_io::cast::preview;
use npusim_io::safetensors::{self as st, Dtype, OutTensor};
use npusim_io::{CastJob, Container, IoError, NoProgress, TensorReport, cast_bytes, cast_file};
use npusim_numerics::Format;

/// A checkpoint of two f32 tensors.
fn checkpoint() -> Vec<u8> {
    let data: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|x| x.to_le_bytes()).collect();
    let tensors = vec![
        (
            "a".to_string(),
            OutTensor {
                dtype: Dtype::F32,
                shape: vec![2],
                data: data.clone().into(),
            },
        ),
        (
            "b".to_string(),
            OutTensor {
                dtype: Dtype::F32,
                shape: vec![2],
                data: data.into(),
            },
        ),
    ];
    st::to_bytes(&tensors, None).unwrap()
}

#[test]
fn excluding_every_tensor_is_refused_before_writing_when_asked() {
    let input = checkpoint();
    let mut job = CastJob::new(Container::Safetensors, Container::Safetensors, Format::BF16);
    job.exclude = vec!["*".into()];
    // Not asked: every tensor is kept.
    let done = cast_bytes(&job, Path::new("m.safetensors"), &input, &mut NoProgress).unwrap();
    assert!(
        done.reports
            .iter()
            .all(|r| matches!(r, TensorReport::Kept(_)))
    );
    // Asked: the cast, the preview and a file cast refuse, and no file appears.
    job.fail_on_empty = true;
    let e = cast_bytes(&job, Path::new("m.safetensors"), &input, &mut NoProgress).unwrap_err();
    assert!(matches!(e, IoError::NothingToCast { tensors: 2 }), "{e}");
    assert_eq!(
        e.to_string(),
        "no tensor would be cast: all 2 tensor(s) would be copied unchanged"
    );
    let dir = tempfile::tempdir().unwrap();
    let in_path = dir.path().join("m.safetensors");
    std::fs::write(&in_path, &input).unwrap();
    assert!(matches!(
        preview(&job, &in_path).unwrap_err(),
        IoError::NothingToCast { .. }
    ));
    let out = dir.path().join("o.safetensors");
    let e = cast_file(&job, &in_path, &out, &mut NoProgress).unwrap_err();
    assert!(matches!(e, IoError::NothingToCast { .. }), "{e}");
    assert!(!out.exists());
    // A selection that casts something passes.
    job.exclude = vec!["b".into()];
    cast_file(&job, &in_path, &out, &mut NoProgress).unwrap();
    assert!(out.exists());
}
