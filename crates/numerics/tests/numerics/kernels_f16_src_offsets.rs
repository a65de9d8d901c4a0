//! The f32 → f16 loop at AVX-512 starts, when it does not stream, at the source's first
//! 64-byte boundary (the elements before it by the AVX2 loop), and when it streams at the
//! destination's. It equals the reference bit for bit, codes and status counts, at every
//! level this machine has, for sources and destinations at many offsets past a 64-byte
//! boundary (4-byte steps, and not even 2- or 4-byte aligned), streamed and not, in every
//! mode under every policy with the Inf and NaN rules varied. The data: a block of the
//! normal band with a few NaN and ±Inf (the blocks after it take the special loop), a block
//! that mixes the band with f16 subnormals, zeros, ties, exact values, overflows, the largest
//! values, NaN payloads and ±Inf, a causal mask's −∞, and full random patterns.

use crate::kernel_support::{all_policies, bytes, f32s, fast_choices, options, random_f32};
use npusim_numerics::{
    BulkOptions, CastPolicy, Format, KernelChoice, StatusCounts, Storage, cast_elements_with_status,
};

/// NaN (quiet, signalling, payloads in the kept and the dropped bits, both signs) and ±Inf.
const SPECIALS: [u32; 7] = [
    0x7FC0_0000,
    0xFFC0_0001,
    0x7F80_0001,
    0xFF80_FFFF,
    0x7FA0_2000,
    0x7F80_0000,
    0xFF80_0000,
];

/// Lanes outside the band: a finite overflow, the largest finite f16 and just above, the
/// largest f32, a tie at the largest f16, f16 subnormals (one a tie), the smallest normal
/// f16 and just below, an f32 subnormal, zeros.
const EDGES: [u32; 12] = [
    0x477F_F000,
    0xC77F_E000,
    0x477F_E001,
    0x7F7F_FFFF,
    0xC77F_F000,
    0x3380_0000,
    0xB3A0_1000,
    0x3880_0000,
    0x387F_FFFF,
    0x0000_0001,
    0x0000_0000,
    0x8000_0000,
];

/// `n` f32 codes in blocks of 2048: by block modulo 4, the band with every 97th element NaN
/// or ±Inf; the band mixed with `EDGES`, small values and specials; a causal mask's rows
/// (−∞ after 300 values in each row of 1024); full random patterns.
fn data(n: usize, seed: u64) -> Vec<u32> {
    let r = random_f32(n, seed);
    (0..n)
        .map(|i| {
            let x = r[i];
            // a magnitude in the f16 normal band, every fourth exact, every fifth a tie
            let band = || {
                let c = (x & 0x807F_FFFF) | ((114 + (x >> 23) % 28) << 23);
                match i % 20 {
                    0 | 4 | 8 | 12 | 16 => c & 0xFFFF_E000,
                    5 | 15 => (c & 0xFFFF_E000) | 0x1000,
                    _ => c,
                }
            };
            match i / 2048 % 4 {
                0 if i % 97 == 0 => SPECIALS[i / 97 % SPECIALS.len()],
                0 => band(),
                1 => match i % 13 {
                    0 => SPECIALS[i / 13 % SPECIALS.len()],
                    3 | 7 => EDGES[i / 3 % EDGES.len()],
                    5 => (x & 0x807F_FFFF) | ((104 + (x >> 23) % 9) << 23),
                    _ => band(),
                },
                2 if i % 1024 > 300 => 0xFF80_0000,
                2 => band(),
                _ => x,
            }
        })
        .collect()
}

/// The cast of `src` (f32 codes) into f16 with the source at `src_off` and the destination
/// at `dst_off` bytes past a 64-byte boundary, streamed with `stream`.
fn cast_at(
    src: &[u8],
    (src_off, dst_off): (usize, usize),
    policy: &CastPolicy,
    kernels: KernelChoice,
    stream: bool,
) -> (Vec<u8>, StatusCounts) {
    let n = src.len() / 4;
    let mut sbuf = vec![0u8; src.len() + 128];
    let s = sbuf.as_ptr().align_offset(64) + src_off;
    sbuf[s..s + src.len()].copy_from_slice(src);
    let mut dbuf = vec![0x5Au8; 2 * n + 128];
    let d = dbuf.as_ptr().align_offset(64) + dst_off;
    let base = options(kernels, false);
    let opts = if stream {
        BulkOptions {
            stream_threshold: 0,
            ..base
        }
    } else {
        base
    };
    let counts = cast_elements_with_status(
        &sbuf[s..s + src.len()],
        f32s(),
        &mut dbuf[d..d + 2 * n],
        Storage::native(Format::F16),
        n,
        policy,
        &opts,
    )
    .expect("buffers are sized for n");
    assert!(
        dbuf[..d]
            .iter()
            .chain(&dbuf[d + 2 * n..])
            .all(|&b| b == 0x5A),
        "{policy:?} {kernels:?}: a write outside the destination"
    );
    (dbuf[d..d + 2 * n].to_vec(), counts)
}

#[test]
fn f16_at_source_and_destination_offsets_equals_the_reference() {
    let n = 4 * 2048 + 64 * 2 + 16 + 7;
    let codes = data(n, 0x00FF_5E75);
    let src = bytes(&codes);
    let offsets = [
        (0, 0),
        (16, 16),
        (48, 40),
        (4, 0),
        (60, 62),
        (16, 0),
        (0, 16),
        (2, 2),
        (1, 3),
        (32, 1),
    ];
    for p in all_policies() {
        let want = cast_at(&src, (0, 0), &p, KernelChoice::Reference, false);
        for k in fast_choices() {
            for &at in &offsets {
                for stream in [false, true] {
                    let got = cast_at(&src, at, &p, k, stream);
                    if got == want {
                        continue;
                    }
                    for (i, &c) in codes.iter().enumerate() {
                        assert_eq!(
                            &got.0[2 * i..2 * i + 2],
                            &want.0[2 * i..2 * i + 2],
                            "f32 {c:#010x} (element {i}) {p:?} {k:?} at {at:?} stream {stream}"
                        );
                    }
                    assert_eq!(
                        got.1, want.1,
                        "counts {p:?} {k:?} at {at:?} stream {stream}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_offsets_data_has_what_it_claims() {
    let codes = data(4 * 2048, 3);
    let nan_inf = |b: usize| {
        codes[2048 * b..2048 * (b + 1)]
            .iter()
            .filter(|&&c| c & 0x7F80_0000 == 0x7F80_0000)
            .count()
    };
    // a few specials in block 0 (the special loop after it), more in block 1, a mask in 2
    assert!((1..128).contains(&nan_inf(0)), "{}", nan_inf(0));
    assert!(nan_inf(1) > 100 && nan_inf(2) > 1000);
    for e in EDGES.iter().chain(&SPECIALS) {
        assert!(codes.contains(e), "{e:#x}");
    }
    // f16 subnormal magnitudes and exact band values
    assert!(codes[2048..4096].iter().any(|&c| {
        let e = (c >> 23) & 0xFF;
        (104..113).contains(&e)
    }));
    assert!(codes[..2048].iter().filter(|&&c| c & 0x1FFF == 0).count() > 400);
}
