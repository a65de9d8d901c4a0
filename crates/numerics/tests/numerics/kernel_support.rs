//! What the kernel test modules share: one bulk cast with its status counts, the fast kernels
//! at every instruction-set level the kernels may use here (the CPU's, capped by
//! `NPUSIM_KERNEL`: the library's own [`SimdLevel::available`]), a visible note when a test
//! cannot run at the level it exists for ([`level_here`]), and pseudo-random f32 codes.

#![allow(dead_code)]

#[path = "../../src/bulk/kernels/skip_log.rs"]
mod skip_log;

use npusim_numerics::bulk::SimdLevel;
use npusim_numerics::{
    BulkOptions, CastPolicy, Format, InfRule, KernelChoice, Kind, Layout, NanRule, Overflow,
    RoundMode, StatusCounts, Storage, UnsignedNegative, cast_elements_with_status, kernel_name,
    kernel_name_at,
};

/// Casts `n` elements of `src` (storage `s`) to storage `d` under `policy` and `options`,
/// into an output prefilled with a marker byte (so unwritten bytes show), with the counts.
/// A fast cast is run a second time with its output streamed past the cache (at once, from
/// a destination offset that depends on `n`, so the head before the first 64-byte boundary
/// varies), and the two must agree bit for bit.
pub fn cast(
    src: &[u8],
    s: Storage,
    d: Storage,
    n: usize,
    policy: &CastPolicy,
    options: &BulkOptions,
) -> (Vec<u8>, StatusCounts) {
    let mut out = vec![0x5Au8; d.bytes_for(n)];
    let counts = cast_elements_with_status(src, s, &mut out, d, n, policy, options)
        .expect("buffers are sized for n");
    if options.kernels != KernelChoice::Reference {
        let streamed = BulkOptions {
            stream_threshold: 0,
            ..*options
        };
        let offset = n % 64;
        let mut buf = vec![0x5Au8; offset + d.bytes_for(n)];
        let c = cast_elements_with_status(src, s, &mut buf[offset..], d, n, policy, &streamed)
            .expect("buffers are sized for n");
        assert_eq!(
            c, counts,
            "{s:?} -> {d:?} {policy:?} n={n}: streamed counts differ"
        );
        if let Some(i) = (0..out.len()).find(|&i| out[i] != buf[offset + i]) {
            panic!(
                "{s:?} -> {d:?} {policy:?} n={n}: streamed output differs at byte {i}: {:#04x} vs {:#04x}",
                buf[offset + i],
                out[i]
            );
        }
    }
    (out, counts)
}

/// Options that run `kernels`, in parallel or not.
pub fn options(kernels: KernelChoice, parallel: bool) -> BulkOptions {
    BulkOptions {
        kernels,
        parallel,
        ..BulkOptions::default()
    }
}

/// The fast kernels at every instruction-set level they may use here (the portable one first).
pub fn fast_choices() -> Vec<KernelChoice> {
    SimdLevel::available()
        .into_iter()
        .map(KernelChoice::Level)
        .collect()
}

/// `n` pseudo-random f32 codes (full 32-bit patterns: every class occurs).
pub fn random_f32(n: usize, seed: u64) -> Vec<u32> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 17) as u32
        })
        .collect()
}

/// The storages of `f`: native, and one per byte for the packed 4-bit formats.
pub fn layouts(f: Format) -> Vec<Storage> {
    let mut v = vec![Storage::native(f)];
    if let Ok(u) = Storage::new(f, Layout::Unpacked)
        && u != v[0]
    {
        v.push(u);
    }
    v
}

