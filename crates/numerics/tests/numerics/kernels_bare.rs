//! `bulk::bare_convert`, the hardware conversion alone that `npusim bench` times as a ceiling,
//! gives the reference cast's codes wherever the hardware rule and the reference agree, at
//! every instruction-set level the machine has (and the portable code under the reference
//! choice), on one thread and split over threads, streamed or not, from several destination
//! offsets: f32 → f16 / bf16 on every class but NaN (with AVX-512 BF16, f32 subnormals give
//! the signed zero), f32 → i8 on every class with NaN and values at or above 2^31 giving −128,
//! f16 / bf16 → f32 on every code but NaN (the reference quiets NaN; the instructions keep
//! or quiet payloads their own way).

use crate::kernel_support::{
    around, bytes, cast, common_classes, int_classes, mixed, options, random_f32, xorshift,
};

use npusim_numerics::bulk::{SimdLevel, bare_convert};
use npusim_numerics::{BulkOptions, CastPolicy, Format, KernelChoice, Storage};

/// The choices to run: the portable code (the reference choice) and every level here.
fn choices() -> Vec<KernelChoice> {
    let mut v = vec![KernelChoice::Reference];
    v.extend(SimdLevel::available().into_iter().map(KernelChoice::Level));
    v
}

/// Whether `choice` converts f32 → bf16 by `vcvtne2ps2bf16` here.
fn hardware_bf16(choice: KernelChoice) -> bool {
    let level = matches!(choice, KernelChoice::Level(SimdLevel::Avx512))
        && SimdLevel::Avx512.is_available();
    #[cfg(target_arch = "x86_64")]
    let has = std::arch::is_x86_feature_detected!("avx512bf16");
    #[cfg(not(target_arch = "x86_64"))]
    let has = false;
    level && has
}

/// The variants of `base` to run: one thread, streamed from the first byte, and split over
/// threads from 2^13 elements on.
fn variants(base: BulkOptions) -> Vec<(&'static str, BulkOptions)> {
    vec![
        ("serial", base),
        (
            "streamed",
            BulkOptions {
                stream_threshold: 0,
                ..base
            },
        ),
        (
            "parallel",
            BulkOptions {
                parallel: true,
                parallel_threshold: 0,
                ..base
            },
        ),
    ]
}

/// Runs `bare_convert` from `src` (`n` elements of `s`) to `d` under every choice and variant,
/// at byte offsets 0, one element, 7 and 48 into a buffer of its own, and checks each element
/// with `check(i, got, want, choice)` against the reference cast's code `want`.
fn assert_agrees(
    src: &[u8],
    s: Format,
    d: Format,
    n: usize,
    check: impl Fn(usize, &[u8], &[u8], KernelChoice) -> Result<(), String>,
) {
    let (ss, ds) = (Storage::native(s), Storage::native(d));
    let dw = ds.bytes_for(1);
    let want = cast(
        src,
        ss,
        ds,
        n,
        &CastPolicy::default(),
        &options(KernelChoice::Reference, false),
    )
    .0;
    for choice in choices() {
        for (what, o) in variants(options(choice, false)) {
            for off in [0, dw, 7, 48] {
                let mut buf = vec![0x5Au8; off + dw * n];
                let dst = &mut buf[off..];
                assert_eq!(bare_convert(src, s, dst, d, n, &o), Ok(true));
                for i in 0..n {
                    let (g, w) = (&dst[dw * i..dw * (i + 1)], &want[dw * i..dw * (i + 1)]);
                    if let Err(e) = check(i, g, w, choice) {
                        panic!("{s} -> {d} {choice:?} {what} offset {off} element {i}: {e}");
                    }
                }
            }
        }
    }
}

/// `codes` repeated until there are at least `n`.
fn repeated(codes: &[u32], n: usize) -> Vec<u32> {
    codes
        .iter()
        .copied()
        .cycle()
        .take(n.max(codes.len()))
        .collect()
}

