//! First DM-to-DM kernels (`docs/furiosa-engines.md` §7 K0, §8.3 K1–K3): DM -> fetch ->
//! collect (-> cast) -> commit_trim -> commit -> DM, every DM byte compared with the
//! document's expected values; the fill byte 0xA5 proves padding is never read back.

use npusim_furiosa::DType;
use npusim_furiosa::dm::SliceId;
use npusim_furiosa::engine::collect::collect_cycles;
use npusim_furiosa::engine::fetch::begin;
use npusim_furiosa::schedule::{Context, EngineRecord, InvocationSchedule};

use crate::fetch::{Setup, abc};

/// (busy, fill, start, finish, stall) of one engine.
pub(crate) type Timing = (u64, u64, u64, u64, u64);

/// The [`Timing`] of every engine and the total of an invocation scheduled by §10.2's
/// recurrence.
pub(crate) fn timings(records: &[EngineRecord]) -> (Vec<Timing>, u64) {
    let inv = InvocationSchedule::new(Context::Main, records);
    let rows = inv
        .engines
        .iter()
        .map(|e| (e.busy, e.record.fill, e.start, e.finish, e.stall))
        .collect();
    (rows, inv.total)
}

const SLICE0: SliceId = SliceId {
    chip: 0,
    cluster: 0,
    slice: 0,
};

#[test]
fn k0_cast_i32_to_i8_dm_to_dm() {
    let mut s = Setup::new("B=4, A=8");
    let x = s.place(DType::I32, "B, A", 0);
    let codes: Vec<u64> = (0..32).map(|i: i32| (37 * i - 500) as u32 as u64).collect();
    x.write_logical(&mut s.dm, &["B", "A"], &codes)
        .expect("load");
    let b = begin(&s.dm, &x.view());
    let plan = b.plan(&s.m("B"), &s.m("A")).expect("plan");
    assert_eq!(
        (plan.sequencer.to_string(), plan.read_bytes, plan.cycles),
        ("[4:8, 8:1] : 8".into(), 32, 4)
    );
    let fetch = EngineRecord::fetch(&plan, 0);
    let stream = b
        .fetch(&s.m("B"), &s.m("A"))
        .expect("fetch")
        .collect(&s.m("B"), &s.m("A"))
        .expect("collect");
    let collect = EngineRecord::collect(collect_cycles(&stream) as u64);
    let cast = EngineRecord::cast(stream.time().size() as u64);
    let stream = stream
        .cast::<i8>(&s.m("A # 32"))
        .expect("cast")
        .commit_trim(&s.m("A"))
        .expect("trim");
    let out = s.m("B, A");
    let (y, plan) = stream.commit_at(&mut s.dm, &out, 128).expect("commit");
    assert_eq!(
        (plan.sequencer.to_string(), plan.write_bytes, plan.cycles),
        ("[4:8, 8:1] : 8".into(), 8, 4)
    );
    // §10.4 K0: fetch 4, collect 4, cast 4, commit 4: total 4, no stall.
    let (rows, total) = timings(&[fetch, collect, cast, EngineRecord::commit(&plan, 0)]);
    assert_eq!(total, 4);
    assert!(rows.iter().all(|r| *r == (4, 0, 0, 4, 0)), "{rows:?}");
    assert_eq!(y.byte_range(), 128..160);
    let bytes = s.dm.read_bytes(SLICE0, 128, 40).expect("read");
    for (i, &byte) in bytes[..32].iter().enumerate() {
        assert_eq!(byte as i8, (37 * i as i32 - 500) as i8, "element {i}");
    }
    assert_eq!(bytes[0] as i8, 12);
    assert_eq!(bytes[8 + 5] as i8, -19);
    assert_eq!(bytes[31] as i8, -121);
    assert_eq!(&bytes[32..], &[0xA5; 8]);
}