/// For every destination of at most 16 bits, each of its layouts, every deterministic mode
/// and the three standard policies that `kernel` serves from source storage `s`: casts the
/// codes `source(dst, k)` (little-endian, `k` the destination's index) at every level and
/// compares with the reference, naming the first differing element by `show(codes, i)`.
/// Returns how many combinations were checked.
pub fn assert_kernel_equals_reference_for_small_floats(
    s: Storage,
    kernel: &str,
    source: impl Fn(Format, u64) -> Vec<u8>,
    show: impl Fn(&[u8], usize) -> String,
) -> usize {
    let mut served = 0;
    for (k, dst) in Format::ALL.into_iter().enumerate() {
        if dst.bits() > 16 {
            continue;
        }
        let src = source(dst, k as u64);
        let n = src.len() / s.bytes_for(1);
        for d in layouts(dst) {
            for mode in RoundMode::DETERMINISTIC {
                for policy in [
                    CastPolicy::new(mode),
                    CastPolicy::saturating(mode),
                    CastPolicy::non_saturating(mode),
                ] {
                    if kernel_name(s, d, &policy) != kernel {
                        continue;
                    }
                    served += 1;
                    let want = cast(
                        &src,
                        s,
                        d,
                        n,
                        &policy,
                        &options(KernelChoice::Reference, false),
                    );
                    for level in SimdLevel::available() {
                        let o = options(KernelChoice::Level(level), false);
                        let got = cast(&src, s, d, n, &policy, &o);
                        if got == want {
                            continue;
                        }
                        for i in 0..n {
                            assert_eq!(
                                d.read(&got.0, i),
                                d.read(&want.0, i),
                                "{} -> {d:?} {policy:?} {level:?}",
                                show(&src, i)
                            );
                        }
                        assert_eq!(got.1, want.1, "counts {d:?} {policy:?} {level:?}");
                    }
                }
            }
        }
    }
    served
}

/// The three standard policies of a mode: IEEE, saturating and non-saturating.
pub fn policies(mode: RoundMode) -> [CastPolicy; 3] {
    [
        CastPolicy::new(mode),
        CastPolicy::saturating(mode),
        CastPolicy::non_saturating(mode),
    ]
}

/// Every deterministic mode (and `none`) with the three standard policies, each with the Inf
/// and NaN rules varied.
pub fn all_policies() -> Vec<CastPolicy> {
    let mut v = Vec::new();
    let mut modes = RoundMode::DETERMINISTIC.to_vec();
    modes.push(RoundMode::None);
    for mode in modes {
        for p in policies(mode) {
            for inf in [InfRule::Keep, InfRule::Saturate] {
                for nan in [NanRule::Keep, NanRule::Zero] {
                    v.push(CastPolicy { inf, nan, ..p });
                }
            }
        }
    }
    v
}

/// Native f32 storage.
pub fn f32s() -> Storage {
    Storage::native(Format::F32)
}

/// The cast of `src` (`n` codes of storage `s`) into f32 codes at a destination `offset` bytes
/// past a 64-byte boundary, with `opts`; checks nothing around it was written.
pub fn cast_to_f32_at(
    src: &[u8],
    s: Storage,
    n: usize,
    offset: usize,
    policy: &CastPolicy,
    opts: &BulkOptions,
) -> (Vec<u8>, StatusCounts) {
    let mut buf = vec![0x5Au8; 4 * n + 128];
    let at = (64 - buf.as_ptr() as usize % 64) % 64 + offset;
    let counts =
        cast_elements_with_status(src, s, &mut buf[at..at + 4 * n], f32s(), n, policy, opts)
            .expect("buffers are sized for n");
    assert!(buf[..at].iter().all(|&b| b == 0x5A), "written before");
    assert!(
        buf[at + 4 * n..].iter().all(|&b| b == 0x5A),
        "written after"
    );
    (buf[at..at + 4 * n].to_vec(), counts)
}

/// 32-bit codes as little-endian bytes.
pub fn bytes(codes: &[u32]) -> Vec<u8> {
    codes.iter().flat_map(|c| c.to_le_bytes()).collect()
}

/// `code` and its neighbours up to `ulps` codes away, each with both signs, appended to `out`.
pub fn around(code: u32, ulps: u32, out: &mut Vec<u32>) {
    for d in 0..=ulps {
        for c in [code.wrapping_sub(d), code.wrapping_add(d)] {
            out.extend([c & 0x7FFF_FFFF, c | 0x8000_0000]);
        }
    }
}

