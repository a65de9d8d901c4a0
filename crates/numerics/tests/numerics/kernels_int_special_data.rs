//! f32 → saturating small integers (i8, u8, i4, u4; 4-bit packed or one per byte) on data with
//! special values equals the reference bit for bit, codes and status counts, at every level
//! the machine has: 1 % NaN / ±Inf, a causal attention mask (−Inf after the diagonal), steps
//! that are all NaN, all +Inf, all −Inf or all beyond ±2^31 and ±2^15, and special lanes on
//! the first and last lane of a 64-element step and across step boundaries, each among
//! ordinary values, zeros and values that flush to zero, in every deterministic mode the
//! integer kernels serve, with the output streamed too. The AVX-512 kernel casts those lanes
//! inside its lean loop (`docs/kernels.md`, "f32 → small integers, AVX-512").

use crate::kernel_support;
use kernel_support::{bytes, f32s, fast_choices, layouts, options, random_f32};

use npusim_numerics::{
    CastPolicy, Format, IntOverflow, KernelChoice, Layout, RoundMode, Status, StatusCounts, Storage,
};

/// The saturating destinations of the lean loop, with every layout.
fn storages() -> Vec<Storage> {
    let mut v = Vec::new();
    for f in [Format::I8, Format::U8, Format::I4, Format::U4] {
        v.extend(layouts(f));
        if let Ok(s) = Storage::new(f, Layout::Packed)
            && !v.contains(&s)
        {
            v.push(s);
        }
    }
    v
}

/// Ordinary values: magnitudes up to about 300 (both sides of every bound), a quarter of
/// them below one (zeros and flushed values).
fn plain(n: usize, seed: u64) -> Vec<u32> {
    random_f32(n, seed)
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let e = if i % 4 == 0 {
                118 + (c >> 23) % 9
            } else {
                127 + (c >> 23) % 9
            };
            (c & 0x807F_FFFF) | (e << 23)
        })
        .collect()
}

/// The data sets (see the module doc).
fn data() -> Vec<(&'static str, Vec<u32>)> {
    let n = 64 * 48;
    let base = plain(n, 11);
    let mut nan1 = base.clone();
    for (k, c) in nan1.iter_mut().enumerate().step_by(100) {
        *c = [0x7FC0_0000, 0x7F80_0000, 0xFF80_0000][(k / 100) % 3];
    }
    let mut masked = base.clone();
    for (i, c) in masked.iter_mut().enumerate() {
        if i % 128 > (i / 128) % 128 {
            *c = 0xFF80_0000;
        }
    }
    let mut blocks = base.clone();
    let fills = [
        0x7FC0_0001u32, // NaN
        0xFFA0_0000,    // negative signalling NaN
        0x7F80_0000,    // +Inf
        0xFF80_0000,    // −Inf
        0x4F00_0000,    // 2^31
        0xCF00_0000,    // −2^31
        0x5F00_0000,    // 2^63
        0xC700_0000,    // −2^15
        0xC700_0080,    // just below −2^15
        0x4700_0000,    // 2^15
    ];
    for (b, &f) in fills.iter().enumerate() {
        blocks[64 * (2 * b + 1)..64 * (2 * b + 2)].fill(f);
    }
    let mut edges = base.clone();
    for (k, at) in [63usize, 64, 127, 128, 191, 192, 1023, 1024, 2047, 2048]
        .into_iter()
        .enumerate()
    {
        edges[at] = fills[k % fills.len()];
        edges[at + 1000] = fills[(k + 3) % fills.len()];
    }
    let mut mixed = base.clone();
    for (i, c) in mixed.iter_mut().enumerate() {
        if i % 7 == 3 {
            *c = fills[(i / 7) % fills.len()];
        }
    }
    vec![
        ("plain", base),
        ("nan1%", nan1),
        ("masked", masked),
        ("all-special blocks", blocks),
        ("step edges", edges),
        ("mixed", mixed),
    ]
}

fn cast(codes: &[u32], d: Storage, p: &CastPolicy, k: KernelChoice) -> (Vec<u8>, StatusCounts) {
    let src = bytes(codes);
    kernel_support::cast(&src, f32s(), d, codes.len(), p, &options(k, false))
}

#[test]
fn special_data_equals_the_reference_at_every_level() {
    let sets = data();
    for d in storages() {
        for mode in RoundMode::DETERMINISTIC {
            if mode == RoundMode::Odd {
                continue;
            }
            let p = CastPolicy {
                int_overflow: IntOverflow::Saturate,
                ..CastPolicy::new(mode)
            };
            for (name, codes) in &sets {
                for len in [codes.len(), codes.len() - 37] {
                    let codes = &codes[..len];
                    let want = cast(codes, d, &p, KernelChoice::Reference);
                    for k in fast_choices() {
                        let got = cast(codes, d, &p, k);
                        kernel_support::assert_same_codes(
                            &got,
                            &want,
                            codes,
                            d,
                            &format!("{name} {p:?} {k:?} n = {len}"),
                        );
                    }
                }
            }
        }
    }
}

/// The statuses the reference gives the special lanes, which the kernels count: NaN is
/// invalid and inexact (code 0), ±Inf saturated and inexact (the bound on its side), a
/// finite value beyond the range overflowing, saturated and inexact.
#[test]
fn special_lanes_have_the_documented_codes_and_statuses() {
    let p = CastPolicy {
        int_overflow: IntOverflow::Saturate,
        ..CastPolicy::new(RoundMode::Rint)
    };
    let d = Storage::native(Format::I8);
    let one = |x: u32| {
        let codes = vec![x; 64];
        let (out, counts) = cast(&codes, d, &p, KernelChoice::Level(fast_choices_best()));
        (out[0], counts)
    };
    let flags = |s: Status| {
        let mut c = StatusCounts::default();
        c.record_n(s, 64);
        c
    };
    let (code, counts) = one(0x7FC0_0000);
    assert_eq!(
        (code, counts),
        (0, flags(Status::INVALID | Status::INEXACT))
    );
    let (code, counts) = one(0x7F80_0000);
    assert_eq!(
        (code, counts),
        (127, flags(Status::SATURATED | Status::INEXACT))
    );
    let (code, counts) = one(0xFF80_0000);
    assert_eq!(
        (code, counts),
        (0x80, flags(Status::SATURATED | Status::INEXACT))
    );
    let (code, counts) = one(0x4F00_0000);
    assert_eq!(
        (code, counts),
        (
            127,
            flags(Status::OVERFLOW | Status::SATURATED | Status::INEXACT)
        )
    );
}

/// The best level the kernels may use here.
fn fast_choices_best() -> npusim_numerics::bulk::SimdLevel {
    npusim_numerics::bulk::SimdLevel::best()
}