#[test]
fn k1_axis_permutation() {
    let mut s = Setup::new("A=3, B=5, C=2");
    let x = abc(&mut s);
    let b = begin(&s.dm, &x.view());
    let fp = b.plan(&s.m("A, B"), &s.m("C # 8")).expect("plan");
    let f = b.fetch(&s.m("A, B"), &s.m("C # 8")).expect("fetch");
    let c = f.collect(&s.m("A, B"), &s.m("C # 32")).expect("collect");
    assert_eq!(collect_cycles(&c), 15);
    let out = s.m("B, A, C # 8");
    let (_, plan) = c
        .commit_trim(&s.m("C # 8"))
        .expect("trim")
        .commit_at(&mut s.dm, &out, 1024)
        .expect("commit");
    assert_eq!(
        (plan.sequencer.to_string(), plan.write_bytes, plan.cycles),
        ("[3:8, 5:24, 8:1] : 8".into(), 8, 15)
    );
    // §10.4 K1: fetch 15, collect 15, commit 15: total 15.
    let (rows, total) = timings(&[
        EngineRecord::fetch(&fp, 0),
        EngineRecord::collect(15),
        EngineRecord::commit(&plan, 0),
    ]);
    assert_eq!(total, 15);
    assert!(rows.iter().all(|r| r.0 == 15 && r.4 == 0), "{rows:?}");
    let bytes = s.dm.read_bytes(SLICE0, 1024, 128).expect("read");
    for bb in 0..5 {
        for a in 0..3 {
            for c in 0..8 {
                let got = bytes[24 * bb + 8 * a + c];
                let want = if c < 2 {
                    (10 * a + 2 * bb + c) as u8
                } else {
                    0xA5
                };
                assert_eq!(got, want, "b {bb} a {a} c {c}");
            }
        }
    }
    assert_eq!(bytes[41], 23, "byte 1065 holds input byte 23");
    assert_eq!(&bytes[120..], &[0xA5; 8], "the output ends at 1143");
}

#[test]
fn k2_full_flit_commit() {
    let mut s = Setup::new("A=3, B=5, C=2");
    let x = abc(&mut s);
    let b = begin(&s.dm, &x.view());
    let fp = b.plan(&s.m("A"), &s.m("[B, C] # 32")).expect("plan");
    assert_eq!(
        (fp.sequencer.to_string(), fp.cycles, fp.last_byte),
        ("[3:10, 32:1] : 32".into(), 3, 51)
    );
    let out = s.m("A, [B, C] # 32");
    let (_, plan) = b
        .fetch(&s.m("A"), &s.m("[B, C] # 32"))
        .expect("fetch")
        .collect(&s.m("A"), &s.m("[B, C] # 32"))
        .expect("collect")
        .commit_trim(&s.m("[B, C] # 32"))
        .expect("trim")
        .commit_at(&mut s.dm, &out, 1024)
        .expect("commit");
    assert_eq!(
        (plan.sequencer.to_string(), plan.write_bytes, plan.cycles),
        ("[3:32, 32:1] : 32".into(), 32, 3)
    );
    // §10.4 K2: fetch 3, collect 3, commit 3: total 3.
    let (_, total) = timings(&[
        EngineRecord::fetch(&fp, 0),
        EngineRecord::collect(3),
        EngineRecord::commit(&plan, 0),
    ]);
    assert_eq!(total, 3);
    let bytes = s.dm.read_bytes(SLICE0, 1024, 96).expect("read");
    for a in 0..3 {
        for j in 0..32 {
            let want = if j < 10 { (10 * a + j) as u8 } else { 0xA5 };
            assert_eq!(bytes[32 * a + j], want, "a {a} j {j}");
        }
    }
}

