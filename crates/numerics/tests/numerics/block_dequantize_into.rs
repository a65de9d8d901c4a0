//! The into-buffer dequantiser (`Quantized::dequantize_f32_into`): every element code of every
//! scheme (the codes quantising never writes included: e4m3fn's NaN, e5m2's Inf and NaNs, every
//! 6-bit and MXINT8 code) under scale bytes across e8m0's range (2^-127, the NaN scale, the
//! top) and NVFP4's e4m3 scales with and without a tensor scale, at every instruction-set
//! level here, into buffers that held junk: the bits of the reference routine
//! (`dequantize_reference_to(F32)`); a buffer of the wrong length is refused with both lengths
//! named, untouched.

use npusim_numerics::block::{BlockError, Quantized, Scheme};
use npusim_numerics::{Format, KernelChoice};

use crate::block_sweep::levels;

/// Rows of 96 elements (three MX blocks, six NVFP4 blocks): every code appears, in turn, in
/// every position of a full block, with the row's scale bytes from `scales`.
fn tensor(scheme: Scheme, scales: &[u8], tensor_scale: Option<f32>) -> Quantized {
    let codes_per = 1usize << scheme.element().bits().min(8);
    let per_row = 96;
    let blocks_per_row = per_row / scheme.block_size();
    let rows = scales.len().max(codes_per.div_ceil(per_row) * 3);
    let n = rows * per_row;
    let codes: Vec<u8> = (0..n)
        .map(|i| ((i * 7 + i / per_row) % codes_per) as u8)
        .collect();
    let stored = if scheme.element() == Format::F4E2M1 {
        codes
            .chunks(2)
            .map(|p| (p[0] & 0x0F) | (p[1] << 4))
            .collect()
    } else {
        codes
    };
    let s: Vec<u8> = (0..rows * blocks_per_row)
        .map(|b| scales[b % scales.len()])
        .collect();
    Quantized::from_parts(scheme, &[rows, per_row], -1, stored, s, tensor_scale).expect("parts fit")
}

#[test]
fn every_code_under_every_kind_of_scale_matches_the_reference_at_every_level() {
    let mx_scales = [0u8, 1, 2, 60, 120, 127, 130, 200, 250, 254, 255];
    let nv_scales = [0u8, 1, 7, 8, 0x38, 0x40, 0x7E, 0x7F, 0x80, 0xB8, 0xFE, 0xFF];
    let mut cases = Vec::new();
    for scheme in Scheme::ALL {
        if scheme.is_mx() {
            cases.push(tensor(scheme, &mx_scales, None));
        } else {
            for ts in [None, Some(1.0f32), Some(3.0e-3), Some(1.0e30)] {
                cases.push(tensor(scheme, &nv_scales, ts));
            }
        }
    }
    for q in &cases {
        let want: Vec<u32> = q
            .dequantize_reference_to(Format::F32)
            .expect("reference")
            .iter()
            .map(|&c| c as u32)
            .collect();
        let mut choices: Vec<KernelChoice> =
            levels().into_iter().map(KernelChoice::Level).collect();
        choices.push(KernelChoice::Fastest);
        for kernels in choices {
            for junk in [0.0f32, f32::NAN, -7.5] {
                let mut out = vec![junk; want.len()];
                q.dequantize_f32_into(&mut out, kernels)
                    .expect("a buffer of the right length");
                let got: Vec<u32> = out.iter().map(|x| x.to_bits()).collect();
                let at = got.iter().zip(&want).position(|(a, b)| a != b);
                assert_eq!(
                    at.map(|i| (i, got[i], want[i])),
                    None,
                    "{} tensor scale {:?} {kernels:?}: (index, fast, reference)",
                    q.scheme(),
                    q.tensor_scale()
                );
            }
        }
    }
}

#[test]
fn an_output_of_the_wrong_length_is_refused_untouched() {
    let q = tensor(Scheme::Mxfp8E4m3, &[127], None);
    let n = q.layout().len();
    for len in [0, n - 1, n + 1] {
        let mut out = vec![2.5f32; len];
        let err = q
            .dequantize_f32_into(&mut out, KernelChoice::Fastest)
            .expect_err("a wrong length");
        assert!(
            matches!(err, BlockError::OutputLength { len: l, needed, .. } if l == len && needed == n),
            "{err:?}"
        );
        let text = err.to_string();
        assert!(
            text.contains(&format!("holds {len} values"))
                && text.contains(&format!("has {n} elements")),
            "{text}"
        );
        assert!(out.iter().all(|&x| x == 2.5));
    }
}
