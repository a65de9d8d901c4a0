//! The into-buffer quantiser (`block::quantize_into`): the codes and scales it writes into
//! caller-provided buffers, whatever they held before, are the reference routine's bits
//! (`block::quantize_reference`) on every input class, scheme, rule, rounding mode, shape,
//! axis and instruction-set level, with the same tensor scale and counts; a buffer of the
//! wrong length is refused with both lengths named, before anything is written.

use npusim_numerics::KernelChoice;
use npusim_numerics::block::{
    BlockError, Options, Scheme, Source, quantize, quantize_into, quantize_reference,
};

use crate::block_sweep::{Rng, for_each_case, levels};

/// Every class, scheme, rule, mode, shape and level into buffers filled with a junk byte
/// first: every byte written is the reference routine's.
#[test]
fn into_buffers_match_the_reference_whatever_they_held() {
    let levels = levels();
    let mut rng = Rng(0x1a70_b0ff);
    for_each_case(&mut rng, |c| {
        let (shape, axis, scheme, opts) = (c.shape, c.axis, c.scheme, &c.opts);
        let src = Source::F32(c.values);
        let reference =
            quantize_reference(src, shape, axis, scheme, opts).expect("reference quantize");
        let mut choices: Vec<KernelChoice> =
            levels.iter().map(|&l| KernelChoice::Level(l)).collect();
        choices.push(KernelChoice::Reference);
        for kernels in choices {
            for junk in [0x00u8, 0xA5, 0xFF] {
                let mut codes = vec![junk; reference.codes().len()];
                let mut scales = vec![junk; reference.scales().len()];
                let summary = quantize_into(
                    src,
                    shape,
                    axis,
                    scheme,
                    opts,
                    kernels,
                    &mut codes,
                    &mut scales,
                )
                .expect("into-buffer quantize");
                let what = format!(
                    "{scheme} {:?} {:?} {:?} shape {shape:?} axis {axis} {kernels:?} junk \
                     {junk:#x}",
                    opts.scale_rule, opts.tensor_scale, opts.policy.round
                );
                assert_eq!(codes, reference.codes(), "codes of {what}");
                assert_eq!(scales, reference.scales(), "scales of {what}");
                assert_eq!(
                    summary.tensor_scale.map(f32::to_bits),
                    reference.tensor_scale().map(f32::to_bits),
                    "{what}"
                );
                assert_eq!(&summary.stats, reference.stats(), "{what}");
                assert_eq!(&summary.layout, reference.layout(), "{what}");
            }
        }
    });
}

/// A codes or scales buffer one byte short or long is refused, naming the buffer, its
/// length and the length the shape needs, and the buffers are left as they were.
#[test]
fn a_buffer_of_the_wrong_length_is_refused_untouched() {
    let v: Vec<f32> = (0..96).map(|i| i as f32 - 40.0).collect();
    let shape = [3, 32];
    for (scheme, codes_len, scales_len) in [
        (Scheme::Mxfp8E4m3, 96, 3),
        (Scheme::Mxfp4, 48, 3),
        (Scheme::Nvfp4, 48, 6),
        (Scheme::Mxint8, 96, 3),
    ] {
        let opts = Options::default();
        let q = quantize(Source::F32(&v), &shape, -1, scheme, &opts).expect("quantize");
        assert_eq!((q.codes().len(), q.scales().len()), (codes_len, scales_len));
        for (c, s, what, len, needed) in [
            (
                codes_len - 1,
                scales_len,
                "the codes buffer",
                codes_len - 1,
                codes_len,
            ),
            (
                codes_len + 1,
                scales_len,
                "the codes buffer",
                codes_len + 1,
                codes_len,
            ),
            (
                codes_len,
                scales_len - 1,
                "the scales buffer",
                scales_len - 1,
                scales_len,
            ),
            (
                codes_len,
                scales_len + 1,
                "the scales buffer",
                scales_len + 1,
                scales_len,
            ),
        ] {
            let mut codes = vec![0x5Au8; c];
            let mut scales = vec![0x5Au8; s];
            let err = quantize_into(
                Source::F32(&v),
                &shape,
                -1,
                scheme,
                &opts,
                KernelChoice::Fastest,
                &mut codes,
                &mut scales,
            )
            .expect_err("a wrong length");
            match &err {
                BlockError::PartsLength {
                    what: w,
                    len: l,
                    needed: n,
                    ..
                } => assert_eq!((*w, *l, *n), (what, len, needed), "{scheme}"),
                other => panic!("{scheme}: {other:?}"),
            }
            let text = err.to_string();
            assert!(
                text.contains(what)
                    && text.contains(&format!("{len} bytes"))
                    && text.contains(&format!("needs {needed}")),
                "{text}"
            );
            assert!(
                codes.iter().chain(&scales).all(|&b| b == 0x5A),
                "{scheme} {what}"
            );
        }
    }
}