/// K3 tail padding (§8.3), the four rows of the table: `A = 65, B = 2`, input `B, A # 72`,
/// output `B, A # P` at 1024 with `w`-byte packets. The book's 6 fetch cycles for P = 72 are
/// 18 by its own Fetch Engine rule (three 8-byte reads per 24-byte packet).
#[test]
fn k3_tail_padding_four_rows() {
    let rows = [
        (
            72,
            24,
            "[2:72, 3:24, 24:1] : 24",
            3,
            18,
            "[2:72, 3:24, 24:1] : 24",
            6,
        ),
        (
            80,
            16,
            "[2:72, 5:16, 16:1] : 16",
            1,
            10,
            "[2:80, 5:16, 16:1] : 16",
            10,
        ),
        (
            88,
            8,
            "[2:72, 11:8, 8:1] : 8",
            1,
            22,
            "[2:88, 11:8, 8:1] : 8",
            22,
        ),
        (
            96,
            32,
            "[2:72, 3:32, 32:1] : 32",
            1,
            6,
            "[2:96, 3:32, 32:1] : 32",
            6,
        ),
    ];
    for (pp, w, fetch_entries, reads, fetch_cycles, commit_entries, commit_cycles) in rows {
        let mut s = Setup::new("A=65, B=2");
        let x = s.place(DType::F8E4M3, "B, A # 72", 0);
        let codes: Vec<u64> = (0..130).collect();
        x.write_logical(&mut s.dm, &["B", "A"], &codes)
            .expect("load");
        let time = s.m(&format!("B, A # {pp} / {w}"));
        let packet = s.m(&format!("A # {pp} % {w}"));
        let b = begin(&s.dm, &x.view());
        let fp = b.plan(&time, &packet).expect("plan");
        assert_eq!(
            (fp.sequencer.to_string(), fp.reads_per_packet, fp.cycles),
            (fetch_entries.to_string(), reads, fetch_cycles),
            "P = {pp}"
        );
        let out = s.m(&format!("B, A # {pp}"));
        let (_, plan) = b
            .fetch(&time, &packet)
            .expect("fetch")
            .collect(&time, &s.m(&format!("A # {pp} % {w} # 32")))
            .expect("collect")
            .commit_trim(&packet)
            .expect("trim")
            .commit_at(&mut s.dm, &out, 1024)
            .expect("commit");
        assert_eq!(
            (plan.sequencer.to_string(), plan.cycles),
            (commit_entries.to_string(), commit_cycles),
            "P = {pp}"
        );
        // §10.4: P = 72 is fetch-bound (18; collect and commit stall 12), P = 96 takes 6.
        let flits = time.size() as u64;
        let (rows, total) = timings(&[
            EngineRecord::fetch(&fp, 0),
            EngineRecord::collect(flits),
            EngineRecord::commit(&plan, 0),
        ]);
        assert_eq!(total, fetch_cycles.max(commit_cycles) as u64, "P = {pp}");
        if pp == 72 {
            assert_eq!(total, 18);
            assert_eq!(rows[1], (6, 0, 0, 18, 12));
            assert_eq!(rows[2], (6, 0, 0, 18, 12));
        }
        if pp == 96 {
            assert_eq!(total, 6);
            assert!(rows.iter().all(|r| r.4 == 0), "{rows:?}");
        }
        let bytes = s.dm.read_bytes(SLICE0, 1024, 2 * pp + 8).expect("read");
        for bb in 0..2 {
            for a in 0..pp {
                let want = if a < 65 { (65 * bb + a) as u8 } else { 0xA5 };
                assert_eq!(bytes[pp * bb + a], want, "P = {pp}: b {bb} a {a}");
            }
        }
        assert_eq!(
            &bytes[2 * pp..],
            &[0xA5; 8],
            "P = {pp}: output ends at {}",
            1024 + 2 * pp
        );
    }
}

/// K4 segmentation (§8.3): `A = 2048, B = 32` i8 copied in two tiles of 1024 rows; after the
/// first invocation only, the second half of `y` still holds the fill byte.
#[test]
fn k4_segmentation_with_tiles_and_commit_view() {
    let mut s = Setup::new("A=2048, B=32");
    let x = s.place(DType::I8, "A, B", 0);
    let y = s.place(DType::I8, "A, B", 262_144);
    let codes: Vec<u64> = (0..65_536u64).map(|i| (i * 7 + i / 251) % 256).collect();
    x.write_logical(&mut s.dm, &["A", "B"], &codes)
        .expect("load");
    let (index, tile) = (s.m("A"), s.m("A = 1024 # 2048, B"));
    let (time, packet) = (s.m("A = 1024"), s.m("B"));
    let mut schedule = npusim_furiosa::schedule::Schedule::new();
    for k in 0..2 {
        let src = x
            .view()
            .tile(&index, 1024, &tile, 1024 * k)
            .expect("src tile");
        let dst = y
            .view_mut()
            .tile(&index, 1024, &tile, 1024 * k)
            .expect("dst tile");
        assert_eq!(
            (src.address(), dst.address()),
            (32_768 * k, 262_144 + 32_768 * k)
        );
        let b = begin(&s.dm, &src);
        let fp = b.plan(&time, &packet).expect("plan");
        assert_eq!(
            (fp.sequencer.to_string(), fp.cycles),
            ("[1024:32, 32:1] : 32".into(), 1024)
        );
        let stream = b
            .clone()
            .fetch(&time, &packet)
            .expect("fetch")
            .collect(&time, &packet)
            .expect("collect")
            .commit_trim(&packet)
            .expect("trim");
        let plan = stream.commit_view(&mut s.dm, &dst).expect("commit_view");
        assert_eq!(
            (plan.sequencer.to_string(), plan.cycles),
            ("[1024:32, 32:1] : 32".into(), 1024)
        );
        let inv = InvocationSchedule::new(
            Context::Main,
            &[
                EngineRecord::fetch(&fp, 0),
                EngineRecord::collect(1024),
                EngineRecord::commit(&plan, 0),
            ],
        );
        assert_eq!(inv.total, 1024);
        // §10.4 K4: the two segments are serial in the main context.
        assert_eq!(schedule.push(inv), 1024 * k as u64);
        let out = s.dm.read_bytes(SLICE0, 262_144, 65_536).expect("read");
        for (i, &byte) in out.iter().enumerate() {
            let want = if i < 32_768 * (k + 1) {
                codes[i] as u8
            } else {
                0xA5
            };
            assert_eq!(byte, want, "after k = {k}, byte {i}");
        }
    }
    assert_eq!(schedule.makespan, 2048);
}

