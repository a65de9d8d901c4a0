//! The Fetch Engine (`docs/furiosa-engines.md` §4.4): worked examples F1–F9, F13, F14.
//! Expected loops, read sizes, cycles and bytes are the document's hand derivations.

use npusim_furiosa::dm::{Dm, DmTensor};
use npusim_furiosa::engine::fetch::{FetchError, begin};
use npusim_furiosa::mapping::{Axes, Mapping};
use npusim_furiosa::{DType, Position};

pub(crate) struct Setup {
    pub ax: Axes,
    pub dm: Dm,
}

impl Setup {
    pub fn new(axes: &str) -> Setup {
        let mut dm = Dm::new(1);
        dm.fill_undefined(0xA5);
        Setup {
            ax: Axes::parse(axes).expect("axes"),
            dm,
        }
    }

    pub fn m(&self, s: &str) -> Mapping {
        Mapping::parse(s, &self.ax).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    /// A tensor in chip 0, cluster 0 (of `1 # 2`), slice 0.
    pub fn place(&self, dtype: DType, element: &str, address: usize) -> DmTensor {
        DmTensor::from_addr(
            &self.dm,
            dtype,
            &self.m("1"),
            &self.m("1"),
            &self.m("1"),
            &self.m(element),
            address,
        )
        .expect("placement")
    }
}

/// (entries, read bytes, reads per packet, cycles) of a fetch.
fn plan(s: &Setup, t: &DmTensor, time: &str, packet: &str) -> (String, usize, usize, usize) {
    let p = begin(&s.dm, &t.view())
        .plan(&s.m(time), &s.m(packet))
        .expect("plan");
    (
        p.sequencer.to_string(),
        p.read_bytes,
        p.reads_per_packet,
        p.cycles,
    )
}

#[test]
fn f1_to_f4_i4_nchw_read_sizes_and_cycles() {
    let s = Setup::new("N=4, C=3, H=4, W=16");
    let t = s.place(DType::I4, "N, C, H, W", 0);
    assert_eq!(
        plan(&s, &t, "N, C, H", "W"),
        ("[4:192, 3:64, 4:16, 16:1] : 16".into(), 8, 1, 48)
    );
    assert_eq!(
        plan(&s, &t, "N, C, H / 2", "H % 2, W"),
        ("[4:192, 3:64, 2:32, 2:16, 16:1] : 32".into(), 16, 1, 24)
    );
    assert_eq!(
        plan(&s, &t, "N, C", "H, W"),
        ("[4:192, 3:64, 4:16, 16:1] : 64".into(), 32, 1, 12)
    );
    assert_eq!(
        plan(&s, &t, "N", "C, H, W"),
        ("[4:192, 3:64, 4:16, 16:1] : 192".into(), 32, 3, 12)
    );
}

/// x[a, b, c] = 10a + 2b + c as f8e4m3 codes, in `A, B, C` at 0.
pub(crate) fn abc(s: &mut Setup) -> DmTensor {
    let t = s.place(DType::F8E4M3, "A, B, C", 0);
    let codes: Vec<u64> = (0..30).collect();
    t.write_logical(&mut s.dm, &["A", "B", "C"], &codes)
        .expect("load");
    t
}

#[test]
fn f5_to_f7_padded_packets_over_fetch() {
    let mut s = Setup::new("A=3, B=5, C=2");
    let t = abc(&mut s);
    assert_eq!(
        plan(&s, &t, "A, B", "C # 8"),
        ("[3:10, 5:2, 8:1] : 8".into(), 8, 1, 15)
    );
    assert_eq!(
        plan(&s, &t, "A", "[B, C] # 16"),
        ("[3:10, 16:1] : 16".into(), 16, 1, 3)
    );
    assert_eq!(
        plan(&s, &t, "1", "[A, B, C] # 32"),
        ("[32:1] : 32".into(), 32, 1, 1)
    );
    // F5's last packet (a = 2, b = 4) reads bytes 28..35 of a 30-byte tensor.
    let p = begin(&s.dm, &t.view())
        .plan(&s.m("A, B"), &s.m("C # 8"))
        .expect("plan");
    assert_eq!(p.last_byte, 35);
    // Data: lane c < 2 of step (a, b) holds input byte 10a + 2b + c; padding lanes hold 0
    // although DM past the tensor holds the fill byte 0xA5.
    let f = begin(&s.dm, &t.view())
        .fetch(&s.m("A, B"), &s.m("C # 8"))
        .expect("fetch");
    assert_eq!(f.position(), Position::Fetch);
    assert_eq!(f.shape(), [1, 1, 1, 15, 8]);
    let codes = f.codes().to_u64();
    for a in 0..3 {
        for b in 0..5 {
            for c in 0..8 {
                let want = if c < 2 { 10 * a + 2 * b + c } else { 0 };
                assert_eq!(codes[(a * 5 + b) * 8 + c], want as u64, "{a} {b} {c}");
            }
        }
    }
}

#[test]
fn f8_a_two_byte_packet_is_refused_at_collect() {
    let mut s = Setup::new("A=3, B=5, C=2");
    let t = abc(&mut s);
    let f = begin(&s.dm, &t.view())
        .fetch(&s.m("A, B"), &s.m("C"))
        .expect("fetch");
    let e = f.collect(&s.m("A, B"), &s.m("C # 32")).unwrap_err();
    assert!(
        matches!(
            &e,
            npusim_furiosa::engine::collect::CollectError::Fetch(FetchError::PacketAlignment {
                bytes: 2,
                ..
            })
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "Packet = m![C] of 2 x f8e4m3 = 2 bytes is not a multiple of 8 bytes (FETCH_ALIGN_BYTES)"
    );
}

#[test]
fn f9_a_24_byte_packet_is_three_8_byte_reads() {
    let s = Setup::new("X=48");
    let t = s.place(DType::I8, "X", 0);
    let p = begin(&s.dm, &t.view())
        .plan(&s.m("X / 24"), &s.m("X % 24"))
        .expect("plan");
    assert_eq!(p.sequencer.to_string(), "[2:24, 24:1] : 24");
    assert_eq!(p.sequencer.access_elems(), 24);
    assert_eq!((p.read_elems, p.reads_per_packet, p.cycles), (8, 3, 6));
}

#[test]
fn f13_every_live_cell_of_the_view_is_read() {
    let s = Setup::new("A=8, B=8");
    let t = s.place(DType::I8, "A, B", 0);
    let e = begin(&s.dm, &t.view())
        .plan(&s.m("A"), &s.m("B = 4 # 8"))
        .unwrap_err();
    match &e {
        FetchError::Unread { index, .. } => {
            assert!(index.contains("B: 4") && !index.contains("A: 1"), "{index}")
        }
        other => panic!("{other}"),
    }
    let tile = t
        .view()
        .tile(&s.m("B"), 4, &s.m("A, B = 4 # 8"), 0)
        .expect("tile");
    let p = begin(&s.dm, &tile)
        .plan(&s.m("A"), &s.m("B = 4 # 8"))
        .expect("a tile's fetch");
    assert_eq!(p.cycles, 8);
}

#[test]
fn f14_a_read_past_the_slice_is_refused() {
    let s = Setup::new("X=8");
    let t = s.place(DType::I8, "X", 524_280);
    let e = begin(&s.dm, &t.view())
        .plan(&s.m("1"), &s.m("X # 32"))
        .unwrap_err();
    assert!(
        matches!(
            e,
            FetchError::OutsideDm {
                last_byte: 524_311,
                capacity: 524_288,
                ..
            }
        ),
        "{e}"
    );
}
