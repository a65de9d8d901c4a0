//! Whole-file block quantisation (`npusim_io::quantize`): the published layouts (gpt-oss's
//! MXFP4 `_blocks`/`_scales` pair, ModelOpt's NVFP4 weight/`_scale`/`_scale_2` triple), codes
//! and scales equal to `npusim_numerics::block::quantize`, kept tensors byte for byte, the
//! round trip through `dequantize`, and the refusals.

#![allow(clippy::unwrap_used)]

use std::borrow::Cow;
use std::collections::HashMap;

use npusim_io::quantize::{
    KeptBecause, QuantizeError, QuantizeJob, dequantize_bytes, quantize_bytes, quantize_file,
};
use npusim_io::safetensors::{self as st, Dtype, OutTensor};
use npusim_numerics::Format;
use npusim_numerics::block::{Options, ScaleRule, Scheme, Source, quantize};

fn f32_bytes(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Values with a spread of magnitudes (some blocks large, some tiny).
fn values(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let x = ((i * 37 % 101) as f32 - 50.0) / 7.0;
            if (i / 32) % 3 == 2 { x * 1e-3 } else { x }
        })
        .collect()
}

fn tensor(dtype: Dtype, shape: &[usize], data: Vec<u8>) -> OutTensor<'static> {
    OutTensor {
        dtype,
        shape: shape.to_vec(),
        data: Cow::Owned(data),
    }
}

/// A checkpoint-like file: a 2-d f32 weight, a 1-d bias, an i32 tensor, `format: pt`.
fn model(w: &[f32], shape: &[usize]) -> Vec<u8> {
    let bias: Vec<f32> = (0..8).map(|i| i as f32 * 0.25).collect();
    let tensors = vec![
        ("w".to_string(), tensor(Dtype::F32, shape, f32_bytes(w))),
        (
            "bias".to_string(),
            tensor(Dtype::F32, &[8], f32_bytes(&bias)),
        ),
        (
            "ids".to_string(),
            tensor(Dtype::I32, &[3], vec![1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]),
        ),
    ];
    let meta = HashMap::from([("format".to_string(), "pt".to_string())]);
    st::to_bytes(&tensors, Some(&meta)).unwrap()
}

fn part<'a>(f: &'a st::SafetensorsFile<'_>, name: &str) -> (Dtype, Vec<usize>, &'a [u8]) {
    let t = f
        .tensor(name)
        .unwrap_or_else(|| panic!("no tensor `{name}` in {:?}", f.names));
    (t.dtype, t.shape.to_vec(), t.data)
}

#[test]
fn mxfp4_writes_the_blocks_and_scales_pair_of_published_checkpoints() {
    let w = values(4 * 64);
    let input = model(&w, &[4, 64]);
    let mut job = QuantizeJob::new(Scheme::Mxfp4);
    job.scale_rule = Some(ScaleRule::Rceil);
    let (out, report) = quantize_bytes(&job, &input).unwrap();
    let f = st::parse(&out).unwrap();
    let mut names = f.names.clone();
    names.sort();
    assert_eq!(names, ["bias", "ids", "w_blocks", "w_scales"]);
    let q = quantize(
        Source::F32(&w),
        &[4, 64],
        -1,
        Scheme::Mxfp4,
        &Options::with_rule(ScaleRule::Rceil),
    )
    .unwrap();
    // gpt-oss: `<name>_blocks` U8 [..., n/32, 16] of packed e2m1, `<name>_scales` U8 [..., n/32].
    let (dt, shape, data) = part(&f, "w_blocks");
    assert_eq!((dt, shape), (Dtype::U8, vec![4, 2, 16]));
    assert_eq!(data, q.codes());
    let (dt, shape, data) = part(&f, "w_scales");
    assert_eq!((dt, shape), (Dtype::U8, vec![4, 2]));
    assert_eq!(data, q.scales());
    // Kept tensors byte for byte, metadata kept, a record added.
    let inp = st::parse(&input).unwrap();
    for n in ["bias", "ids"] {
        assert_eq!(part(&f, n), part(&inp, n));
    }
    let meta = f.metadata.as_ref().unwrap();
    assert_eq!(meta["format"], "pt");
    assert_eq!(
        meta["npusim.quantize.w"],
        r#"{"scheme":"mxfp4","scale_rule":"rceil","axis":1,"shape":[4,64],"dtype":"F32"}"#
    );
    assert_eq!(report.quantized.len(), 1);
    assert_eq!(report.quantized[0].parts, ["w_blocks", "w_scales"]);
    assert_eq!(report.quantized[0].blocks, *q.stats());
    let kept: Vec<_> = report
        .kept
        .iter()
        .map(|k| (k.name.as_str(), k.reason))
        .collect();
    assert_eq!(
        kept,
        [
            ("bias", KeptBecause::OneDimensional),
            ("ids", KeptBecause::NotFloat)
        ]
    );
}

