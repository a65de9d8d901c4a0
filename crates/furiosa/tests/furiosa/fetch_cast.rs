//! The Fetch Adapter's cast (`docs/furiosa-engines.md` §4.4): F10 (the read-size limit and the
//! values of `fetch_commit_simple`) and F11 (the conversions).

use npusim_furiosa::dm::DmTensor;
use npusim_furiosa::engine::fetch::begin;
use npusim_furiosa::engine::fetch_cast::{FETCH_CAST_LATENCY, fetch_cast_code};
use npusim_furiosa::schedule::EngineRecord;
use npusim_furiosa::{DType, Position};

use crate::fetch::Setup;

#[test]
fn f10_fetch_cast_limits_the_read_and_sign_extends() {
    let mut s = Setup::new("A=4096, B=8");
    let x = DmTensor::from_addr(
        &s.dm,
        DType::I8,
        &s.m("1"),
        &s.m("1 # 2"),
        &s.m("A / 16"),
        &s.m("A / 8 % 2, A % 8, B"),
        0,
    )
    .expect("x");
    let codes: Vec<u64> = (0..4096 * 8).map(|i| (i % 256) as u64).collect();
    x.write_logical(&mut s.dm, &["A", "B"], &codes)
        .expect("load");
    let (time, packet) = (s.m("A / 8 % 2"), s.m("A % 8, B"));
    let b = begin(&s.dm, &x.view());
    let plain = b.plan(&time, &packet).expect("plan");
    assert_eq!(plain.sequencer.to_string(), "[2:64, 8:8, 8:1] : 64");
    assert_eq!(
        (
            plain.sequencer.contiguous_run(),
            plain.sequencer.access_elems(),
            plain.read_elems
        ),
        (128, 64, 32)
    );
    let cast = b.plan_cast(&time, &packet, DType::I32).expect("plan");
    assert_eq!(
        (cast.read_elems, cast.reads_per_packet, cast.cycles),
        (8, 8, 16)
    );
    let f = b
        .fetch(&time, &packet)
        .expect("fetch")
        .fetch_cast::<i32>()
        .expect("cast");
    assert_eq!((f.position(), f.dtype()), (Position::FetchCast, DType::I32));
    // Stream cell (a, b) of slice a / 16 holds sign_extend((8a + b) mod 256): a = 16, b = 1
    // is slice 1, time 0, lane 1: 129 -> -127.
    let ints = f.ints();
    let tp = 2 * 64;
    let at = |cluster: usize, slice: usize, t: usize, lane: usize| {
        ints[((cluster * 256 + slice) * tp) + t * 64 + lane]
    };
    assert_eq!(at(0, 1, 0, 1), -127);
    assert_eq!(at(0, 0, 1, 8 * 7 + 7), (8 * 15 + 7) as i64);
    assert_eq!(at(1, 0, 0, 0), 0, "cluster 1 is padding");
    // Collect then takes the 256-byte packet as 8 flits.
    let c = f
        .collect(&s.m("A / 8 % 2, A % 8"), &s.m("B"))
        .expect("collect");
    assert_eq!(c.time().size(), 16);
}

#[test]
fn f11_conversions() {
    let c = |code, src, dst| fetch_cast_code(code, src, dst);
    assert_eq!(
        [0x7, 0x8, 0xF].map(|x| c(x, DType::I4, DType::I32) as u32 as i32),
        [7, -8, -1]
    );
    assert_eq!(c(0x3F80, DType::BF16, DType::F32), 1.0f32.to_bits() as u64);
    assert_eq!(c(0x7F81, DType::BF16, DType::F32), 0x7FC0_0000);
    assert_eq!(c(0x0001, DType::BF16, DType::F32), 0);
    assert_eq!(c(0x8001, DType::BF16, DType::F32), 0x8000_0000);
    let one_plus = (1.0f32 + 2f32.powi(-8)).to_bits() as u64;
    assert_eq!(c(one_plus, DType::F32, DType::BF16), 0x3F80);
    assert_eq!(
        c(f32::MAX.to_bits() as u64, DType::F32, DType::BF16),
        0x7F80
    );
    // f8e4m3 0x38 = 1.0.
    assert_eq!(c(0x38, DType::F8E4M3, DType::F32), 1.0f32.to_bits() as u64);
}

