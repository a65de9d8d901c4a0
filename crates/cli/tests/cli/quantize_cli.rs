//! `npusim quantize` / `npusim dequantize` on small `.safetensors` files written here: the
//! published layouts (gpt-oss's MXFP4 `_blocks`/`_scales` pair, ModelOpt's NVFP4
//! weight/`_scale`/`_scale_2` triple), codes and scales equal to
//! `npusim_numerics::block::quantize`, kept tensors byte for byte, the round trip, `--stats
//! --json`, and refused inputs that leave no output.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use npusim_numerics::block::{Options, ScaleRule, Scheme, Source, quantize};
use safetensors::tensor::TensorView;
use safetensors::{Dtype, SafeTensors};

fn npusim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_npusim"))
}

fn weights(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let x = ((i * 53 % 97) as f32 - 48.0) / 5.0;
            if (i / 16) % 4 == 3 { x * 1e-2 } else { x }
        })
        .collect()
}

fn bytes(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Writes `in.safetensors`: `w` f32 [2, 64], `norm` f32 [64], `ids` i64 [2].
fn model(dir: &Path, w: &[f32]) -> PathBuf {
    let wb = bytes(w);
    let nb = bytes(&weights(64));
    let ib: Vec<u8> = [7i64, 9].iter().flat_map(|x| x.to_le_bytes()).collect();
    let tensors = vec![
        ("w", TensorView::new(Dtype::F32, vec![2, 64], &wb).unwrap()),
        ("norm", TensorView::new(Dtype::F32, vec![64], &nb).unwrap()),
        ("ids", TensorView::new(Dtype::I64, vec![2], &ib).unwrap()),
    ];
    let meta = HashMap::from([("format".to_string(), "pt".to_string())]);
    let path = dir.join("in.safetensors");
    safetensors::serialize_to_file(tensors, Some(meta), &path).unwrap();
    path
}

fn part(bytes: &[u8], name: &str) -> (Dtype, Vec<usize>, Vec<u8>) {
    let f = SafeTensors::deserialize(bytes).unwrap();
    let t = f
        .tensor(name)
        .unwrap_or_else(|_| panic!("no `{name}` in {:?}", f.names()));
    (t.dtype(), t.shape().to_vec(), t.data().to_vec())
}

fn files(dir: &Path) -> usize {
    std::fs::read_dir(dir).unwrap().count()
}

#[test]
fn mxfp4_writes_blocks_and_scales_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let w = weights(128);
    let input = model(dir.path(), &w);
    let out = dir.path().join("q.safetensors");
    let run = npusim()
        .args(["quantize"])
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .args(["--scheme", "mxfp4", "--scale-rule", "even"])
        .assert()
        .success();
    let stdout = String::from_utf8(run.get_output().stdout.clone()).unwrap();
    assert_eq!(
        stdout,
        "w: F32 [2, 64] -> mxfp4/even along axis 1: w_blocks, w_scales\nids: kept (not a floating tensor)\nnorm: kept (fewer than 2 dimensions)\n"
    );
    let q = quantize(
        Source::F32(&w),
        &[2, 64],
        -1,
        Scheme::Mxfp4,
        &Options::with_rule(ScaleRule::Even),
    )
    .unwrap();
    let o = std::fs::read(&out).unwrap();
    assert_eq!(
        part(&o, "w_blocks"),
        (Dtype::U8, vec![2, 2, 16], q.codes().to_vec())
    );
    assert_eq!(
        part(&o, "w_scales"),
        (Dtype::U8, vec![2, 2], q.scales().to_vec())
    );
    let i = std::fs::read(&input).unwrap();
    assert_eq!(part(&o, "norm"), part(&i, "norm"));
    assert_eq!(part(&o, "ids"), part(&i, "ids"));
    let (_, meta) = SafeTensors::read_metadata(&o).unwrap();
    let meta = meta.metadata().clone().unwrap();
    assert_eq!(meta["format"], "pt");
    assert_eq!(
        meta["npusim.quantize.w"],
        r#"{"scheme":"mxfp4","scale_rule":"even","axis":1,"shape":[2,64],"dtype":"F32"}"#
    );
    assert_eq!(SafeTensors::deserialize(&o).unwrap().len(), 4);
}

