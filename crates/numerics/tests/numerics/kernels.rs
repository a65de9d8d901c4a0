//! Every fast bulk kernel equals the reference routine bit for bit, codes and status counts:
//! for every source of at most 16 bits (every code, in every storage layout it has) into every
//! destination, under every deterministic mode and the three standard policies (a 16-bit source
//! under one mode per destination in turn by default, every mode when the full sweeps run:
//! `crate::sweep`); on f32 boundary and random codes; at awkward lengths; and with stray high
//! bits in one-per-byte sub-byte sources.

use crate::kernel_support;
use kernel_support::{fast_choices, level_here, options};

use npusim_numerics::bulk::SimdLevel;

use crate::sweep::{full_sweeps, sweep_len, sweep_log2};

/// The log2 count of the random f32 codes of `f32_to_16_bit_kernels_equal_the_reference` by
/// default (2^`NPUSIM_SWEEP_LOG2` when set).
const QUICK_F32_TO_16_LOG2: u32 = 16;

/// The log2 count of the random f32 codes per destination of
/// `every_f32_fast_kernel_equals_the_reference` by default.
const QUICK_EVERY_F32_LOG2: u32 = 12;

/// The log2 count of the random f32 codes of the key-table and integer kernel tests by default.
const QUICK_KEY_AND_INT_LOG2: u32 = 14;
use npusim_numerics::{
    BulkOptions, CastPolicy, Format, KernelChoice, Layout, RoundMode, Storage,
    cast_elements_with_status, convert_with_status, kernel_name,
};

fn layouts(f: Format) -> Vec<Storage> {
    let mut v = vec![Storage::native(f)];
    if let Ok(u) = Storage::new(f, Layout::Unpacked)
        && u != v[0]
    {
        v.push(u);
    }
    v
}

/// Every code of `src`, `reps` times over, written in storage `s`.
fn all_codes(s: Storage, reps: usize) -> (Vec<u8>, usize) {
    let n = (s.format().code_mask() as usize + 1) * reps;
    let mut buf = vec![0u8; s.bytes_for(n)];
    for i in 0..n {
        s.write(&mut buf, i, (i as u64) & s.format().code_mask());
    }
    (buf, n)
}

fn cast(
    src: &[u8],
    s: Storage,
    d: Storage,
    n: usize,
    policy: &CastPolicy,
    kernels: KernelChoice,
) -> (Vec<u8>, npusim_numerics::StatusCounts) {
    kernel_support::cast(src, s, d, n, policy, &options(kernels, false))
}

/// A fast cast of f32 `codes` equals the reference one; on a difference, names the first f32
/// code whose result or status differs (element by element), then compares the counts.
fn assert_same_f32_casts(
    codes: &[u32],
    d: Storage,
    policy: &CastPolicy,
    fast: &(Vec<u8>, npusim_numerics::StatusCounts),
    slow: &(Vec<u8>, npusim_numerics::StatusCounts),
) {
    if fast == slow {
        return;
    }
    let s = Storage::native(Format::F32);
    for (i, code) in codes.iter().enumerate() {
        let (a, b) = (d.read(&fast.0, i), d.read(&slow.0, i));
        assert_eq!(a, b, "f32 {code:#010x} -> {d:?} {policy:?}");
        let one = code.to_le_bytes();
        let f1 = cast(&one, s, d, 1, policy, KernelChoice::Fastest);
        let s1 = cast(&one, s, d, 1, policy, KernelChoice::Reference);
        assert_eq!(f1.1, s1.1, "status of f32 {code:#010x} -> {d:?} {policy:?}");
    }
    assert_eq!(fast.1, slow.1, "status counts, {d:?} {policy:?}");
}