#[test]
fn fetch_cast_refuses_a_pair_and_a_position() {
    let mut s = Setup::new("X=32");
    let x = s.place(DType::I32, "X", 0);
    x.write_logical(&mut s.dm, &["X"], &[0; 32]).expect("load");
    let f = begin(&s.dm, &x.view())
        .fetch(&s.m("1"), &s.m("X"))
        .expect("fetch");
    let e = f.clone().fetch_cast_to(DType::I8).unwrap_err();
    assert!(e.to_string().contains("cannot convert i32 to i8"), "{e}");
    let c = f.collect(&s.m("X / 8"), &s.m("X % 8")).expect("collect");
    let e = c.fetch_cast_to(DType::I32).unwrap_err();
    assert!(e.to_string().contains("CollectTensor"), "{e}");
}

/// F10 from DM to DM (`fetch_commit_simple` of [TUIO]): the i8 tensor widened to i32 by the
/// Fetch Adapter and committed as `A / 8 % 2, A % 8, B` at 1024 in every slice: element
/// (a, b) of slice a / 16 is the 4 bytes at `1024 + 4·(64·(a / 8 % 2) + 8·(a % 8) + b)`,
/// holding sign_extend((8a + b) mod 256); cluster 1 keeps the fill byte.
#[test]
fn f10_dm_to_dm() {
    use npusim_furiosa::dm::SliceId;
    let mut s = Setup::new("A=4096, B=8");
    let x = DmTensor::from_addr(
        &s.dm,
        DType::I8,
        &s.m("1"),
        &s.m("1 # 2"),
        &s.m("A / 16"),
        &s.m("A / 8 % 2, A % 8, B"),
        0,
    )
    .expect("x");
    let codes: Vec<u64> = (0..4096 * 8).map(|i| (i % 256) as u64).collect();
    x.write_logical(&mut s.dm, &["A", "B"], &codes)
        .expect("load");
    let (time, packet) = (s.m("A / 8 % 2"), s.m("A % 8, B"));
    let (time2, b8) = (s.m("A / 8 % 2, A % 8"), s.m("B"));
    let out = s.m("A / 8 % 2, A % 8, B");
    let stream = begin(&s.dm, &x.view())
        .fetch(&time, &packet)
        .expect("fetch")
        .fetch_cast::<i32>()
        .expect("cast")
        .collect(&time2, &b8)
        .expect("collect")
        .commit_trim(&b8)
        .expect("trim");
    let (_, plan) = stream.commit_at(&mut s.dm, &out, 1024).expect("commit");
    assert_eq!(
        (plan.sequencer.to_string(), plan.write_bytes, plan.cycles),
        ("[2:64, 8:8, 8:1] : 8".into(), 32, 16)
    );
    // §10.4 F10: fetch 16 with fetch_cast's 2 cycles of latency, collect 16, commit 16:
    // collect and commit start at 2, everything finishes at 18.
    let fp = begin(&s.dm, &x.view())
        .plan_cast(&time, &packet, DType::I32)
        .expect("plan");
    let (rows, total) = crate::dm_kernels::timings(&[
        EngineRecord::fetch(&fp, FETCH_CAST_LATENCY as u64),
        EngineRecord::collect(16),
        EngineRecord::commit(&plan, 0),
    ]);
    assert_eq!(total, 18);
    assert_eq!(rows[0], (16, 2, 0, 18, 0));
    assert_eq!(rows[1], (16, 0, 2, 18, 0));
    assert_eq!(rows[2], (16, 0, 2, 18, 0));
    let word = |cluster, slice, addr| {
        let id = SliceId {
            chip: 0,
            cluster,
            slice,
        };
        let b = s.dm.read_bytes(id, addr, 4).expect("read");
        i32::from_le_bytes([b[0], b[1], b[2], b[3]])
    };
    for (a, b) in [(16usize, 1usize), (0, 0), (31, 7), (4095, 7), (200, 3)] {
        let addr = 1024 + 4 * (64 * (a / 8 % 2) + 8 * (a % 8) + b);
        let want = ((8 * a + b) % 256) as u8 as i8 as i32;
        assert_eq!(word(0, a / 16, addr), want, "a {a} b {b}");
    }
    assert_eq!(word(0, 1, 1024 + 4), -127);
    let id = SliceId {
        chip: 0,
        cluster: 1,
        slice: 0,
    };
    assert_eq!(s.dm.read_bytes(id, 1024, 4).expect("read"), [0xA5; 4]);
}
