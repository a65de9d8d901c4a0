//! The directory quantiser does two shards at once (one read and quantised while the other
//! is written and synced): every shard it writes equals that shard quantised alone, the
//! report lists the tensors in the shards' order, the progress grows to the total of every
//! shard's tensor bytes, and a broken shard is named with no index written.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use npusim_io::quantize::{
    INDEX_FILE, QuantizeJob, quantize_dir, quantize_dir_with_progress, quantize_file,
};
use npusim_io::safetensors as st;
use npusim_numerics::block::Scheme;

fn input() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/quantize_dir/input")
}

fn shards(dir: &Path) -> Vec<String> {
    let mut s: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".safetensors"))
        .collect();
    s.sort();
    s
}

fn job() -> QuantizeJob {
    let mut job = QuantizeJob::new(Scheme::Mxfp4);
    job.exclude = vec!["lm_head*".to_string()];
    job
}

#[test]
fn shards_done_two_at_a_time_equal_each_shard_done_alone() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("q");
    let mut seen: Vec<(u64, u64)> = Vec::new();
    let report =
        quantize_dir_with_progress(&job(), &input(), &out, &mut |d, t| seen.push((d, t))).unwrap();
    let names = shards(&input());
    assert!(names.len() >= 3, "{names:?}");
    let mut alone_order = Vec::new();
    for s in &names {
        let alone = dir.path().join(format!("alone-{s}"));
        // the exclusion applies alone only to the shard that has the tensor it names
        let bytes = std::fs::read(input().join(s)).unwrap();
        let mut alone_job = job();
        if !bytes.windows(7).any(|w| w == b"lm_head") {
            alone_job.exclude.clear();
        }
        match quantize_file(&alone_job, &input().join(s), &alone) {
            Ok(r) => {
                assert_eq!(
                    std::fs::read(out.join(s)).unwrap(),
                    std::fs::read(&alone).unwrap(),
                    "shard {s}"
                );
                alone_order.extend(r.quantized.into_iter().map(|t| t.name));
            }
            // a shard with nothing to quantise is refused alone; its tensors are kept
            Err(e) => assert!(e.to_string().contains("nothing"), "{s}: {e}"),
        }
    }
    let order: Vec<String> = report.quantized.iter().map(|t| t.name.clone()).collect();
    assert_eq!(order, alone_order);
    // the progress: never backwards, ends at every shard's tensor bytes
    let total: u64 = names
        .iter()
        .map(|s| {
            st::parse(&std::fs::read(input().join(s)).unwrap())
                .unwrap()
                .data
                .len() as u64
        })
        .sum();
    assert!(!seen.is_empty());
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "{seen:?}");
    assert!(seen.iter().all(|&(_, t)| t == total), "{seen:?}");
    assert_eq!(seen.last().map(|p| p.0), Some(total));
    assert!(out.join(INDEX_FILE).exists());
}

#[test]
fn a_broken_shard_is_named_and_no_index_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("in");
    std::fs::create_dir(&copy).unwrap();
    for e in std::fs::read_dir(input()).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), copy.join(e.file_name())).unwrap();
    }
    let names = shards(&copy);
    let broken = &names[1];
    let bytes = std::fs::read(copy.join(broken)).unwrap();
    std::fs::write(copy.join(broken), &bytes[..bytes.len() - 7]).unwrap();
    let out = dir.path().join("q");
    let err = quantize_dir(&job(), &copy, &out).unwrap_err();
    let text = format!("{err}: {:?}", err);
    assert!(text.contains(broken.as_str()), "{text}");
    assert!(!out.join(INDEX_FILE).exists());
}