#[test]
fn nvfp4_writes_the_weight_scale_and_scale_2_triple_of_modelopt() {
    let w: Vec<u16> = values(2 * 32)
        .iter()
        .map(|x| (x.to_bits() >> 16) as u16)
        .collect();
    let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    let input = st::to_bytes(
        &[(
            "layer.weight".to_string(),
            tensor(Dtype::BF16, &[2, 32], bytes),
        )],
        None,
    )
    .unwrap();
    let (out, _) = quantize_bytes(&QuantizeJob::new(Scheme::Nvfp4), &input).unwrap();
    let f = st::parse(&out).unwrap();
    let q = quantize(
        Source::BF16(&w),
        &[2, 32],
        -1,
        Scheme::Nvfp4,
        &Options::default(),
    )
    .unwrap();
    let (dt, shape, data) = part(&f, "layer.weight");
    assert_eq!((dt, shape), (Dtype::U8, vec![2, 16]));
    assert_eq!(data, q.codes());
    let (dt, shape, data) = part(&f, "layer.weight_scale");
    assert_eq!((dt, shape), (Dtype::F8_E4M3, vec![2, 2]));
    assert_eq!(data, q.scales());
    let (dt, shape, data) = part(&f, "layer.weight_scale_2");
    assert_eq!((dt, shape), (Dtype::F32, vec![]));
    assert_eq!(data, q.tensor_scale().unwrap().to_le_bytes());
    assert_eq!(
        f.metadata.as_ref().unwrap()["npusim.quantize.layer.weight"],
        r#"{"scheme":"nvfp4","axis":1,"shape":[2,32],"dtype":"BF16"}"#
    );
    // Round trip to bf16 equals dequantize_to(BF16).
    let (back, rep) = dequantize_bytes(&out, Format::BF16).unwrap();
    assert_eq!(
        rep.dequantized[0].parts,
        ["layer.weight", "layer.weight_scale", "layer.weight_scale_2"]
    );
    let b = st::parse(&back).unwrap();
    let want: Vec<u8> = q
        .dequantize_to(Format::BF16)
        .unwrap()
        .iter()
        .flat_map(|&c| (c as u16).to_le_bytes())
        .collect();
    assert_eq!(
        part(&b, "layer.weight"),
        (Dtype::BF16, vec![2, 32], &want[..])
    );
    assert_eq!(b.names.len(), 1);
    assert!(b.metadata.unwrap_or_default().is_empty());
}

#[test]
fn every_scheme_round_trips_bit_for_bit_with_the_library_dequantize() {
    let w = values(3 * 96);
    let input = model(&w, &[3, 96]);
    for scheme in Scheme::ALL {
        let (out, _) = quantize_bytes(&QuantizeJob::new(scheme), &input).unwrap();
        let (back, rep) = dequantize_bytes(&out, Format::F32).unwrap();
        let q = quantize(Source::F32(&w), &[3, 96], -1, scheme, &Options::default()).unwrap();
        let b = st::parse(&back).unwrap();
        let want = f32_bytes(&q.dequantize());
        assert_eq!(
            part(&b, "w"),
            (Dtype::F32, vec![3, 96], &want[..]),
            "{scheme}"
        );
        assert_eq!(rep.kept, ["bias", "ids"], "{scheme}");
        let inp = st::parse(&input).unwrap();
        assert_eq!(part(&b, "bias"), part(&inp, "bias"));
        assert_eq!(b.metadata.unwrap()["format"], "pt");
    }
}