#[test]
fn nvfp4_triple_round_trips_through_dequantize_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let w = weights(128);
    let input = model(dir.path(), &w);
    let q_path = dir.path().join("q.safetensors");
    npusim()
        .arg("quantize")
        .arg(&input)
        .arg("-o")
        .arg(&q_path)
        .args(["--scheme", "nvfp4", "-q"])
        .assert()
        .success()
        .stdout("");
    let q = quantize(
        Source::F32(&w),
        &[2, 64],
        -1,
        Scheme::Nvfp4,
        &Options::default(),
    )
    .unwrap();
    let o = std::fs::read(&q_path).unwrap();
    assert_eq!(part(&o, "w"), (Dtype::U8, vec![2, 32], q.codes().to_vec()));
    assert_eq!(
        part(&o, "w_scale"),
        (Dtype::F8_E4M3, vec![2, 4], q.scales().to_vec())
    );
    assert_eq!(
        part(&o, "w_scale_2"),
        (
            Dtype::F32,
            vec![],
            q.tensor_scale().unwrap().to_le_bytes().to_vec()
        )
    );
    let back = dir.path().join("d.safetensors");
    npusim()
        .arg("dequantize")
        .arg(&q_path)
        .arg("-o")
        .arg(&back)
        .assert()
        .success()
        .stdout("w: nvfp4 [2, 64] (w, w_scale, w_scale_2) -> f32\nids: kept\nnorm: kept\n");
    let d = std::fs::read(&back).unwrap();
    assert_eq!(
        part(&d, "w"),
        (Dtype::F32, vec![2, 64], bytes(&q.dequantize()))
    );
    let i = std::fs::read(&input).unwrap();
    assert_eq!(part(&d, "norm"), part(&i, "norm"));
    let back16 = dir.path().join("d16.safetensors");
    npusim()
        .arg("dequantize")
        .arg(&q_path)
        .arg("-o")
        .arg(&back16)
        .args(["--to", "bf16", "-q"])
        .assert()
        .success();
    let want: Vec<u8> = q
        .dequantize_to(npusim_numerics::Format::BF16)
        .unwrap()
        .iter()
        .flat_map(|&c| (c as u16).to_le_bytes())
        .collect();
    assert_eq!(
        part(&std::fs::read(&back16).unwrap(), "w"),
        (Dtype::BF16, vec![2, 64], want)
    );
}

#[test]
fn every_mx_scheme_and_rule_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let w = weights(128);
    let input = model(dir.path(), &w);
    for scheme in [
        "mxfp8-e4m3",
        "mxfp8-e5m2",
        "mxfp6-e3m2",
        "mxfp6-e2m3",
        "mxint8",
        "mxfp4",
    ] {
        for rule in ["floor", "ceil", "even", "rceil"] {
            let q_path = dir.path().join("q.safetensors");
            let d_path = dir.path().join("d.safetensors");
            npusim()
                .arg("quantize")
                .arg(&input)
                .arg("-o")
                .arg(&q_path)
                .args(["--scheme", scheme, "--scale-rule", rule, "-q"])
                .assert()
                .success();
            npusim()
                .arg("dequantize")
                .arg(&q_path)
                .arg("-o")
                .arg(&d_path)
                .arg("-q")
                .assert()
                .success();
            let s: Scheme = scheme.parse().unwrap();
            let r: ScaleRule = rule.parse().unwrap();
            let q = quantize(Source::F32(&w), &[2, 64], -1, s, &Options::with_rule(r)).unwrap();
            let d = std::fs::read(&d_path).unwrap();
            assert_eq!(part(&d, "w").2, bytes(&q.dequantize()), "{scheme} {rule}");
        }
    }
}