/// `classes` shuffled among three times as many random codes, so that NaN and Inf fall into
/// some vector steps and not others.
pub fn mixed(classes: &[u32], seed: u64) -> Vec<u32> {
    let mut v = random_f32(classes.len() * 3, seed);
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for &c in classes {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.insert((x % (v.len() as u64 + 1)) as usize, c);
    }
    v
}

/// f32 codes every destination meets: ±0, f32 subnormals, the smallest normal and the f32
/// max (each with its neighbours), ±Inf and NaN payloads (quiet and signalling), both signs.
pub fn common_classes() -> Vec<u32> {
    let mut v = Vec::new();
    for c in [0, 1, 0x0040_0000, 0x007F_FFFF, 0x0080_0000, 0x7F7F_FFFF] {
        around(c, 1, &mut v);
    }
    for c in [
        0x7F80_0000,
        0x7F80_0001,
        0x7FA1_2345,
        0x7FC0_0000,
        0x7FC0_1000,
        0x7FFF_FFFF,
        0x7FBF_FFFF,
    ] {
        v.extend([c, c | 0x8000_0000]);
    }
    v
}

/// The distinct finite magnitudes of `dst`, in increasing order (0 first).
pub fn finite_magnitudes(dst: Format) -> Vec<f64> {
    let mut vals: Vec<f64> = (0..=dst.code_mask())
        .map(|c| dst.decode(c))
        .filter(|x| !x.is_nan() && !x.is_inf())
        .map(|x| x.to_f64().abs())
        .collect();
    vals.sort_by(f64::total_cmp);
    vals.dedup();
    vals
}

/// The f32 boundary classes of `dst`: [`int_classes`] for an integer, else
/// [`float_classes`].
pub fn boundary_classes(dst: Format) -> Vec<u32> {
    if matches!(dst.kind(), Kind::Int { .. }) {
        int_classes(dst)
    } else {
        float_classes(dst)
    }
}

/// `got` equals `want`, codes and counts; on a difference, names the first differing element
/// of `d` by its 32-bit source code (f32 or i32), and `what` was cast.
pub fn assert_same_codes(
    got: &(Vec<u8>, StatusCounts),
    want: &(Vec<u8>, StatusCounts),
    codes: &[u32],
    d: Storage,
    what: &str,
) {
    if got == want {
        return;
    }
    for (i, &c) in codes.iter().enumerate() {
        assert_eq!(
            d.read(&got.0, i),
            d.read(&want.0, i),
            "source {c:#010x} (element {i}) -> {d:?}: {what}"
        );
    }
    assert_eq!(got.1, want.1, "status counts {d:?}: {what}");
}

/// The best level the kernels may run at here ([`SimdLevel::best`], the AVX-512 one where
/// it is available) equals the reference on the f32 `codes` cast into `dst` under `policy`
/// (codes and counts, the streamed output too); names the first differing code. A test that
/// exists for the AVX-512 level calls [`level_here`] first, so that running it at a lower
/// level says so.
pub fn assert_best_equals_reference(codes: &[u32], dst: Format, policy: &CastPolicy) {
    let src = bytes(codes);
    let (n, d) = (codes.len(), Storage::native(dst));
    let run = |k| cast(&src, f32s(), d, n, policy, &options(k, false));
    let want = run(KernelChoice::Reference);
    let level = SimdLevel::best();
    let got = run(KernelChoice::Level(level));
    assert_same_codes(&got, &want, codes, d, &format!("{policy:?} {level:?}"));
}