#[test]
fn blocks_along_another_axis_with_a_short_tail_keep_the_tensor_shape() {
    let w = values(40 * 3);
    let input = model(&w, &[40, 3]);
    let mut job = QuantizeJob::new(Scheme::Mxfp8E4m3);
    job.axis = 0;
    let (out, _) = quantize_bytes(&job, &input).unwrap();
    let f = st::parse(&out).unwrap();
    let q = quantize(
        Source::F32(&w),
        &[40, 3],
        0,
        Scheme::Mxfp8E4m3,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(part(&f, "w_blocks"), (Dtype::U8, vec![40, 3], q.codes()));
    assert_eq!(part(&f, "w_scales"), (Dtype::U8, vec![2, 3], q.scales()));
    let (back, _) = dequantize_bytes(&out, Format::F32).unwrap();
    assert_eq!(
        part(&st::parse(&back).unwrap(), "w").2,
        f32_bytes(&q.dequantize())
    );
}

#[test]
fn published_pairs_without_a_record_are_read_as_mxfp4_and_nvfp4() {
    let w = values(2 * 64);
    let mx = quantize(
        Source::F32(&w),
        &[2, 64],
        -1,
        Scheme::Mxfp4,
        &Options::default(),
    )
    .unwrap();
    let nv = quantize(
        Source::F32(&w),
        &[2, 64],
        -1,
        Scheme::Nvfp4,
        &Options::default(),
    )
    .unwrap();
    let file = st::to_bytes(
        &[
            (
                "experts.down_blocks".to_string(),
                tensor(Dtype::U8, &[2, 2, 16], mx.codes().to_vec()),
            ),
            (
                "experts.down_scales".to_string(),
                tensor(Dtype::U8, &[2, 2], mx.scales().to_vec()),
            ),
            (
                "o.weight".to_string(),
                tensor(Dtype::U8, &[2, 32], nv.codes().to_vec()),
            ),
            (
                "o.weight_scale".to_string(),
                tensor(Dtype::F8_E4M3, &[2, 4], nv.scales().to_vec()),
            ),
            (
                "o.weight_scale_2".to_string(),
                tensor(
                    Dtype::F32,
                    &[],
                    nv.tensor_scale().unwrap().to_le_bytes().to_vec(),
                ),
            ),
        ],
        None,
    )
    .unwrap();
    let (back, rep) = dequantize_bytes(&file, Format::F32).unwrap();
    let b = st::parse(&back).unwrap();
    assert_eq!(rep.dequantized.len(), 2);
    assert_eq!(part(&b, "experts.down").2, f32_bytes(&mx.dequantize()));
    assert_eq!(part(&b, "o.weight").2, f32_bytes(&nv.dequantize()));
}

#[test]
fn stats_measure_the_dequantized_values_against_the_input() {
    let mut w = values(2 * 64);
    w[5] = 0.0;
    let input = model(&w, &[2, 64]);
    let mut job = QuantizeJob::new(Scheme::Mxfp4);
    job.stats = true;
    let (_, report) = quantize_bytes(&job, &input).unwrap();
    let q = quantize(
        Source::F32(&w),
        &[2, 64],
        -1,
        Scheme::Mxfp4,
        &Options::default(),
    )
    .unwrap();
    let y = q.dequantize();
    let e = report.quantized[0].error.unwrap();
    assert_eq!(e.total, 128);
    let exact = w.iter().zip(&y).filter(|(a, b)| a == b).count() as u64;
    assert_eq!(e.exact, exact);
    let max_abs = w
        .iter()
        .zip(&y)
        .map(|(a, b)| (f64::from(*b) - f64::from(*a)).abs())
        .fold(0.0, f64::max);
    assert_eq!(e.max_abs_error, max_abs);
    let flushed = w
        .iter()
        .zip(&y)
        .filter(|(a, b)| **a != 0.0 && **b == 0.0)
        .count() as u64;
    assert_eq!(e.flushed_to_zero, flushed);
    assert_eq!(
        e.saturated,
        q.stats().elements.get(npusim_numerics::Status::SATURATED)
    );
    assert_eq!(report.total_error().unwrap(), e);
    assert_eq!(report.total_blocks(), *q.stats());
}

#[test]
fn refusals_name_the_tensor_shape_and_axis_and_write_nothing() {
    let input = model(&values(4 * 64), &[4, 64]);
    let msg = |job: &QuantizeJob| quantize_bytes(job, &input).err().unwrap().to_string();
    let mut job = QuantizeJob::new(Scheme::Mxfp4);
    job.axis = 2;
    let m = msg(&job);
    assert!(m.starts_with("tensor `w` (shape [4, 64], axis 2): "), "{m}");
    assert!(m.contains("axis"), "{m}");
    let mut job = QuantizeJob::new(Scheme::Mxfp4);
    job.tensors = vec!["ids".into()];
    assert_eq!(
        msg(&job),
        "tensor `ids` is I32 with shape [3]: only F32, F64, F16 and BF16 tensors can be quantized"
    );
    job.tensors = vec!["nope*".into()];
    assert_eq!(
        msg(&job),
        "tensor pattern `nope*` matches no tensor of the file (3 tensors: bias, w, ids)"
    );
    job.tensors = vec![];
    job.exclude = vec!["w".into()];
    assert!(matches!(
        quantize_bytes(&job, &input),
        Err(QuantizeError::NothingToQuantize { tensors: 3 })
    ));
    // A 1-d tensor named explicitly is quantised.
    let mut job = QuantizeJob::new(Scheme::Mxfp8E5m2);
    job.tensors = vec!["b*".into()];
    let (out, _) = quantize_bytes(&job, &input).unwrap();
    let f = st::parse(&out).unwrap();
    assert_eq!(part(&f, "bias_scales").1, vec![1]);
    assert_eq!(part(&f, "w").0, Dtype::F32);
    // A part's name already in the file.
    let clash = st::to_bytes(
        &[
            (
                "w".to_string(),
                tensor(Dtype::F32, &[1, 32], f32_bytes(&values(32))),
            ),
            ("w_scales".to_string(), tensor(Dtype::U8, &[1], vec![0])),
        ],
        None,
    )
    .unwrap();
    let m = quantize_bytes(&QuantizeJob::new(Scheme::Mxfp4), &clash)
        .err()
        .unwrap()
        .to_string();
    assert_eq!(
        m,
        "cannot quantize tensor `w`: its stored part would be `w_scales`, which the file already holds"
    );
    // quantize_file writes nothing when it refuses.
    let dir = tempfile::tempdir().unwrap();
    let inp = dir.path().join("in.safetensors");
    let outp = dir.path().join("out.safetensors");
    std::fs::write(&inp, &input).unwrap();
    let mut job = QuantizeJob::new(Scheme::Mxfp4);
    job.axis = -3;
    assert!(quantize_file(&job, &inp, &outp).is_err());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    quantize_file(&QuantizeJob::new(Scheme::Mxfp4), &inp, &outp).unwrap();
    assert!(outp.exists());
}

#[test]
fn dequantize_refuses_a_file_without_quantized_tensors_and_broken_parts() {
    let input = model(&values(64), &[2, 32]);
    assert_eq!(
        dequantize_bytes(&input, Format::F32)
            .err()
            .unwrap()
            .to_string(),
        "no quantized tensor found: the file has neither npusim.quantize.* records nor *_blocks/*_scales pairs or weight_scale_2 triples"
    );
    let (out, _) = quantize_bytes(&QuantizeJob::new(Scheme::Mxfp4), &input).unwrap();
    assert_eq!(
        dequantize_bytes(&out, Format::F8E4M3FN)
            .err()
            .unwrap()
            .to_string(),
        "dequantized tensors are written as f32, bf16, f16 or f64, not f8e4m3fn"
    );
    // The record without its scales tensor.
    let f = st::parse(&out).unwrap();
    let kept: Vec<(String, OutTensor<'_>)> = f
        .names
        .iter()
        .filter(|n| *n != "w_scales")
        .map(|n| {
            let t = f.tensor(n).unwrap();
            (n.clone(), tensor(t.dtype, t.shape, t.data.to_vec()))
        })
        .collect();
    let broken = st::to_bytes(&kept, f.metadata.as_ref()).unwrap();
    assert_eq!(
        dequantize_bytes(&broken, Format::F32)
            .err()
            .unwrap()
            .to_string(),
        "quantized tensor `w` (mxfp4): its scales tensor `w_scales` is not in the file"
    );
}

/// A three-shard checkpoint directory: `w0` f32 + `norm` in shard 1, `w1` bf16 + `ids` in
/// shard 2, only `norm2` in shard 3, a `config.json`, and the index.
fn checkpoint(dir: &std::path::Path) -> (Vec<f32>, Vec<u16>) {
    let w0 = values(2 * 64);
    let w1: Vec<u16> = values(2 * 32)
        .iter()
        .map(|x| (x.to_bits() >> 16) as u16)
        .collect();
    let shards = [
        vec![
            (
                "w0".to_string(),
                tensor(Dtype::F32, &[2, 64], f32_bytes(&w0)),
            ),
            (
                "norm".to_string(),
                tensor(Dtype::F32, &[4], f32_bytes(&[1.0, 2.0, 3.0, 4.0])),
            ),
        ],
        vec![
            (
                "w1".to_string(),
                tensor(
                    Dtype::BF16,
                    &[2, 32],
                    w1.iter().flat_map(|x| x.to_le_bytes()).collect(),
                ),
            ),
            (
                "ids".to_string(),
                tensor(Dtype::I64, &[1], 5i64.to_le_bytes().to_vec()),
            ),
        ],
        vec![(
            "norm2".to_string(),
            tensor(Dtype::F32, &[2], f32_bytes(&[0.5, 0.25])),
        )],
    ];
    let mut map = serde_json::Map::new();
    for (i, s) in shards.iter().enumerate() {
        let file = format!("model-0000{}-of-00003.safetensors", i + 1);
        std::fs::write(dir.join(&file), st::to_bytes(s, None).unwrap()).unwrap();
        for (n, _) in s {
            map.insert(n.clone(), serde_json::json!(file));
        }
    }
    let index =
        serde_json::json!({"metadata": {"total_size": 1, "format": "pt"}, "weight_map": map});
    std::fs::write(dir.join("model.safetensors.index.json"), index.to_string()).unwrap();
    std::fs::write(dir.join("config.json"), "{\"model_type\": \"tiny\"}").unwrap();
    (w0, w1)
}

fn index_of(dir: &std::path::Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("model.safetensors.index.json")).unwrap())
        .unwrap()
}