/// K6, the kernel (§9.4): DM -> fetch -> collect -> VE inter-slice reduce -> cast ->
/// commit -> DM. `x[r, t, a] = a + 1000t − 100r` summed over R (4 slices) is
/// `4a + 4000t − 600`, wrapped to i8.
#[test]
fn k6_inter_slice_reduce_dm_to_dm() {
    use npusim_furiosa::InterSliceReduceOpI32;
    use npusim_furiosa::dm::DmTensor;
    let mut s = Setup::new("R=4, A=512, T=16");
    let x = DmTensor::from_addr(
        &s.dm,
        DType::I32,
        &s.m("1"),
        &s.m("1 # 2"),
        &s.m("A / 8, R"),
        &s.m("T, A % 8"),
        0,
    )
    .expect("x");
    let mut codes = Vec::new();
    for r in 0..4i64 {
        for t in 0..16i64 {
            for a in 0..512i64 {
                codes.push((a + 1000 * t - 100 * r) as i32 as u32 as u64);
            }
        }
    }
    x.write_logical(&mut s.dm, &["R", "T", "A"], &codes)
        .expect("load");
    let (t, a8) = (s.m("T"), s.m("A % 8"));
    let b = begin(&s.dm, &x.view());
    let fp = b.plan(&t, &a8).expect("plan");
    assert_eq!(
        (fp.sequencer.to_string(), fp.read_bytes, fp.cycles),
        ("[16:8, 8:1] : 8".into(), 32, 16)
    );
    let v = b
        .fetch(&t, &a8)
        .expect("fetch")
        .collect(&t, &a8)
        .expect("collect")
        .vector_init()
        .expect("init")
        .vector_inter_slice_reduce(&s.m("A / 8, 1 # 4"), &t, InterSliceReduceOpI32::AddSat)
        .expect("reduce");
    let vector = EngineRecord::vector(v.trace());
    let stream = v
        .vector_final()
        .expect("final")
        .cast::<i8>(&s.m("A % 8 # 32"))
        .expect("cast")
        .commit_trim(&a8)
        .expect("trim");
    let out = s.m("T, A % 8");
    let (y, plan) = stream.commit_at(&mut s.dm, &out, 512).expect("commit");
    assert_eq!(
        (plan.sequencer.to_string(), plan.write_bytes, plan.cycles),
        ("[16:8, 8:1] : 8".into(), 8, 16)
    );
    // §10.4 K6: fetch 16, collect 16, vector 16 / 3 (ring tail), cast 16, commit 16: the
    // vector finishes at max(16, 16) + 3 = 19, its first output at 3; cast and commit start
    // at 3 and finish at 19.
    let (rows, total) = timings(&[
        EngineRecord::fetch(&fp, 0),
        EngineRecord::collect(16),
        vector,
        EngineRecord::cast(16),
        EngineRecord::commit(&plan, 0),
    ]);
    assert_eq!(total, 19);
    assert_eq!(rows[2], (16, 3, 0, 19, 0));
    assert_eq!(rows[3], (16, 0, 3, 19, 0));
    assert_eq!(rows[4], (16, 0, 3, 19, 0));
    let got = y.read_logical(&s.dm, &["T", "A"]).expect("save");
    for tt in 0..16i64 {
        for a in 0..512i64 {
            let want = (4 * a + 4000 * tt - 600) as i8;
            assert_eq!(
                got[(tt * 512 + a) as usize] as u8 as i8,
                want,
                "y[{tt}, {a}]"
            );
        }
    }
    let y_at = |t: i64, a: i64| got[(t * 512 + a) as usize] as u8 as i8;
    assert_eq!(
        (y_at(0, 0), y_at(1, 3), y_at(0, 150), y_at(15, 511)),
        (-88, 84, 0, 4)
    );
    // In DM: y[t, a] is byte 512 + 8t + a % 8 of slice 4·(a / 8); the other slices of each
    // group of four and cluster 1 keep the fill byte.
    let at = |cluster, slice, addr| {
        let id = SliceId {
            chip: 0,
            cluster,
            slice,
        };
        s.dm.read_bytes(id, addr, 1).expect("byte")[0]
    };
    assert_eq!(at(0, 4 * 18, 512 + 6) as i8, y_at(0, 150));
    assert_eq!(at(0, 4 * 63, 512 + 8 * 15 + 7) as i8, 4);
    for slice in [1, 2, 3, 4 * 18 + 1, 255] {
        assert_eq!(at(0, slice, 512), 0xA5, "slice {slice}");
    }
    assert_eq!(at(1, 0, 512), 0xA5, "cluster 1");
}
