//! The vendor-shaped API (`docs/furiosa-engines.md` §2.4, §4.5, §11.1): `Device` with `main`
//! and `sub` contexts, kernels written as the book's method chains, the schedule collected
//! from the chain. Expected values and cycles are the document's hand derivations.

use npusim_furiosa::device::{Device, Topology, TuStreamError};
use npusim_furiosa::mapping::{Axes, Mapping};
use npusim_furiosa::schedule::Context;
use npusim_furiosa::{DType, InterSliceReduceOpI32};

fn m(ax: &Axes, s: &str) -> Mapping {
    Mapping::parse(s, ax).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// The Fetch Engine page's `named_broadcast`, ported line for line (the DMA that replicates
/// `[H, V]` across `Rep` is a replicated load of the `m![A, 2]` placement):
///
/// ```text
/// device.main
///     .begin(dm.view())
///     .fetch::<m![H], m![V]>()
///     .fetch_slice_lift::<m![A, H], m![1]>()
///     .collect::<m![1], m![V]>()
///     .commit_trim::<m![V]>()
///     .commit()
/// ```
///
/// The result `DmTensor<bf16, m![1], m![1 # 2], m![A, H], m![V]>` holds in slice `2a + h`
/// the row `x[a, h, ·]`; it is placed after x (64 bytes of `m![H, V]` bf16): at 64. Schedule:
/// the lifted fetch reads one 32-byte packet (1 cycle; 2 without the lift), collect 1,
/// commit 1: total 1.
#[test]
fn the_books_named_broadcast_line_for_line() -> Result<(), Box<dyn std::error::Error>> {
    let ax = Axes::parse("A=128, H=2, V=16")?;
    let device = Device::new(Topology { chips: 1, pes: 8 });
    let dm = device.place(
        DType::BF16,
        &m(&ax, "1"),
        &m(&ax, "1 # 2"),
        &m(&ax, "A, 2"),
        &m(&ax, "H, V"),
        0,
    )?;
    let x: Vec<u64> = (0..128 * 2 * 16).collect();
    device.write_logical(&dm, &["A", "H", "V"], &x)?;

    let out = device
        .main
        .begin(dm.view())
        .fetch(&m(&ax, "H"), &m(&ax, "V"))?
        .fetch_slice_lift(&m(&ax, "A, H"), &m(&ax, "1"))?
        .collect(&m(&ax, "1"), &m(&ax, "V"))?
        .commit_trim(&m(&ax, "V"))?
        .commit(&m(&ax, "V"))?;

    assert_eq!(out.slice().m_notation(), "A, H");
    assert_eq!(out.address(), 64);
    assert_eq!(device.read_logical(&out, &["A", "H", "V"])?, x);
    let inv = device.main.last_schedule().expect("scheduled");
    let busy: Vec<u64> = inv.engines.iter().map(|e| e.busy).collect();
    assert_eq!((busy, inv.total), (vec![1, 1, 1], 1));
    assert!(device.sub.last_schedule().is_none());
    Ok(())
}

/// §11.1's K6 in the chain form: `x[r, t, a] = a + 1000t − 100r`, reduced over R by the
/// inter-slice reducer and cast to i8: `y[t, a] = wrap(4a + 4000t − 600)`; committed after x
/// (512 bytes) at 512. Schedule (§10.4): fetch 16, collect 16, vector 16 + 3, cast 16,
/// commit 16: total 19.
#[test]
fn k6_as_a_chain() -> Result<(), Box<dyn std::error::Error>> {
    let ax = Axes::parse("R=4, A=512, T=16")?;
    let dev = Device::new(Topology { chips: 1, pes: 8 });
    let x = dev.place(
        DType::I32,
        &m(&ax, "1"),
        &m(&ax, "1 # 2"),
        &m(&ax, "A / 8, R"),
        &m(&ax, "T, A % 8"),
        0,
    )?;
    let mut codes = Vec::with_capacity(4 * 16 * 512);
    for r in 0..4i64 {
        for t in 0..16i64 {
            for a in 0..512i64 {
                codes.push((a + 1000 * t - 100 * r) as i32 as u32 as u64);
            }
        }
    }
    dev.write_logical(&x, &["R", "T", "A"], &codes)?;
    let y = dev
        .main
        .begin(x.view())
        .fetch(&m(&ax, "T"), &m(&ax, "A % 8"))?
        .collect(&m(&ax, "T"), &m(&ax, "A % 8"))?
        .vector_init()?
        .vector_inter_slice_reduce(
            &m(&ax, "A / 8, 1 # 4"),
            &m(&ax, "T"),
            InterSliceReduceOpI32::AddSat,
        )?
        .vector_final()?
        .cast::<i8>(&m(&ax, "A % 8 # 32"))?
        .commit_trim(&m(&ax, "A % 8"))?
        .commit(&m(&ax, "T, A % 8"))?;
    assert_eq!(y.byte_range(), 512..640);
    let out = dev.read_logical(&y, &["T", "A"])?;
    for t in 0..16i64 {
        for a in 0..512i64 {
            let want = (4 * a + 4000 * t - 600) as i8;
            assert_eq!(out[(t * 512 + a) as usize] as u8 as i8, want, "y[{t}, {a}]");
        }
    }
    let s = dev.schedule();
    assert_eq!((s.invocations.len(), s.makespan), (1, 19));
    Ok(())
}

/// The sub context through the device: K2 (f8e4m3 `A = 3, B = 5, C = 2`) on `dev.sub` takes
/// 12 cycles (8-byte accesses), while a copy on `dev.main` of another tensor overlaps it (3
/// cycles, disjoint DM, no Vector Engine): makespan 12. A table lookup on `dev.sub` is refused.
#[test]
fn the_sub_context_through_the_device() -> Result<(), Box<dyn std::error::Error>> {
    let ax = Axes::parse("A=3, B=5, C=2")?;
    let dev = Device::new(Topology { chips: 1, pes: 8 });
    let one = m(&ax, "1");
    let x = dev.place(DType::F8E4M3, &one, &one, &one, &m(&ax, "A, B, C"), 0)?;
    let x2 = dev.place(DType::F8E4M3, &one, &one, &one, &m(&ax, "A, B, C"), 64)?;
    let (t, p) = (m(&ax, "A"), m(&ax, "[B, C] # 32"));
    let run = |ctx: &npusim_furiosa::device::TuContext, v, at| {
        ctx.begin(v)
            .fetch(&t, &p)?
            .collect(&t, &p)?
            .commit_trim(&p)?
            .commit_at(&m(&ax, "A, [B, C] # 32"), at)
    };
    run(&dev.sub, x.view(), 1024)?;
    run(&dev.main, x2.view(), 2048)?;
    let s = dev.schedule();
    let totals: Vec<(Context, u64, u64)> = s
        .invocations
        .iter()
        .map(|i| (i.invocation.context, i.start, i.invocation.total))
        .collect();
    assert_eq!(totals, vec![(Context::Sub, 0, 12), (Context::Main, 0, 3)]);
    assert_eq!(s.makespan, 12);
    let e = dev
        .sub
        .begin(x.view())
        .fetch(&m(&ax, "A, B"), &m(&ax, "C # 8"))?
        .fetch_table_lookup::<npusim_furiosa::dtype::Bf16>()
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("fetch_table_lookup runs in the main context only"),
        "{e}"
    );
    Ok(())
}

/// A stage where the chain cannot take it is refused naming the rule.
#[test]
fn chain_order_is_checked() -> Result<(), Box<dyn std::error::Error>> {
    let ax = Axes::parse("A=4, B=8")?;
    let dev = Device::new(Topology { chips: 1, pes: 8 });
    let one = m(&ax, "1");
    let x = dev.place(DType::I8, &one, &one, &one, &m(&ax, "A, B"), 0)?;
    let e = dev
        .main
        .begin(x.view())
        .collect(&m(&ax, "A"), &m(&ax, "B"))
        .unwrap_err();
    assert!(
        matches!(
            e,
            TuStreamError::Order {
                method: "collect",
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "`collect` cannot be called on a BeginTensor (rule: a BeginTensor goes on with fetch)"
    );
    Ok(())
}