#[test]
fn stats_json_reports_errors_and_block_shares() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = weights(128);
    w[3] = 1e30; // a block whose elements flush below its huge scale
    let input = model(dir.path(), &w);
    let out = dir.path().join("q.safetensors");
    let run = npusim()
        .arg("quantize")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .args(["--scheme", "mxfp8-e4m3", "--json"])
        .assert()
        .success();
    let doc: serde_json::Value = serde_json::from_slice(&run.get_output().stdout).unwrap();
    let q = quantize(
        Source::F32(&w),
        &[2, 64],
        -1,
        Scheme::Mxfp8E4m3,
        &Options::default(),
    )
    .unwrap();
    let y = q.dequantize();
    let t = &doc["tensors"][0];
    assert_eq!(t["name"], "w");
    assert_eq!(t["parts"], serde_json::json!(["w_blocks", "w_scales"]));
    let e = &t["error"];
    assert_eq!(e["elements"], 128);
    let exact = w.iter().zip(&y).filter(|(a, b)| a == b).count();
    let flushed = w
        .iter()
        .zip(&y)
        .filter(|(a, b)| **a != 0.0 && **b == 0.0)
        .count();
    assert_eq!(e["exact"], exact);
    assert_eq!(e["flushed_to_zero"], flushed);
    assert!(flushed > 0);
    let max_abs = w
        .iter()
        .zip(&y)
        .map(|(a, b)| (f64::from(*b) - f64::from(*a)).abs())
        .fold(0.0, f64::max);
    assert_eq!(e["max_abs_error"].as_f64().unwrap(), max_abs);
    assert_eq!(t["blocks"]["blocks"], 4);
    assert_eq!(doc["total"]["error"], *e);
    assert_eq!(doc["tensors"][1]["action"], "kept");
    // The text table has one row per tensor and a total.
    let run = npusim()
        .arg("quantize")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .args(["--scheme", "mxfp4", "--stats", "-q"])
        .assert()
        .success();
    let text = String::from_utf8(run.get_output().stdout.clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].starts_with("tensor") && lines[0].ends_with("scale low %  scale high %"),
        "{text}"
    );
    assert!(
        lines[1].starts_with("w ") && lines[2].starts_with("total "),
        "{text}"
    );
}

/// Runs a refused command: its error message; the directory holds only the input.
fn refused(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let input = model(dir.path(), &weights(128));
    let out = dir.path().join("q.safetensors");
    let run = npusim()
        .arg("quantize")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .args(args)
        .assert()
        .failure();
    assert_eq!(files(dir.path()), 1, "{args:?} left an output");
    String::from_utf8(run.get_output().stderr.clone()).unwrap()
}

#[test]
fn refused_inputs_say_why_and_leave_no_output() {
    let e = refused(&["--scheme", "mxfp3"]);
    assert!(e.contains("unknown block scheme `mxfp3`; valid schemes: mxfp4 mxfp6-e2m3 mxfp6-e3m2 mxfp8-e4m3 mxfp8-e5m2 mxint8 nvfp4"), "{e}");
    let e = refused(&["--scheme", "mxfp4", "--scale-rule", "up"]);
    assert!(
        e.contains("unknown scale rule `up`; valid rules: floor ceil even rceil"),
        "{e}"
    );
    let e = refused(&["--scheme", "mxfp4", "--axis", "2"]);
    assert!(
        e.contains("error: quantizing `") && e.contains("tensor `w` (shape [2, 64], axis 2): "),
        "{e}"
    );
    // The reason is said once (not again as the error's cause).
    assert_eq!(
        e.matches("axis 2 is out of range for a shape of 2 dimensions")
            .count(),
        1,
        "{e}"
    );
    let e = refused(&["--scheme", "mxfp4", "--axis", "-3"]);
    assert!(e.contains("tensor `w` (shape [2, 64], axis -3): "), "{e}");
    let e = refused(&["--scheme", "mxfp4", "--tensor", "ids"]);
    assert!(e.contains("tensor `ids` is I64 with shape [2]: only F32, F64, F16 and BF16 tensors can be quantized"), "{e}");
    let e = refused(&["--scheme", "nvfp4", "--scale-rule", "ceil"]);
    assert!(
        e.contains(
            "--scale-rule ceil chooses e8m0 scales and applies only to the MX schemes; nvfp4"
        ),
        "{e}"
    );
    let e = refused(&["--scheme", "mxfp4", "--exclude", "w"]);
    assert!(
        e.contains("no tensor would be quantized: all 3 tensor(s) are kept"),
        "{e}"
    );
    let e = refused(&["--scheme", "mxfp4", "--tensor", "x*"]);
    assert!(
        e.contains("tensor pattern `x*` matches no tensor of the file (3 tensors: "),
        "{e}"
    );
}