/// The f32 classes of the 16-bit float `d` (code `h` widens to `wide(h)`): [`common_classes`];
/// the largest finite value, the overflow tie and the smallest normal and subnormal with their
/// neighbours; 3,000 random codes of `d` widened, and the ties between each and the next code
/// up, with their neighbours; shuffled among as many random f32 codes.
fn half_classes(d: Format, wide: fn(u16) -> f32) -> Vec<u32> {
    let mut v = common_classes();
    let (max, min_normal) = if d == Format::F16 {
        (0x7BFF, 0x0400)
    } else {
        (0x7F7F, 0x0080)
    };
    let top = f64::from(wide(max));
    let tie = top + (top - f64::from(wide(max - 1))) / 2.0;
    for x in [top, tie, f64::from(wide(min_normal)), f64::from(wide(1))] {
        around((x as f32).to_bits(), 2, &mut v);
    }
    let mut r = xorshift(13);
    for _ in 0..3_000 {
        let h = (r() >> 40) as u16 & 0x7FFF;
        if h >= max {
            continue;
        }
        let (a, b) = (f64::from(wide(h)), f64::from(wide(h + 1)));
        around(wide(h).to_bits(), 1, &mut v);
        around((((a + b) / 2.0) as f32).to_bits(), 1, &mut v);
    }
    v.extend(random_f32(v.len(), 14));
    // Fisher-Yates, so the special values fall into some vector steps and not others
    for i in (1..v.len()).rev() {
        v.swap(i, (r() % (i as u64 + 1)) as usize);
    }
    v
}

/// The f32 value of f16 code `h`.
fn f16_value(h: u16) -> f32 {
    Format::F16.decode(u64::from(h)).to_f64() as f32
}

/// The f32 value of bf16 code `h`.
fn bf16_value(h: u16) -> f32 {
    f32::from_bits(u32::from(h) << 16)
}

#[test]
fn f32_to_f16_and_bf16_equal_the_reference_but_on_nan() {
    for d in [Format::F16, Format::BF16] {
        let wide = if d == Format::F16 {
            f16_value
        } else {
            bf16_value
        };
        let codes = half_classes(d, wide);
        let src = bytes(&codes);
        assert_agrees(&src, Format::F32, d, codes.len(), |i, g, w, choice| {
            let a = codes[i] & 0x7FFF_FFFF;
            if a > 0x7F80_0000 {
                return Ok(());
            }
            let signed_zero = ((codes[i] >> 16) as u16 & 0x8000).to_le_bytes();
            if g == w
                || (d == Format::BF16 && a < 0x80_0000 && hardware_bf16(choice) && g == signed_zero)
            {
                Ok(())
            } else {
                Err(format!("{:#010x} -> {g:02x?}, want {w:02x?}", codes[i]))
            }
        });
    }
}

#[test]
fn f32_to_i8_equals_the_reference_in_range_and_gives_minus_128_for_nan_and_from_2_to_the_31() {
    let codes = repeated(&mixed(&int_classes(Format::I8), 12), 20_000);
    let src = bytes(&codes);
    let nans = codes
        .iter()
        .filter(|c| *c & 0x7FFF_FFFF > 0x7F80_0000)
        .count();
    assert!(nans > 0, "no NaN among the classes");
    assert_agrees(&src, Format::F32, Format::I8, codes.len(), |i, g, w, _| {
        let x = f32::from_bits(codes[i]);
        let documented = x.is_nan() || x >= 2_147_483_648.0;
        let want = if documented { &[0x80u8][..] } else { w };
        if g == want {
            Ok(())
        } else {
            Err(format!(
                "{x:e} ({:#010x}) -> {g:02x?}, want {want:02x?}",
                codes[i]
            ))
        }
    });
}

#[test]
fn f16_and_bf16_to_f32_equal_the_reference_on_every_code_but_nan() {
    for s in [Format::F16, Format::BF16] {
        let codes: Vec<u16> = (0..=u16::MAX).collect();
        let src: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
        assert_agrees(&src, s, Format::F32, codes.len(), |i, g, w, _| {
            let nan = match s {
                Format::F16 => codes[i] & 0x7FFF > 0x7C00,
                _ => codes[i] & 0x7FFF > 0x7F80,
            };
            if nan {
                return Ok(());
            }
            if g == w {
                Ok(())
            } else {
                Err(format!("{:#06x} -> {g:02x?}, want {w:02x?}", codes[i]))
            }
        });
    }
}

#[test]
fn other_pairs_have_no_bare_conversion_and_sizes_are_checked() {
    let src = [0u8; 8];
    let mut dst = [0u8; 2];
    let o = BulkOptions::default();
    assert_eq!(
        bare_convert(&src, Format::F32, &mut dst, Format::U8, 2, &o),
        Ok(false)
    );
    assert_eq!(
        bare_convert(&src, Format::F32, &mut dst, Format::F8E4M3FN, 2, &o),
        Ok(false)
    );
    assert!(bare_convert(&src, Format::F32, &mut dst, Format::I8, 3, &o).is_err());
    assert_eq!(dst, [0, 0]);
}