/// Whether the kernels may run at `level` here (the CPU has it and `NPUSIM_KERNEL` does not
/// cap it away). When not, the calling test cannot test that level, and says so where it
/// shows: `SKIPPED: <test> needs <level>: <why>` on standard output (shown by
/// `cargo test -- --nocapture` or `--show-output`), and the same line appended to the file
/// named by `NPUSIM_SKIP_LOG` when that is set (`.ci/run` prints it after the tests).
pub fn level_here(level: SimdLevel) -> bool {
    let Some(why) = level.absence() else {
        return true;
    };
    // `<test file>::<test>`: the harness names the test's thread by the test's module path
    // (the file's module, then the test); on the main thread, the program's name without
    // cargo's hash
    let thread = std::thread::current();
    let test = match thread.name() {
        Some(name) if name != "main" => name.to_string(),
        _ => {
            let exe = std::env::current_exe().unwrap_or_default();
            let stem = exe.file_stem().unwrap_or_default().to_string_lossy();
            stem.rsplit_once('-').map_or(&*stem, |(f, _)| f).to_string()
        }
    };
    skip_log::report_skip(&test, level.name(), &why.to_string());
    false
}

/// At a level the kernels may not use here, a cast runs the portable code: its kernel name
/// at `level` is the portable one, for `s` → `d` under `policy`.
pub fn assert_absent_level_names_portable(
    s: Storage,
    d: Storage,
    policy: &CastPolicy,
    level: SimdLevel,
) {
    assert!(!level.is_available(), "{level:?} is available");
    assert_eq!(
        kernel_name_at(s, d, policy, level),
        kernel_name_at(s, d, policy, SimdLevel::Portable),
        "{s:?} -> {d:?} {policy:?} at {level:?}"
    );
}

/// The f32 boundary classes of the float `dst`: every finite value, every midpoint (tie)
/// between neighbours, the largest value plus half an ulp, one ulp and more, fractions of the
/// smallest nonzero value, each with its f32 neighbours; and [`common_classes`].
pub fn float_classes(dst: Format) -> Vec<u32> {
    let vals = finite_magnitudes(dst);
    let max = vals[vals.len() - 1];
    let ulp_at_max = max - vals[vals.len() - 2];
    let mut v = common_classes();
    let mids = vals.windows(2).map(|w| (w[0] + w[1]) / 2.0);
    let beyond = [
        max + ulp_at_max / 2.0,
        max + ulp_at_max,
        max + 1.5 * ulp_at_max,
        max * 2.0,
        vals[1] / 2.0,
        vals[1] / 4.0,
        vals[1] * 0.75,
    ];
    for x in vals.iter().copied().chain(mids).chain(beyond) {
        around((x as f32).to_bits(), 2, &mut v);
    }
    v
}

/// The f32 boundary classes of the integer `dst`: each bound, one beyond, the halves around
/// them, small ties, large values where wrapping keeps only low bits (each with its f32
/// neighbours); and [`common_classes`].
pub fn int_classes(dst: Format) -> Vec<u32> {
    let (lo, hi) = (dst.min_finite(), dst.max_finite());
    let mut v = common_classes();
    let mut anchors = vec![lo, hi, lo - 1.0, hi + 1.0, 0.0, 0.5, 1.0, 1.5, 2.5, 3.5];
    anchors.extend([2f64.powi(23), 2f64.powi(24), 2f64.powi(31), 2f64.powi(32)]);
    anchors.extend([2f64.powi(40) + 2f64.powi(20), 2f64.powi(55), 2f64.powi(100)]);
    for a in anchors {
        for w in [a - 0.5, a, a + 0.5, a - 0.25, a + 0.75] {
            around((w as f32).to_bits(), 2, &mut v);
        }
    }
    v
}

/// Every combination of the policy rules that matter for e8m0 and HiF8 (overflow, ±Inf, NaN,
/// negative values into e8m0), plus the standard non-saturating policy, in `mode`.
pub fn key_policies(mode: RoundMode) -> Vec<CastPolicy> {
    let mut v = vec![CastPolicy::non_saturating(mode)];
    for overflow in [Overflow::Ieee, Overflow::Saturate] {
        for inf in [InfRule::Keep, InfRule::Saturate] {
            for nan in [NanRule::Keep, NanRule::Zero] {
                for unsigned_negative in [UnsignedNegative::Nan, UnsignedNegative::Magnitude] {
                    v.push(CastPolicy {
                        overflow,
                        inf,
                        nan,
                        unsigned_negative,
                        ..CastPolicy::new(mode)
                    });
                }
            }
        }
    }
    v
}

