//! `CastPlan`: a cast planned once and run many times gives, bit for bit and count for count,
//! what `cast_elements_with_status` gives with the same arguments (itself checked against
//! the reference routine by the kernel modules), and the reference routine's own results;
//! on every input class, policy, kernel choice, size (empty, odd, a packed tail, split over
//! threads) and first index; with the same errors.

use npusim_numerics::bulk::SimdLevel;
use npusim_numerics::{
    BulkOptions, CastPlan, CastPolicy, Format, KernelChoice, Layout, RoundMode, Storage,
    cast_elements_with_status, kernel_name,
};

use crate::kernel_support::{all_policies, common_classes, fast_choices, mixed, xorshift};

/// The source and destination storages checked: one or more per kernel family (widening,
/// table, f16 / bf16 rounding, small floats, integers, packed, wide sources, a copy).
fn pairs() -> Vec<(Storage, Storage)> {
    let n = Storage::native;
    let u = |f| Storage::new(f, Layout::Unpacked).expect("every format has an unpacked layout");
    vec![
        (n(Format::F16), n(Format::F32)),
        (n(Format::BF16), n(Format::F32)),
        (n(Format::F32), n(Format::F16)),
        (n(Format::F32), n(Format::BF16)),
        (n(Format::F32), n(Format::I8)),
        (n(Format::F32), n(Format::F8E4M3FN)),
        (n(Format::F32), n(Format::F4E2M1)),
        (n(Format::F32), u(Format::F4E2M1)),
        (n(Format::F8E4M3FN), n(Format::F32)),
        (n(Format::I8), n(Format::F32)),
        (n(Format::F16), n(Format::F8E5M2)),
        (n(Format::F64), n(Format::F32)),
        (n(Format::F16), n(Format::F16)),
    ]
}

/// `count` source codes of storage `s`: every code of a source of at most 16 bits in turn,
/// else the f32 classes every destination meets (±0, subnormals, the extremes, ±Inf, NaN
/// payloads) among random codes (for f64, the f32 codes widened, and random f64 patterns).
fn source(s: Storage, count: usize, seed: u64) -> Vec<u8> {
    let f = s.format();
    let mut buf = vec![0u8; s.bytes_for(count)];
    if f.bits() <= 16 {
        for i in 0..count {
            s.write(&mut buf, i, (i as u64).wrapping_mul(7919) & f.code_mask());
        }
        return buf;
    }
    let f32s = mixed(&common_classes(), seed);
    let mut next = xorshift(seed);
    for i in 0..count {
        let c = f32s[i % f32s.len()];
        let code = match f {
            Format::F64 if i % 3 == 0 => next(),
            Format::F64 => f64::from(f32::from_bits(c)).to_bits(),
            _ => u64::from(c),
        };
        s.write(&mut buf, i, code);
    }
    buf
}

/// A plan's run against the library's one-call cast and the reference routine, for each
/// pair, policy and kernel choice, at sizes around the vector steps and the packed tail.
#[test]
fn a_plan_casts_as_the_one_call_cast_and_the_reference() {
    let mut choices = fast_choices();
    choices.extend([KernelChoice::Fastest, KernelChoice::Reference]);
    let mut checked = 0usize;
    for (s, d) in pairs() {
        for policy in all_policies() {
            for &kernels in &choices {
                for parallel in [false, true] {
                    let options = BulkOptions {
                        kernels,
                        parallel,
                        ..BulkOptions::default()
                    };
                    let plan = CastPlan::new(s, d, &policy, &options).expect("no switch error");
                    for count in [0, 1, 31, 67, 1029] {
                        let src = source(s, count, count as u64 + 1);
                        let mut a = vec![0x5Au8; d.bytes_for(count)];
                        let mut b = vec![0xA5u8; d.bytes_for(count)];
                        let mut r = vec![0x3Cu8; d.bytes_for(count)];
                        let ca = plan.run(&src, &mut a, count).expect("sized");
                        let cb =
                            cast_elements_with_status(&src, s, &mut b, d, count, &policy, &options)
                                .expect("sized");
                        let reference = BulkOptions {
                            kernels: KernelChoice::Reference,
                            ..options
                        };
                        let cr = cast_elements_with_status(
                            &src, s, &mut r, d, count, &policy, &reference,
                        )
                        .expect("sized");
                        let what = format!("{s:?} -> {d:?} {policy:?} {kernels:?} n={count}");
                        assert_eq!(a, b, "{what}: codes differ from the one-call cast");
                        assert_eq!(ca, cb, "{what}: counts differ from the one-call cast");
                        assert_eq!(a, r, "{what}: codes differ from the reference");
                        assert_eq!(ca, cr, "{what}: counts differ from the reference");
                        checked += 1;
                    }
                }
            }
        }
    }
    println!("{checked} plan runs checked");
}

