//! Every fast bulk kernel equals the reference routine bit for bit, codes and status counts:
//! for every source of at most 16 bits (every code, in every storage layout it has) into every
//! destination, under every deterministic mode and the three standard policies; at awkward
//! lengths; and with stray high bits in one-per-byte sub-byte sources.

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
    let mut out = vec![0u8; d.bytes_for(n)];
    let options = BulkOptions {
        kernels,
        parallel: false,
        ..BulkOptions::default()
    };
    let counts = cast_elements_with_status(src, s, &mut out, d, n, policy, &options)
        .expect("buffers are sized for n");
    (out, counts)
}

#[test]
fn table_kernel_equals_the_reference_for_every_small_source() {
    let mut pairs = 0;
    for src in Format::ALL.into_iter().filter(|f| f.bits() <= 16) {
        for s in layouts(src) {
            let (buf, n) = all_codes(s, 1);
            for dst in Format::ALL {
                for d in layouts(dst) {
                    if s == d {
                        continue;
                    }
                    for mode in RoundMode::DETERMINISTIC {
                        for policy in [
                            CastPolicy::new(mode),
                            CastPolicy::saturating(mode),
                            CastPolicy::non_saturating(mode),
                        ] {
                            assert_eq!(kernel_name(s, d, &policy), "table");
                            let fast = cast(&buf, s, d, n, &policy, KernelChoice::Fastest);
                            let slow = cast(&buf, s, d, n, &policy, KernelChoice::Reference);
                            assert_eq!(fast, slow, "{s:?} -> {d:?} {policy:?}");
                            pairs += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(pairs > 10_000, "{pairs}");
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