#[test]
fn table_kernel_equals_the_reference_for_every_small_source() {
    let mut pairs = 0;
    let full = full_sweeps();
    let mut turn = 0;
    for src in Format::ALL.into_iter().filter(|f| f.bits() <= 16) {
        for s in layouts(src) {
            let (buf, n) = all_codes(s, 1);
            for dst in Format::ALL {
                for d in layouts(dst) {
                    if s == d {
                        continue;
                    }
                    // the 16-bit sources (65536 codes each) under one mode per destination in
                    // turn, so that every mode meets every source; every mode in the full sweep
                    turn += 1;
                    let modes: Vec<RoundMode> = if full || src.bits() < 16 {
                        RoundMode::DETERMINISTIC.to_vec()
                    } else {
                        vec![RoundMode::DETERMINISTIC[turn % RoundMode::DETERMINISTIC.len()]]
                    };
                    for mode in modes {
                        for policy in [
                            CastPolicy::new(mode),
                            CastPolicy::saturating(mode),
                            CastPolicy::non_saturating(mode),
                        ] {
                            let name = kernel_name(s, d, &policy);
                            // (exact widenings, and f16 / bf16 through exact f32 codes)
                            let widening = name.starts_with("widen")
                                || name.starts_with("int-f32")
                                || name.starts_with("half-float");
                            assert!(
                                widening || matches!(name, "table" | "table-avx2" | "table-avx512"),
                                "{name}"
                            );
                            let slow = cast(&buf, s, d, n, &policy, KernelChoice::Reference);
                            let fast = cast(&buf, s, d, n, &policy, KernelChoice::Fastest);
                            assert_eq!(fast, slow, "{s:?} -> {d:?} {policy:?}");
                            if widening {
                                for choice in fast_choices() {
                                    let fast = cast(&buf, s, d, n, &policy, choice);
                                    assert_eq!(fast, slow, "{s:?} -> {d:?} {policy:?} {choice:?}");
                                }
                            }
                            pairs += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(pairs > if full { 10_000 } else { 2_000 }, "{pairs}");
}

#[test]
fn each_table_entry_is_an_independent_reference_call() {
    // f16 -> e4m3fn and bf16 -> i8, code by code against convert_with_status itself.
    for (src, dst) in [(Format::F16, Format::F8E4M3FN), (Format::BF16, Format::I8)] {
        let s = Storage::native(src);
        let d = Storage::native(dst);
        let (buf, n) = all_codes(s, 1);
        let policy = CastPolicy::saturating(RoundMode::Round);
        let (out, counts) = cast(&buf, s, d, n, &policy, KernelChoice::Fastest);
        let mut want = npusim_numerics::StatusCounts::default();
        for i in 0..n {
            let r = convert_with_status(i as u64, src, dst, &policy, 0);
            assert_eq!(d.read(&out, i), r.code, "{src} {i:#x}");
            want.record(r.status);
        }
        assert_eq!(counts, want);
    }
}

#[test]
fn awkward_lengths_and_parallel_chunks_agree() {
    let policy = CastPolicy::new(RoundMode::Rint);
    for (src, dst) in [
        (Format::F16, Format::F4E2M1),
        (Format::I4, Format::F32),
        (Format::U2, Format::I16),
        (Format::F8E5M2, Format::U2),
    ] {
        let s = Storage::native(src);
        let d = Storage::native(dst);
        let (buf, n_all) = all_codes(s, 300_000 / (src.code_mask() as usize + 1) + 1);
        for n in [0usize, 1, 3, 7, 33, 1023, 65_537, n_all] {
            let n = n.min(n_all) / s.per_byte() * s.per_byte();
            let bytes = &buf[..s.bytes_for(n)];
            let slow = cast(bytes, s, d, n, &policy, KernelChoice::Reference);
            let mut par = vec![0u8; d.bytes_for(n)];
            let counts = cast_elements_with_status(
                bytes,
                s,
                &mut par,
                d,
                n,
                &policy,
                &BulkOptions::default(),
            )
            .expect("sized");
            assert_eq!((par, counts), slow, "{src} -> {dst}, n = {n}");
        }
    }
}

#[test]
fn stray_high_bits_of_unpacked_sub_byte_sources_are_ignored() {
    let s = Storage::new(Format::I4, Layout::Unpacked).expect("4-bit");
    let d = Storage::native(Format::F32);
    let src: Vec<u8> = (0..=255u8).collect();
    let policy = CastPolicy::default();
    let fast = cast(&src, s, d, 256, &policy, KernelChoice::Fastest);
    let slow = cast(&src, s, d, 256, &policy, KernelChoice::Reference);
    assert_eq!(fast, slow);
}

/// f32 codes: every boundary class of the 16-bit float destinations (both signs, neighbours)
/// plus `random` pseudo-random codes.
fn f32_codes(random: usize) -> Vec<u32> {
    let mut v: Vec<u32> = Vec::new();
    let anchors: [u32; 16] = [
        0x0000_0000, // zero
        0x0000_0001, // smallest subnormal
        0x007F_FFFF, // largest subnormal
        0x0080_0000, // smallest normal
        0x3300_0000, // 2^-25: the f16 half-way to the smallest subnormal
        0x3380_0000, // 2^-24: f16 smallest subnormal
        0x387F_E000, // just below f16 min normal
        0x3880_0000, // f16 min normal
        0x3F80_0000, // 1.0
        0x3F80_1000, // 1 + half an f16 ulp (tie)
        0x3F80_8000, // 1 + half a bf16 ulp (tie)
        0x477F_E000, // f16 max
        0x477F_F000, // f16 max + half ulp: overflows
        0x7F7F_0000, // bf16 max
        0x7F7F_8000, // bf16 max + half ulp
        0x7F80_0000, // Inf
    ];
    for a in anchors {
        for d in 0..=3u32 {
            for c in [a.wrapping_sub(d), a.wrapping_add(d)] {
                v.extend([c, c | 0x8000_0000]);
            }
        }
    }
    v.extend([
        0x7F80_0001,
        0x7FC0_0000,
        0x7FFF_FFFF,
        0xFFC0_1234,
        0x7F81_2345,
    ]); // NaNs
    // every tie and neighbour of every f16 exponent: mantissa bits below the cut = half ± 1
    for e in 90u32..=143 {
        for low in [0xFFFu32, 0x1000, 0x1001, 0x7FFF, 0x8000, 0x8001] {
            for m_hi in [0u32, 1, 2, 0x3FF] {
                v.push((e << 23) | (m_hi << 13) | low);
            }
        }
    }
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    for _ in 0..random {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.push((x >> 16) as u32);
    }
    v
}

#[test]
fn f32_to_16_bit_kernels_equal_the_reference() {
    let log2 = sweep_log2(QUICK_F32_TO_16_LOG2);
    let codes = f32_codes(1 << log2);
    let src: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
    let n = codes.len();
    let s = Storage::native(Format::F32);
    // their SIMD kernels where the AVX2 level is available, the portable float kernel elsewhere
    let simd = level_here(SimdLevel::Avx2);
    for dst in [Format::F16, Format::BF16] {
        let d = Storage::native(dst);
        for round in [RoundMode::Rint, RoundMode::None] {
            let policy = CastPolicy::new(round);
            let name = kernel_name(s, d, &policy).trim_end_matches("-avx512");
            if simd {
                assert!(matches!(name, "f16c" | "f32-bf16"), "{dst}: {name}");
            } else {
                assert_eq!(name, "f32-float", "{dst}");
            }
            let slow = cast(&src, s, d, n, &policy, KernelChoice::Reference);
            for choice in fast_choices() {
                let fast = cast(&src, s, d, n, &policy, choice);
                assert_same_f32_casts(&codes, d, &policy, &fast, &slow);
            }
        }
    }
}

/// Every f32-source fast kernel (every destination of at most 16 bits in every layout, every
/// deterministic mode, the three standard policies, every instruction-set level) equals the
/// reference on the destination's boundary codes and random patterns
/// (`NPUSIM_SWEEP_LOG2`, default 2^12 random codes per destination).
#[test]
fn every_f32_fast_kernel_equals_the_reference() {
    let log2 = sweep_log2(QUICK_EVERY_F32_LOG2);
    let random = f32_codes(1 << log2);
    let s = Storage::native(Format::F32);
    let mut served = std::collections::BTreeMap::new();
    for dst in Format::ALL.into_iter().filter(|f| f.bits() <= 16) {
        let mut codes = f32_codes_around(dst);
        codes.extend(&random);
        let src: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
        let n = codes.len();
        for d in layouts(dst) {
            for mode in RoundMode::DETERMINISTIC {
                for policy in [
                    CastPolicy::new(mode),
                    CastPolicy::saturating(mode),
                    CastPolicy::non_saturating(mode),
                ] {
                    let name = kernel_name(s, d, &policy)
                        .trim_end_matches("-avx2")
                        .trim_end_matches("-avx512");
                    if name == "reference" {
                        continue;
                    }
                    *served.entry(name).or_insert(0) += 1;
                    let slow = cast(&src, s, d, n, &policy, KernelChoice::Reference);
                    for choice in fast_choices() {
                        let fast = cast(&src, s, d, n, &policy, choice);
                        assert_same_f32_casts(&codes, d, &policy, &fast, &slow);
                    }
                }
            }
        }
    }
    // f16, bf16, fp8, fp6, fp4 in every mode and policy through the float kernel (f16 and bf16
    // through their SIMD kernels where the AVX2 level is available); e8m0, hif8, fnuz fp8 and
    // small saturating integers through the key table (at the AVX-512 level e8m0, hif8 and
    // fnuz fp8 through its AVX-512 loops, `kernels_key_avx512.rs`, `kernels_fnuz_avx512.rs`).
    let simd = if level_here(SimdLevel::Avx2) { 18 } else { 0 };
    for (name, at_least) in [
        ("f32-float", 150),
        ("f16c", simd),
        ("f32-bf16", simd),
        ("f32-key", 30),
        ("f32-int", 40),
    ] {
        assert!(
            served.get(name).copied().unwrap_or(0) >= at_least,
            "{served:?}"
        );
    }
}

#[test]
fn f32_to_16_bit_statuses_match_element_by_element() {
    let codes = f32_codes(1 << 12);
    for dst in [Format::F16, Format::BF16] {
        let policy = CastPolicy::default();
        let s = Storage::native(Format::F32);
        let d = Storage::native(dst);
        for &c in &codes {
            let src = c.to_le_bytes();
            let fast = cast(&src, s, d, 1, &policy, KernelChoice::Fastest);
            let want = convert_with_status(u64::from(c), Format::F32, dst, &policy, 0);
            let mut one = npusim_numerics::StatusCounts::default();
            one.record(want.status);
            assert_eq!(d.read(&fast.0, 0), want.code, "{c:#010x} -> {dst}");
            assert_eq!(fast.1, one, "{c:#010x} -> {dst}: {}", want.status);
        }
    }
}

/// f32 codes at and around every value of `dst` and every midpoint between neighbours (both
/// signs, ±3 f32 ulps), plus the generic boundary set.
fn f32_codes_around(dst: Format) -> Vec<u32> {
    let vals = kernel_support::finite_magnitudes(dst);
    let mids: Vec<f64> = vals.windows(2).map(|w| (w[0] + w[1]) / 2.0).collect();
    let mut out = f32_codes(0);
    for v in vals
        .iter()
        .chain(&mids)
        .chain([&(vals[vals.len() - 1] * 1.5)])
    {
        let b = (*v as f32).to_bits();
        for d in 0..=3u32 {
            for c in [b.wrapping_sub(d), b.wrapping_add(d)] {
                out.extend([c, c | 0x8000_0000]);
            }
        }
    }
    out
}

#[test]
fn f32_key_kernel_equals_the_reference() {
    let random = f32_codes(sweep_len(QUICK_KEY_AND_INT_LOG2));
    let s = Storage::native(Format::F32);
    let mut served = 0;
    // (the key table serves destinations of at most 8 bits only)
    for dst in Format::ALL.into_iter().filter(|f| f.bits() <= 8) {
        let mut codes = f32_codes_around(dst);
        codes.extend(&random);
        let src: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
        let n = codes.len();
        for d in layouts(dst) {
            for mode in RoundMode::DETERMINISTIC {
                for policy in [
                    CastPolicy::new(mode),
                    CastPolicy::saturating(mode),
                    CastPolicy::non_saturating(mode),
                ] {
                    // (the table itself, or its gathered lookup at the AVX2 level)
                    if kernel_name(s, d, &policy).trim_end_matches("-avx2") != "f32-key" {
                        continue;
                    }
                    served += 1;
                    let slow = cast(&src, s, d, n, &policy, KernelChoice::Reference);
                    for choice in fast_choices() {
                        let fast = cast(&src, s, d, n, &policy, choice);
                        assert_same_f32_casts(&codes, d, &policy, &fast, &slow);
                    }
                }
            }
        }
    }
    // e8m0, hif8, fnuz fp8, small saturating integers (the other fp8/fp6/fp4 take the float
    // kernel; at the AVX-512 level e8m0, hif8 and fnuz fp8 take its loops, tested in their files)
    assert!(served >= 30, "{served}");
}

#[test]
fn f32_to_int_kernel_equals_the_reference() {
    let random = f32_codes(sweep_len(QUICK_KEY_AND_INT_LOG2));
    let s = Storage::native(Format::F32);
    let mut served = 0;
    for dst in [
        Format::I8,
        Format::U8,
        Format::I16,
        Format::U16,
        Format::I32,
        Format::U32,
    ] {
        let mut codes: Vec<u32> = random.clone();
        // every integer boundary ± a little, both signs, and the f32 neighbours of each
        let (lo, hi) = (dst.min_finite(), dst.max_finite());
        for v in [
            lo,
            hi,
            lo - 1.0,
            hi + 1.0,
            0.0,
            0.5,
            1.5,
            2.5,
            2f64.powi(24),
            2f64.powi(31),
            2f64.powi(55),
            2f64.powi(64),
            2f64.powi(100),
        ] {
            for w in [v - 0.5, v, v + 0.5, v - 0.25, v + 0.75] {
                let b = (w as f32).to_bits();
                for d in 0..=2u32 {
                    for c in [b.wrapping_sub(d), b.wrapping_add(d)] {
                        codes.extend([c, c ^ 0x8000_0000]);
                    }
                }
            }
        }
        let src: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
        let n = codes.len();
        let d = Storage::native(dst);
        for mode in RoundMode::DETERMINISTIC {
            for policy in [
                CastPolicy::new(mode),
                CastPolicy::saturating(mode),
                CastPolicy::non_saturating(mode),
            ] {
                if kernel_name(s, d, &policy)
                    .trim_end_matches("-avx512")
                    .trim_end_matches("-avx2")
                    != "f32-int"
                {
                    assert_eq!(mode, RoundMode::Odd);
                    continue;
                }
                served += 1;
                let slow = cast(&src, s, d, n, &policy, KernelChoice::Reference);
                for choice in fast_choices() {
                    let fast = cast(&src, s, d, n, &policy, choice);
                    assert_same_f32_casts(&codes, d, &policy, &fast, &slow);
                }
            }
        }
    }
    assert_eq!(served, 6 * 5 * 3);
}

#[test]
fn packed_4_bit_sources_with_odd_counts_equal_the_reference() {
    // Both nibbles of a byte are widened in one pass; an odd count leaves a last low nibble.
    let policy = CastPolicy::new(RoundMode::Rint);
    for (src, dst) in [
        (Format::I4, Format::F32),
        (Format::F4E2M1, Format::F16),
        (Format::F4E2M1, Format::I8),
        (Format::I4, Format::F64),
    ] {
        let s = Storage::native(src);
        let d = Storage::native(dst);
        assert!(s.is_packed());
        let (buf, n_all) = all_codes(s, 5000);
        for n in [1usize, 3, 1023, 1025, 65_537] {
            let n = n.min(n_all);
            let bytes = &buf[..s.bytes_for(n)];
            let slow = cast(bytes, s, d, n, &policy, KernelChoice::Reference);
            for choice in fast_choices() {
                let fast = cast(bytes, s, d, n, &policy, choice);
                assert_eq!(fast, slow, "{src} -> {dst}, n = {n}");
            }
        }
    }
}

#[test]
fn widening_casts_with_tails_and_offsets_equal_the_reference() {
    // Vector steps plus a tail, from every code (NaN payloads, Inf, subnormals, integer
    // bounds), at every level.
    for (src, policy) in [
        (Format::F16, CastPolicy::new(RoundMode::Rint)),
        (Format::F16, CastPolicy::saturating(RoundMode::Rint)),
        (Format::BF16, CastPolicy::new(RoundMode::Rint)),
        (Format::BF16, CastPolicy::saturating(RoundMode::Rint)),
        (Format::BF16, CastPolicy::non_saturating(RoundMode::Floor)),
        (Format::I8, CastPolicy::new(RoundMode::Rint)),
        (Format::U8, CastPolicy::saturating(RoundMode::Floor)),
        (Format::I16, CastPolicy::new(RoundMode::Rint)),
        (Format::U16, CastPolicy::non_saturating(RoundMode::Ceil)),
    ] {
        let s = Storage::native(src);
        let d = Storage::native(Format::F32);
        let (buf, n_all) = all_codes(s, 1);
        let w = src.unpacked_bytes();
        for (skip, n) in [
            (0usize, 1usize),
            (3, 7),
            (5, 9),
            (1, 17),
            (2, 31),
            (0, n_all - 3),
        ] {
            let bytes = &buf[w * skip..w * (skip + n)];
            let slow = cast(bytes, s, d, n, &policy, KernelChoice::Reference);
            for choice in fast_choices() {
                let fast = cast(bytes, s, d, n, &policy, choice);
                assert_eq!(fast, slow, "{src}, skip {skip}, n = {n}");
            }
        }
    }
}
