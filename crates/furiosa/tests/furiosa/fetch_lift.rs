//! Axis lifting and interleaved fetch (`docs/furiosa-engines.md` §4.1, §4.4 L1–L4, I1–I2;
//! plan steps 13 and 14). Expected bases, time steps, cycles and values are derived by hand
//! from the Fetch Engine page's text: a lift gives each unit the read base
//! `Σ lifted value × its DM stride` and removes the lifted axes from Time; an interleaved
//! fetch alternates lhs and rhs along its size-2 Time axis `I`.

use npusim_furiosa::dm::{Dm, DmTensor};
use npusim_furiosa::engine::fetch::{FetchError, begin};
use npusim_furiosa::engine::fetch_interleave::{InterleaveError, begin_interleaved};
use npusim_furiosa::engine::fetch_lift::{LiftDim, LiftError};
use npusim_furiosa::mapping::{Axes, Mapping};
use npusim_furiosa::{DType, Position};

struct Setup {
    ax: Axes,
    dm: Dm,
}

impl Setup {
    fn new(axes: &str) -> Setup {
        let mut dm = Dm::new(1);
        dm.fill_undefined(0xA5);
        Setup {
            ax: Axes::parse(axes).expect("axes"),
            dm,
        }
    }

    fn m(&self, s: &str) -> Mapping {
        Mapping::parse(s, &self.ax).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn place(&self, dtype: DType, slice: &str, element: &str, address: usize) -> DmTensor {
        DmTensor::from_addr(
            &self.dm,
            dtype,
            &self.m("1"),
            &self.m("1 # 2"),
            &self.m(slice),
            &self.m(element),
            address,
        )
        .expect("placement")
    }
}

/// L1, the book's example: bf16 `Slice = m![A, 2]`, `Element = m![Q, V]` (A = 128, Q = 4,
/// V = 16); `fetch::<m![Q], m![V]>()` then `fetch_slice_lift::<m![A, Q / 2], m![Q % 2]>()`.
/// Slice 2a + h reads Q = 2h, 2h + 1 from base h × (Q % 2 size 2) × V = 32h elements
/// (64 bytes): 2 time steps of one 32-byte read instead of 4. The stream cell (slice 2a + h,
/// time t, lane v) holds x[a, 2h + t, v]; with x[a, q, v] = 64a + 16q + v: slice 1, t = 1,
/// v = 5 holds 53; slice 255, t = 0, v = 0 holds 8160.
#[test]
fn l1_the_books_q_lift_reads_each_half_from_its_own_base() {
    let mut s = Setup::new("A=128, Q=4, V=16");
    let x = s.place(DType::BF16, "A, 2", "Q, V", 0);
    let codes: Vec<u64> = (0..128 * 4 * 16).collect();
    x.write_logical(&mut s.dm, &["A", "Q", "V"], &codes)
        .unwrap();
    let b = begin(&s.dm, &x.view());
    let plain = b.plan(&s.m("Q"), &s.m("V")).unwrap();
    assert_eq!(plain.cycles, 4);
    let fetched = b.clone().fetch(&s.m("Q"), &s.m("V")).unwrap();
    let (lifted, plan) = b
        .fetch_lift(fetched, LiftDim::Slice, &s.m("A, Q / 2"), &s.m("Q % 2"))
        .unwrap();
    assert_eq!(plan.bases[0], 0);
    assert_eq!(plan.bases[1], 32);
    assert_eq!(plan.bases[254], 0);
    assert_eq!(plan.bases[255], 32);
    assert_eq!(plan.fetch.cycles, 2);
    assert_eq!(plan.fetch.read_bytes, 32);
    assert_eq!(lifted.position(), Position::Fetch);
    assert_eq!(
        lifted
            .mapping(npusim_furiosa::tensor::Dim::Slice)
            .m_notation(),
        "A, Q / 2"
    );
    assert_eq!(lifted.time().m_notation(), "Q % 2");
    let ints = lifted.ints();
    let tp = 2 * 16;
    let at = |cluster: usize, slice: usize, t: usize, v: usize| {
        ints[(cluster * 256 + slice) * tp + t * 16 + v]
    };
    assert_eq!(at(0, 1, 1, 5), 53);
    assert_eq!(at(0, 255, 0, 0), 8160);
    assert_eq!(at(0, 0, 1, 15), 31);
    // Cluster 1 is padding of `1 # 2`: nothing read, 0.
    assert_eq!(at(1, 1, 1, 5), 0);
}

/// L2, the book's valid/invalid twins (`A = 128, H = 2, V = 16`): the DM placement
/// `Slice = m![A, 2]`, `Element = m![H, V]` lifted by `fetch_slice_lift::<m![A, H], m![1]>()`
/// (slice 2a + h reads H = h from base 16h elements = 32 bytes). Valid when the two slices of
/// a pair hold the same data (a replicated load). Invalid (`G`) when DM was written as
/// `m![A, G]` with different values per slice and only named a broadcast: refused, the
/// source is not replicated.
#[test]
fn l2_a_lift_needs_the_source_replicated() {
    let mut s = Setup::new("A=128, H=2, V=16, G=2");
    let x = s.place(DType::BF16, "A, 2", "H, V", 0);
    let codes: Vec<u64> = (0..128 * 2 * 16).collect();
    x.write_logical(&mut s.dm, &["A", "H", "V"], &codes)
        .unwrap();
    let b = begin(&s.dm, &x.view());
    let fetched = b.clone().fetch(&s.m("H"), &s.m("V")).unwrap();
    let (lifted, plan) = b
        .fetch_lift(fetched, LiftDim::Slice, &s.m("A, H"), &s.m("1"))
        .unwrap();
    assert_eq!(plan.bases[1], 16);
    assert_eq!(plan.fetch.cycles, 1);
    // slice 3 = (a = 1, h = 1): x[1, 1, v] = 32 + 16 + v.
    assert_eq!(lifted.ints()[3 * 16 + 7], 55);

    // The G twin: slices 2a + g hold y[a, g, h, v] = 1000g + 32a + 16h + v.
    let mut s = Setup::new("A=128, H=2, V=16, G=2");
    let written = s.place(DType::BF16, "A, G", "H, V", 0);
    let codes: Vec<u64> = (0..128usize * 2 * 2 * 16)
        .map(|i| {
            let (a, g, hv) = (i / 64, i / 32 % 2, i % 32);
            (1000 * g + 32 * a + hv) as u64
        })
        .collect();
    written
        .write_logical(&mut s.dm, &["A", "G", "H", "V"], &codes)
        .unwrap();
    let named = s.place(DType::BF16, "A, 2", "H, V", 0);
    let b = begin(&s.dm, &named.view());
    let fetched = b.clone().fetch(&s.m("H"), &s.m("V")).unwrap();
    let e = b
        .fetch_slice_lift(fetched, &s.m("A, H"), &s.m("1"))
        .unwrap_err();
    let FetchError::Lift(lift) = e else {
        panic!("{e}")
    };
    let LiftError::NotReplicated {
        unit,
        copy,
        element,
        code,
        copy_code,
        ..
    } = *lift
    else {
        panic!("{lift}")
    };
    // Slice 1 reads element 16 (h = 1, v = 0): 1000 + 16 there, 16 in slice 0.
    assert_eq!((unit, copy, element, code, copy_code), (1, 0, 16, 1016, 16));
}

/// L3, the requirements, each with the error naming its rule.
#[test]
fn l3_lift_rules_are_refused_with_the_rule() {
    let mut s = Setup::new("A=128, Q=4, V=16");
    let x = s.place(DType::BF16, "A, 2", "Q, V", 0);
    let codes: Vec<u64> = (0..128 * 4 * 16).collect();
    x.write_logical(&mut s.dm, &["A", "Q", "V"], &codes)
        .unwrap();
    let b = begin(&s.dm, &x.view());
    let fetch = || b.clone().fetch(&s.m("Q"), &s.m("V")).unwrap();
    let lift = |dim, out: &str, time: &str| {
        b.fetch_lift(fetch(), dim, &s.m(out), &s.m(time))
            .map(|r| r.0)
            .unwrap_err()
            .to_string()
    };
    // Sizes: 128 slices out of 256.
    let e = lift(LiftDim::Slice, "A", "Q");
    assert!(e.contains("sizes of the lifted dimension match"), "{e}");
    // An existing axis moves: slice s held A = s / 2, now A = s % 128.
    let e = lift(LiftDim::Slice, "Q / 2, A", "Q % 2");
    assert!(e.contains("only broadcasts change"), "{e}");
    // The lifted axis stays in Time: unit 1 from base 32 would read Q = 2 + 2 at time 2.
    let e = lift(LiftDim::Slice, "A, Q / 2", "Q");
    assert!(e.contains("lifted axes leave OutTime"), "{e}");
    // Order and once per dimension.
    let (once, _) = b
        .fetch_lift(fetch(), LiftDim::Slice, &s.m("A, Q / 2"), &s.m("Q % 2"))
        .unwrap();
    let again = b
        .fetch_lift(
            once.clone(),
            LiftDim::Slice,
            &s.m("A, Q / 2"),
            &s.m("Q % 2"),
        )
        .unwrap_err()
        .to_string();
    assert!(again.contains("at most one lift per dimension"), "{again}");
    let late = b
        .fetch_lift(once, LiftDim::Cluster, &s.m("1 # 2"), &s.m("Q % 2"))
        .unwrap_err()
        .to_string();
    assert!(late.contains("Chip, Cluster, Slice order"), "{late}");
    // Only after fetch: a collected stream has no lift.
    let collected = fetch().collect(&s.m("Q"), &s.m("V")).unwrap();
    let e = b
        .fetch_lift(collected, LiftDim::Slice, &s.m("A, Q / 2"), &s.m("Q % 2"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`fetch_slice_lift` cannot be called on a CollectTensor"),
        "{e}"
    );
}

/// L4: a base that is not a multiple of 8 bytes (i8, V = 2: the second slice of a pair would
/// start at Q = 2, element 2 × 2 = 4, 4 bytes), and a broadcast of 3 lifted (`Slice = m![A, 3]`,
/// A = 64, lifted to `m![A, Q]`, Q = 3: three units share one placement cell).
#[test]
fn l4_base_alignment_and_size_2_groups() {
    let mut s = Setup::new("A=128, Q=4, V=2");
    let x = s.place(DType::I8, "A, 2", "Q, V", 0);
    let codes: Vec<u64> = (0..128 * 4 * 2).map(|i| i % 128).collect();
    x.write_logical(&mut s.dm, &["A", "Q", "V"], &codes)
        .unwrap();
    let b = begin(&s.dm, &x.view());
    let fetched = b.clone().fetch(&s.m("Q"), &s.m("V")).unwrap();
    let e = b
        .fetch_lift(fetched, LiftDim::Slice, &s.m("A, Q / 2"), &s.m("Q % 2"))
        .unwrap_err();
    assert!(
        matches!(
            e,
            FetchError::Lift(ref l) if matches!(**l, LiftError::BaseAlignment {
                unit: 1,
                elements: 4,
                bytes: 4,
                ..
            })
        ),
        "{e}"
    );

    let mut s = Setup::new("A=64, Q=3, V=16");
    let x = s.place(DType::I8, "A, 3", "Q, V", 0);
    let codes: Vec<u64> = (0..64 * 3 * 16).map(|i| i % 128).collect();
    x.write_logical(&mut s.dm, &["A", "Q", "V"], &codes)
        .unwrap();
    let b = begin(&s.dm, &x.view());
    let fetched = b.clone().fetch(&s.m("Q"), &s.m("V")).unwrap();
    let e = b
        .fetch_lift(fetched, LiftDim::Slice, &s.m("A, Q"), &s.m("1"))
        .unwrap_err();
    assert!(
        matches!(e, FetchError::Lift(ref l) if matches!(**l, LiftError::Group { units: 3, .. })),
        "{e}"
    );
    assert!(
        e.to_string().contains("a broadcast of 3 may not change"),
        "{e}"
    );
}

/// I1, the book's interleaved fetch: `A = 16, B = 32, I = 2`, i8 lhs and rhs placed as
/// `m![1], m![1 # 2], m![1 # 256], m![A, B]`; `begin_interleaved::<I>(lhs, rhs)
/// .fetch::<m![A, I], m![B]>()`. Time step t = 2a + i holds lhs[a, ·] for i = 0, rhs[a, ·] for
/// i = 1. One sequencer over `m![I, A, B]`: `[16:32, 2:512, 32:1] : 32`, one 32-byte read per
/// packet, 32 cycles. With lhs[a, b] = a + b and rhs[a, b] = 100 + a + b: (t = 3, b = 2) holds
/// 103, (t = 0, b = 31) 31, (t = 31, b = 0) 115.
#[test]
fn i1_interleaved_fetch_alternates_lhs_and_rhs() {
    let mut s = Setup::new("A=16, B=32, I=2");
    let lhs = s.place(DType::I8, "1 # 256", "A, B", 0);
    let rhs = s.place(DType::I8, "1 # 256", "A, B", 512);
    let l: Vec<u64> = (0..512u64).map(|i| i / 32 + i % 32).collect();
    let r: Vec<u64> = l.iter().map(|v| v + 100).collect();
    lhs.write_logical(&mut s.dm, &["A", "B"], &l).unwrap();
    rhs.write_logical(&mut s.dm, &["A", "B"], &r).unwrap();
    let b = begin_interleaved(&s.dm, &s.m("I"), &lhs.view(), &rhs.view()).unwrap();
    let plan = b.plan(&s.m("A, I"), &s.m("B")).unwrap();
    assert_eq!(plan.sequencer.to_string(), "[16:32, 2:512, 32:1] : 32");
    assert_eq!(
        (plan.read_bytes, plan.reads_per_packet, plan.cycles),
        (32, 1, 32)
    );
    let t = b.fetch(&s.m("A, I"), &s.m("B")).unwrap();
    assert_eq!(t.position(), Position::Fetch);
    assert_eq!(t.time().m_notation(), "A, I");
    let ints = t.ints();
    assert_eq!(ints[3 * 32 + 2], 103);
    assert_eq!(ints[31], 31);
    assert_eq!(ints[31 * 32], 115);
}

/// I2: the rules of interleaving: identical mappings, a size-2 axis, `I` in Time.
#[test]
fn i2_interleave_rules() {
    let s = Setup::new("A=16, B=32, I=2, J=4");
    let lhs = s.place(DType::I8, "1 # 256", "A, B", 0);
    let rhs = s.place(DType::I8, "1 # 256", "B, A", 512);
    let e = begin_interleaved(&s.dm, &s.m("I"), &lhs.view(), &rhs.view()).unwrap_err();
    assert!(
        matches!(
            e,
            FetchError::Interleave(InterleaveError::Mismatch {
                what: "Element",
                ..
            })
        ),
        "{e}"
    );
    let rhs = s.place(DType::I8, "1 # 256", "A, B", 512);
    let e = begin_interleaved(&s.dm, &s.m("J"), &lhs.view(), &rhs.view()).unwrap_err();
    assert!(e.to_string().contains("at most two tensors"), "{e}");
    let b = begin_interleaved(&s.dm, &s.m("I"), &lhs.view(), &rhs.view()).unwrap();
    let e = b.plan(&s.m("A"), &s.m("B")).unwrap_err();
    assert!(
        matches!(e, FetchError::Interleave(InterleaveError::NotInTime { .. })),
        "{e}"
    );
}