/// Stochastic rounding draws from the global index: a plan's pieces from `first_index` on
/// give the bits of the whole cast, and a plan made with a first index runs from it.
#[test]
fn a_plans_pieces_continue_the_stochastic_index() {
    let (s, d) = (
        Storage::native(Format::F32),
        Storage::native(Format::F4E2M1),
    );
    let policy = CastPolicy::new(RoundMode::Hybrid);
    let count = 3 * (1 << 16) + 10;
    let src = source(s, count, 9);
    for parallel in [false, true] {
        let options = BulkOptions {
            seed: 77,
            parallel,
            ..BulkOptions::default()
        };
        let mut whole = vec![0u8; d.bytes_for(count)];
        let cw = cast_elements_with_status(&src, s, &mut whole, d, count, &policy, &options)
            .expect("sized");
        let plan = CastPlan::new(s, d, &policy, &options).expect("no switch error");
        let mut pieces = vec![0u8; d.bytes_for(count)];
        let cut = 70_002;
        let (p0, p1) = pieces.split_at_mut(d.bytes_for(cut));
        let mut c = plan
            .run_piece(&src[..4 * cut], p0, cut, 0, parallel)
            .expect("sized");
        let c1 = plan
            .run_piece(&src[4 * cut..], p1, count - cut, cut as u64, !parallel)
            .expect("sized");
        c.add(&c1);
        assert_eq!(pieces, whole, "parallel={parallel}");
        assert_eq!(c, cw, "parallel={parallel}");
        // a plan made from the second piece's index runs from it
        let later = CastPlan::new(
            s,
            d,
            &policy,
            &BulkOptions {
                first_index: cut as u64,
                ..options
            },
        )
        .expect("no switch error");
        let mut tail = vec![0u8; d.bytes_for(count - cut)];
        later
            .run(&src[4 * cut..], &mut tail, count - cut)
            .expect("sized");
        assert_eq!(tail, whole[d.bytes_for(cut)..], "parallel={parallel}");
    }
}

/// Large casts, split over the pool or not, at every level: a plan and the one-call cast agree,
/// and [`CastPlan::splits`] says which of them the pool takes.
#[test]
fn large_plans_agree_split_or_not() {
    let count = 5 * (1 << 16) + 3;
    let mut levels: Vec<KernelChoice> = SimdLevel::available()
        .into_iter()
        .map(KernelChoice::Level)
        .collect();
    levels.push(KernelChoice::Fastest);
    for (s, d) in pairs() {
        let src = source(s, count, 5);
        let policy = CastPolicy::saturating(RoundMode::Rint);
        for &kernels in &levels {
            let options = BulkOptions {
                kernels,
                ..BulkOptions::default()
            };
            let plan = CastPlan::new(s, d, &policy, &options).expect("no switch error");
            assert_eq!(plan.splits(count), s != d, "{s:?} -> {d:?}");
            assert!(!plan.splits(1000), "{s:?} -> {d:?}");
            let mut a = vec![0u8; d.bytes_for(count)];
            let mut b = vec![0u8; d.bytes_for(count)];
            let mut c = vec![0u8; d.bytes_for(count)];
            let ca = plan.run(&src, &mut a, count).expect("sized");
            let cb = cast_elements_with_status(&src, s, &mut b, d, count, &policy, &options)
                .expect("sized");
            let cc = plan
                .run_piece(&src, &mut c, count, 0, false)
                .expect("sized");
            assert_eq!((&a, ca), (&b, cb), "{s:?} -> {d:?} {kernels:?}");
            assert_eq!(
                (&a, ca),
                (&c, cc),
                "{s:?} -> {d:?} {kernels:?} on one thread"
            );
        }
    }
}

/// Buffers of the wrong size are the one-call cast's errors; the plan names the kernel that
/// `kernel_name` names; the plan keeps what it was made from.
#[test]
fn a_plan_refuses_and_names_as_the_one_call_cast() {
    let policy = CastPolicy::default();
    for (s, d) in pairs() {
        let options = BulkOptions::default();
        let plan = CastPlan::new(s, d, &policy, &options).expect("no switch error");
        assert_eq!(plan.kernel_name(), kernel_name(s, d, &policy));
        assert_eq!((plan.source(), plan.destination()), (s, d));
        assert_eq!((plan.policy(), plan.options()), (&policy, &options));
        let count = 10;
        let src = source(s, count, 3);
        for (src_len, dst_len) in [
            (src.len() - 1, d.bytes_for(count)),
            (src.len(), d.bytes_for(count) + 1),
        ] {
            let mut x = vec![0u8; dst_len];
            let mut y = vec![0u8; dst_len];
            let e = plan.run(&src[..src_len], &mut x, count).unwrap_err();
            let f =
                cast_elements_with_status(&src[..src_len], s, &mut y, d, count, &policy, &options)
                    .unwrap_err();
            assert_eq!(e, f, "{s:?} -> {d:?}");
            assert_eq!(x, y, "{s:?} -> {d:?}: nothing written");
        }
        // empty: no counts, nothing written
        let mut none: [u8; 0] = [];
        assert_eq!(plan.run(&[], &mut none, 0).expect("empty").total, 0);
    }
}