#[test]
fn dequantize_refuses_a_plain_file_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = model(dir.path(), &weights(128));
    let out = dir.path().join("d.safetensors");
    let run = npusim()
        .arg("dequantize")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .assert()
        .failure();
    let e = String::from_utf8(run.get_output().stderr.clone()).unwrap();
    assert!(e.contains("no quantized tensor found"), "{e}");
    assert_eq!(files(dir.path()), 1);
}

#[test]
fn a_checkpoint_directory_in_gives_a_directory_with_the_same_index_structure_out() {
    let root = tempfile::tempdir().unwrap();
    let input = root.path().join("ckpt");
    std::fs::create_dir(&input).unwrap();
    let w = weights(128);
    let shard = model(&input, &w);
    std::fs::rename(&shard, input.join("model-00001-of-00001.safetensors")).unwrap();
    let index = serde_json::json!({
        "metadata": {"total_size": 0},
        "weight_map": {
            "w": "model-00001-of-00001.safetensors",
            "norm": "model-00001-of-00001.safetensors",
            "ids": "model-00001-of-00001.safetensors"
        }
    });
    std::fs::write(
        input.join("model.safetensors.index.json"),
        index.to_string(),
    )
    .unwrap();
    let q = root.path().join("q");
    npusim()
        .arg("quantize")
        .arg(&input)
        .arg("-o")
        .arg(&q)
        .args(["--scheme", "mxfp4", "-q"])
        .assert()
        .success();
    let idx: serde_json::Value =
        serde_json::from_slice(&std::fs::read(q.join("model.safetensors.index.json")).unwrap())
            .unwrap();
    assert_eq!(
        idx["weight_map"]["w_blocks"],
        "model-00001-of-00001.safetensors"
    );
    assert_eq!(
        idx["weight_map"]["w_scales"],
        "model-00001-of-00001.safetensors"
    );
    assert!(idx["weight_map"].get("w").is_none());
    let d = root.path().join("d");
    npusim()
        .arg("dequantize")
        .arg(&q)
        .arg("-o")
        .arg(&d)
        .arg("-q")
        .assert()
        .success();
    let qz = quantize(
        Source::F32(&w),
        &[2, 64],
        -1,
        Scheme::Mxfp4,
        &Options::default(),
    )
    .unwrap();
    let back = std::fs::read(d.join("model-00001-of-00001.safetensors")).unwrap();
    assert_eq!(
        part(&back, "w"),
        (Dtype::F32, vec![2, 64], bytes(&qz.dequantize()))
    );
    let idx: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("model.safetensors.index.json")).unwrap())
            .unwrap();
    assert_eq!(idx["weight_map"]["w"], "model-00001-of-00001.safetensors");
}

#[test]
fn an_output_that_is_the_input_is_refused_and_the_input_kept() {
    let dir = tempfile::tempdir().unwrap();
    let input = model(dir.path(), &weights(128));
    let before = std::fs::read(&input).unwrap();
    for cmd in [&["quantize", "--scheme", "mxfp4"][..], &["dequantize"][..]] {
        let run = npusim()
            .args(&cmd[..1])
            .arg(&input)
            .arg("-o")
            .arg(&input)
            .args(&cmd[1..])
            .assert()
            .failure();
        let e = String::from_utf8(run.get_output().stderr.clone()).unwrap();
        assert!(e.contains("is the input: write to another file"), "{e}");
        assert_eq!(std::fs::read(&input).unwrap(), before);
    }
}