/// Every fast level equals the reference on the f32 `codes` into each of `storages`, in every
/// deterministic mode under the three standard policies: codes and status counts.
pub fn assert_f32_storages_at_all_levels(codes: &[u32], storages: Vec<Storage>, what: &str) {
    let src = bytes(codes);
    let n = codes.len();
    for d in storages {
        for round in RoundMode::DETERMINISTIC {
            for p in [
                CastPolicy::new(round),
                CastPolicy::saturating(round),
                CastPolicy::non_saturating(round),
            ] {
                let run = |k| cast(&src, f32s(), d, n, &p, &options(k, false));
                let want = run(KernelChoice::Reference);
                for k in fast_choices() {
                    let got = run(k);
                    if got == want {
                        continue;
                    }
                    for (i, &c) in codes.iter().enumerate() {
                        assert_eq!(
                            d.read(&got.0, i),
                            d.read(&want.0, i),
                            "f32 {c:#010x} (element {i}) -> {d:?} {p:?} {k:?}: {what}"
                        );
                    }
                    assert_eq!(got.1, want.1, "counts -> {d:?} {p:?} {k:?}: {what}");
                }
            }
        }
    }
}

/// A 32-bit xorshift stream (the seed's low bit set, so it never sticks at zero).
pub fn xorshift32(seed: u32) -> impl FnMut() -> u32 {
    let mut x = seed | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    }
}

/// NaN (quiet and signalling, both signs, payloads), +Inf and −Inf f32 codes.
pub fn nan_inf_codes() -> Vec<u32> {
    vec![
        0x7FC0_0000,
        0xFFC0_0001,
        0x7F80_0001,
        0xFF80_1234,
        0x7FFF_FFFF,
        0x7F80_0000,
        0xFF80_0000,
    ]
}

/// A xorshift stream (the seed's low bit set, so it never sticks at zero).
pub fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// Every fast level equals the reference, codes and counts, casting the f32 `codes` to the
/// two-byte `dst` written at each byte offset of `offsets` past a 64-byte boundary (the
/// AVX-512 loops start at the destination's first boundary), in each of `rounds` under the
/// default policy.
pub fn assert_half_offsets_match_reference(
    codes: &[u32],
    dst: Format,
    rounds: &[RoundMode],
    offsets: impl Iterator<Item = usize> + Clone,
) {
    let src = bytes(codes);
    let n = codes.len();
    let d = Storage::native(dst);
    for &round in rounds {
        let p = CastPolicy::new(round);
        let run = |k, off: usize| {
            let mut buf = vec![0x5Au8; 2 * n + 128];
            let at = buf.as_ptr().align_offset(64) + off;
            let counts = cast_elements_with_status(
                &src,
                f32s(),
                &mut buf[at..at + 2 * n],
                d,
                n,
                &p,
                &options(k, false),
            )
            .expect("buffers are sized for n");
            (buf[at..at + 2 * n].to_vec(), counts)
        };
        let want = run(KernelChoice::Reference, 0);
        for k in fast_choices() {
            for off in offsets.clone() {
                let got = run(k, off);
                assert_eq!(
                    got.0, want.0,
                    "{dst:?} {round:?} {k:?}: codes at offset {off}"
                );
                assert_eq!(
                    got.1, want.1,
                    "{dst:?} {round:?} {k:?}: counts at offset {off}"
                );
            }
        }
    }
}

/// The NaN and ±Inf f32 codes in block `block` of `codes`, in the bulk loops' blocks of 2048
/// elements.
pub fn nan_inf_in_block(codes: &[u32], block: usize) -> usize {
    codes[2048 * block..2048 * (block + 1)]
        .iter()
        .filter(|&&c| c & 0x7F80_0000 == 0x7F80_0000)
        .count()
}