#[test]
fn a_sharded_checkpoint_directory_round_trips_with_its_index() {
    use npusim_io::quantize::{dequantize_dir, quantize_dir};
    let root = tempfile::tempdir().unwrap();
    let input = root.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let (w0, w1) = checkpoint(&input);
    let q_dir = root.path().join("q");
    let rep = quantize_dir(&QuantizeJob::new(Scheme::Mxfp4), &input, &q_dir).unwrap();
    assert_eq!(
        rep.quantized
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["w0", "w1"]
    );
    let idx = index_of(&q_dir);
    let map = idx["weight_map"].as_object().unwrap();
    let shard = |n: &str| map[n].as_str().unwrap().to_string();
    let mut names: Vec<&String> = map.keys().collect();
    names.sort();
    assert_eq!(
        names,
        [
            "ids",
            "norm",
            "norm2",
            "w0_blocks",
            "w0_scales",
            "w1_blocks",
            "w1_scales"
        ]
    );
    assert_eq!(shard("w0_blocks"), "model-00001-of-00003.safetensors");
    assert_eq!(shard("w1_scales"), "model-00002-of-00003.safetensors");
    assert_eq!(shard("norm2"), "model-00003-of-00003.safetensors");
    assert_eq!(idx["metadata"]["format"], "pt");
    let mut total = 0;
    for s in [
        "model-00001-of-00003.safetensors",
        "model-00002-of-00003.safetensors",
        "model-00003-of-00003.safetensors",
    ] {
        total += st::parse(&std::fs::read(q_dir.join(s)).unwrap())
            .unwrap()
            .data
            .len();
    }
    assert_eq!(idx["metadata"]["total_size"], total);
    assert_eq!(
        std::fs::read(q_dir.join("config.json")).unwrap(),
        b"{\"model_type\": \"tiny\"}"
    );
    let s1 = std::fs::read(q_dir.join("model-00001-of-00003.safetensors")).unwrap();
    let q0 = quantize(
        Source::F32(&w0),
        &[2, 64],
        -1,
        Scheme::Mxfp4,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(part(&st::parse(&s1).unwrap(), "w0_blocks").2, q0.codes());
    // Back.
    let d_dir = root.path().join("d");
    let rep = dequantize_dir(&q_dir, &d_dir, Format::F32).unwrap();
    assert_eq!(rep.dequantized.len(), 2);
    let idx = index_of(&d_dir);
    let mut names: Vec<&String> = idx["weight_map"].as_object().unwrap().keys().collect();
    names.sort();
    assert_eq!(names, ["ids", "norm", "norm2", "w0", "w1"]);
    let q1 = quantize(
        Source::BF16(&w1),
        &[2, 32],
        -1,
        Scheme::Mxfp4,
        &Options::default(),
    )
    .unwrap();
    let s2 = std::fs::read(d_dir.join("model-00002-of-00003.safetensors")).unwrap();
    assert_eq!(
        part(&st::parse(&s2).unwrap(), "w1").2,
        f32_bytes(&q1.dequantize())
    );
    let s1 = std::fs::read(d_dir.join("model-00001-of-00003.safetensors")).unwrap();
    assert_eq!(
        part(&st::parse(&s1).unwrap(), "w0").2,
        f32_bytes(&q0.dequantize())
    );
}

#[test]
fn a_checkpoint_directory_is_refused_before_anything_is_written() {
    use npusim_io::quantize::quantize_dir;
    let root = tempfile::tempdir().unwrap();
    let input = root.path().join("in");
    std::fs::create_dir(&input).unwrap();
    checkpoint(&input);
    let out = root.path().join("q");
    let msg = |job: &QuantizeJob, out: &std::path::Path| {
        quantize_dir(job, &input, out).err().unwrap().to_string()
    };
    let mut job = QuantizeJob::new(Scheme::Mxfp4);
    job.tensors = vec!["nope".into()];
    assert!(
        msg(&job, &out)
            .starts_with("tensor pattern `nope` matches no tensor of the file (5 tensors: ")
    );
    // A pattern matching in one shard only is fine for the checkpoint.
    job.tensors = vec!["norm2".into()];
    job.exclude = vec!["norm2".into()];
    assert!(matches!(
        quantize_dir(&job, &input, &out),
        Err(QuantizeError::NothingToQuantize { tensors: 5 })
    ));
    assert!(!out.exists());
    // An axis out of range for a selected tensor is found from the headers, before any write.
    let mut job = QuantizeJob::new(Scheme::Mxfp4);
    job.tensors = vec!["*".into()];
    job.axis = 1;
    assert_eq!(
        msg(&job, &out),
        "tensor `norm` (shape [4], axis 1): axis 1 is out of range for a shape of 1 dimensions (valid: -1..1)"
    );
    assert!(!out.exists());
    let m = msg(&QuantizeJob::new(Scheme::Mxfp4), &input);
    assert!(
        m.starts_with("the output directory is the input directory"),
        "{m}"
    );
    assert_eq!(std::fs::read_dir(&input).unwrap().count(), 5);
    std::fs::write(
        input.join("model.safetensors.index.json"),
        "{\"metadata\": {}}",
    )
    .unwrap();
    let m = msg(&QuantizeJob::new(Scheme::Mxfp4), &out);
    assert!(
        m.ends_with(
            "model.safetensors.index.json` is not a checkpoint index: it has no `weight_map` object"
        ),
        "{m}"
    );
    assert!(!out.exists());
}
