//! The files `quantize` writes against torchao, the tool their layouts come from: the
//! vectors of `tools/check_torchao_loaders.py` (torch 2.15.0, torchao 0.18.0, CPU), which
//! loaded npusim's MXFP4 and NVFP4 outputs with torchao's own functions
//! (`mx_tensor.to_dtype`, `NVFP4Tensor(...).dequantize`), found them equal to `npusim
//! dequantize` bit for bit, and recorded torchao's own quantisation of the same input
//! (`to_mx` with FLOOR, `NVFP4Tensor.to_nvfp4` with the per-tensor scale from the amax):
//! codes, scales and dequantised f32 values. Here, without torch, the library's output for
//! that input must be those bytes, part for part, and its dequantisation those values.

use std::path::PathBuf;

use npusim_io::quantize::{QuantizeJob, dequantize_bytes, quantize_bytes};
use npusim_io::safetensors as st;
use npusim_numerics::Format;
use npusim_numerics::block::Scheme;

fn vectors() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/quantize_torchao")
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

fn bytes_of<'a>(f: &'a st::SafetensorsFile<'_>, name: &str) -> &'a [u8] {
    f.tensor(name)
        .unwrap_or_else(|| panic!("no tensor `{name}` in {:?}", f.names))
        .data
}

#[test]
fn mxfp4_and_nvfp4_outputs_are_torchaos_bits() {
    let input = std::fs::read(vectors().join("input.safetensors")).expect("input vector");
    let text = std::fs::read_to_string(vectors().join("torchao.json")).expect("torchao vector");
    let want: serde_json::Value = serde_json::from_str(&text).expect("json");
    let mut checked = 0;
    for scheme in [Scheme::Mxfp4, Scheme::Nvfp4] {
        let (out, _) = quantize_bytes(&QuantizeJob::new(scheme), &input).expect("quantize");
        let (back, _) = dequantize_bytes(&out, Format::F32).expect("dequantize");
        let (q, b) = (
            st::parse(&out).expect("output"),
            st::parse(&back).expect("back"),
        );
        let tensors = want[scheme.name()].as_object().expect("scheme's tensors");
        for (name, t) in tensors {
            let field = |k: &str| unhex(t[k].as_str().expect("hex field"));
            let (codes, scales) = match scheme {
                Scheme::Mxfp4 => (format!("{name}_blocks"), format!("{name}_scales")),
                _ => (name.clone(), format!("{name}_scale")),
            };
            assert_eq!(
                bytes_of(&q, &codes),
                field("codes"),
                "{scheme} {name} codes"
            );
            assert_eq!(
                bytes_of(&q, &scales),
                field("scales"),
                "{scheme} {name} scales"
            );
            if scheme == Scheme::Nvfp4 {
                let p = bytes_of(&q, &format!("{name}_scale_2"));
                assert_eq!(p, field("tensor_scale"), "{name} tensor scale");
            }
            let deq = field("dequantized_f32");
            let ours = bytes_of(&b, name);
            let at = (0..deq.len() / 4).find(|&i| ours[4 * i..4 * i + 4] != deq[4 * i..4 * i + 4]);
            assert_eq!(ours.len(), deq.len(), "{scheme} {name}");
            assert_eq!(
                at, None,
                "{scheme} {name}: first f32 differing from torchao's"
            );
            checked += deq.len() / 4;
        }
    }
    // 2 048 + 512 elements per scheme
    assert_eq!(checked, 2 * (2048 + 512));
}
