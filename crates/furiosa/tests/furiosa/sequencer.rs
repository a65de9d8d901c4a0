//! The DM sequencer in elements (`docs/furiosa-engines.md` §3): the worked examples S1–S10, the
//! i4 / f8 / i8 fetch configs F1–F10, the commit configs of K1–K5, and the bank run of §2.2.
//! Every expected value is the document's hand derivation (or derived in a comment here from
//! the rules), never the code's output.

use npusim_furiosa::DType;
use npusim_furiosa::mapping::Final;
use npusim_furiosa::mapping::sequence::{Direction, SequenceError};
use npusim_furiosa::mapping::{Axes, Mapping};
use npusim_furiosa::sequencer::{
    BANK_RUN_LIMIT, Entry, SequenceReport, Sequencer, SequencerError, bank_of, describe,
    merge_adjacent,
};
use proptest::prelude::*;
use serde_json::json;

fn derive(
    axes: &str,
    element: &str,
    time: &str,
    packet: &str,
    dtype: DType,
    dir: Direction,
) -> Result<Sequencer, SequencerError> {
    let ax = Axes::parse(axes).expect("axes");
    let p = |s: &str| Mapping::parse(s, &ax).unwrap_or_else(|e| panic!("{s}: {e}"));
    Sequencer::derive(&p(element), &p(time), &p(packet), dtype, dir)
}

fn read(axes: &str, element: &str, time: &str, packet: &str, dtype: DType) -> Sequencer {
    derive(axes, element, time, packet, dtype, Direction::Read).unwrap_or_else(|e| panic!("{e}"))
}

fn write(axes: &str, element: &str, time: &str, packet: &str, dtype: DType) -> Sequencer {
    derive(axes, element, time, packet, dtype, Direction::Write).unwrap_or_else(|e| panic!("{e}"))
}

fn entries(list: &[(usize, usize)]) -> Vec<Entry> {
    list.iter().map(|&(n, s)| Entry::new(n, s)).collect()
}

/// Element offsets of nested loops, written out directly (outermost slowest).
fn offsets(loops: &[Entry]) -> Vec<usize> {
    let mut out = vec![0usize];
    for e in loops {
        out = out
            .iter()
            .flat_map(|&base| (0..e.size).map(move |i| base + i * e.stride))
            .collect();
    }
    out
}

/// Text, contiguous run and access of a sequencer.
fn shape(s: &Sequencer) -> (String, usize, usize) {
    (s.to_string(), s.contiguous_run(), s.access_elems())
}

#[test]
fn s1_padded_packet() {
    let s = read("A=8,B=8,C=8", "A, B, C # 32", "B, A", "C # 16", DType::I8);
    assert_eq!(shape(&s), ("[8:32, 8:256, 16:1] : 16".into(), 16, 16));
}

#[test]
fn s2_interleaved_digits() {
    let s = read(
        "A=8,B=8,C=4",
        "A, B, C # 8",
        "A % 2, B % 4, A / 2, B / 4",
        "C # 32",
        DType::I8,
    );
    assert_eq!(
        shape(&s),
        ("[2:64, 4:8, 4:128, 2:32, 32:1] : 32".into(), 64, 32)
    );
}

#[test]
fn s3_resized_digits() {
    let s = read(
        "A=16,B=8,C=8",
        "A, B, C",
        "A / 4, A % 4 = 3, B / 4, B % 4 = 2",
        "C",
        DType::I8,
    );
    assert_eq!(
        shape(&s),
        ("[4:256, 3:64, 2:32, 2:8, 8:1] : 8".into(), 16, 8)
    );
}

#[test]
fn s4_broadcast_read_and_refused_write() {
    let s = read("A=16,T=4,P=4", "A", "T, A", "P", DType::I8);
    assert_eq!(shape(&s), ("[4:0, 16:1, 4:0] : 4".into(), 4, 4));
    let e = derive(
        "A=16,T=4,P=4",
        "A",
        "T, A",
        "P",
        DType::I8,
        Direction::Write,
    )
    .expect_err("a broadcast write");
    assert!(
        matches!(e, SequencerError::Layout(SequenceError::BadWrite { .. })),
        "{e}"
    );
    assert!(e.to_string().contains("factor `T` broadcasts"), "{e}");
}

#[test]
fn s5_nine_raw_entries_merge_to_six() {
    let s = read(
        "N=8,C=8,H=8,W=32",
        "N, C, H, W",
        "W / 16, H % 2, H / 2, C / 2, C % 2, N / 2, N % 2, W / 8 % 2",
        "W % 8",
        DType::I8,
    );
    assert_eq!(
        s.raw(),
        entries(&[
            (2, 16),
            (2, 32),
            (4, 64),
            (4, 512),
            (2, 256),
            (4, 4096),
            (2, 2048),
            (2, 8),
            (8, 1)
        ])
    );
    assert_eq!(
        s.entries(),
        entries(&[(2, 16), (2, 32), (4, 64), (8, 256), (8, 2048), (16, 1)])
    );
    assert_eq!((s.contiguous_run(), s.access_elems()), (16, 8));
    // The merged loops yield the same offsets, in the same order, as the raw ones.
    assert_eq!(s.offsets().collect::<Vec<_>>(), offsets(s.raw()));
}

#[test]
fn s5_merges_only_when_needed() {
    // F1's entries are contiguous from 16:1 up to 4:192 and stay unmerged ([SEQ] prints them so).
    let s = read("N=4,C=3,H=4,W=16", "N, C, H, W", "N, C, H", "W", DType::I4);
    assert_eq!(s.entries(), s.raw());
    assert_eq!(s.entries().len(), 4);
}

#[test]
fn s6_non_contiguous_write() {
    let s = write("A=4,B=8", "A, B # 16", "1", "A, B", DType::I8);
    assert_eq!(shape(&s), ("[4:16, 8:1] : 32".into(), 8, 8));
}

#[test]
fn s7_four_accesses_per_packet() {
    let s = read("N=4,C=3,H=4,W=8", "N, C, H, W", "C", "N, H, W", DType::I8);
    assert_eq!(shape(&s), ("[3:32, 4:96, 4:8, 8:1] : 128".into(), 32, 32));
    assert_eq!(s.packet_elems() / s.access_elems(), 4);
}

#[test]
fn s8_no_common_refinement() {
    let e = derive(
        "A=15",
        "A % 5, A / 5",
        "1",
        "A % 3, A / 3",
        DType::I8,
        Direction::Read,
    )
    .expect_err("S8");
    assert!(
        matches!(
            e,
            SequencerError::Layout(SequenceError::Incompatible { .. })
        ),
        "{e}"
    );
}

#[test]
fn s9_strided_innermost_entry() {
    let e = derive("A=8,B=8", "A, B", "B", "A", DType::I8, Direction::Read).expect_err("S9");
    assert_eq!(
        e,
        SequencerError::StridedInnermost {
            size: 8,
            stride: 8,
            packet: 8
        }
    );
    assert!(e.to_string().contains("8:8"), "{e}");
    // With a one-element packet the strided read is valid (the NCHW -> WHCN read of [FCE]).
    let s = read("A=8,B=8", "A, B", "B, A", "1", DType::I8);
    assert_eq!(shape(&s), ("[8:1, 8:8] : 1".into(), 8, 1));
}

#[test]
fn s10_entry_over_65536() {
    let e = derive("A=8,T=65537", "A", "T", "A", DType::I8, Direction::Read).expect_err("S10");
    assert_eq!(
        e,
        SequencerError::EntryTooLarge {
            index: 0,
            size: 65537,
            stride: 0
        }
    );
    assert!(e.to_string().contains("65536"), "{e}");
    // 65,536 itself is allowed.
    let s = read("A=8,T=65536", "A", "T", "A", DType::I8);
    assert_eq!(s.to_string(), "[65536:0, 8:1] : 8");
}

#[test]
fn too_many_entries_after_merging() {
    // Nine digits of one axis in an order no two of which merge: 9 entries > 8.
    // A = 512 = 2^9, memory A; stream walks the bits in the order 0, 2, 4, 6, 8, 1, 3, 5, 7
    // (outer to inner): strides 1, 4, 16, 64, 256, 2, 8, 32, 128; no outer stride equals the
    // next inner size × stride (each inner size is 2).
    let time =
        "A % 2, A / 4 % 2, A / 16 % 2, A / 64 % 2, A / 256, A / 2 % 2, A / 8 % 2, A / 32 % 2";
    let e = derive(
        "A=512",
        "A",
        time,
        "A / 128 % 2",
        DType::I8,
        Direction::Read,
    )
    .expect_err("9 entries");
    assert!(
        matches!(e, SequencerError::TooManyEntries { needed: 9, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("at most 8"), "{e}");
}

#[test]
fn f1_to_f4_i4_fetch_configs() {
    let ax = "N=4,C=3,H=4,W=16";
    let el = "N, C, H, W";
    let f1 = read(ax, el, "N, C, H", "W", DType::I4);
    let f2 = read(ax, el, "N, C, H / 2", "H % 2, W", DType::I4);
    let f3 = read(ax, el, "N, C", "H, W", DType::I4);
    let f4 = read(ax, el, "N", "C, H, W", DType::I4);
    assert_eq!(f1.to_string(), "[4:192, 3:64, 4:16, 16:1] : 16");
    assert_eq!(f2.to_string(), "[4:192, 3:64, 2:32, 2:16, 16:1] : 32");
    assert_eq!(f3.to_string(), "[4:192, 3:64, 4:16, 16:1] : 64");
    assert_eq!(f4.to_string(), "[4:192, 3:64, 4:16, 16:1] : 192");
    for (s, access, hw) in [(&f1, 16, 16), (&f2, 32, 32), (&f3, 64, 64), (&f4, 192, 64)] {
        assert_eq!(s.contiguous_run(), 768, "{s}");
        assert_eq!(s.access_elems(), access, "{s}");
        assert_eq!(s.hardware_access_elems(), Some(hw), "{s}");
    }
    // F4: 3 reads per packet.
    assert_eq!(f4.packet_elems() / 64, 3);
}

#[test]
fn f5_to_f7_f8_fetch_configs() {
    let ax = "A=3,B=5,C=2";
    let f5 = read(ax, "A, B, C", "A, B", "C # 8", DType::F8E4M3);
    let f6 = read(ax, "A, B, C", "A", "[B, C] # 16", DType::F8E4M3);
    let f7 = read(ax, "A, B, C", "1", "[A, B, C] # 32", DType::F8E4M3);
    assert_eq!(shape(&f5), ("[3:10, 5:2, 8:1] : 8".into(), 8, 8));
    assert_eq!(shape(&f6), ("[3:10, 16:1] : 16".into(), 16, 16));
    assert_eq!(shape(&f7), ("[32:1] : 32".into(), 32, 32));
    // F5 over-reads: the last packet (a = 2, b = 4) starts at element 28 and reads 8, to 35.
    assert_eq!(f5.last_offset(), 35);
}

#[test]
fn f9_24_byte_packet() {
    let s = read("X=48", "X", "X / 24", "X % 24", DType::I8);
    assert_eq!(shape(&s), ("[2:24, 24:1] : 24".into(), 48, 24));
    assert_eq!(s.hardware_access_elems(), Some(8));
}

#[test]
fn f10_d1_layout_read() {
    let s = read(
        "A=4096,B=8",
        "A / 8 % 2, A % 8, B",
        "A / 8 % 2",
        "A % 8, B",
        DType::I8,
    );
    assert_eq!(shape(&s), ("[2:64, 8:8, 8:1] : 64".into(), 128, 64));
    assert_eq!(s.hardware_access_elems(), Some(32));
}

#[test]
fn sub_byte_steps_must_be_whole_bytes() {
    // i4 buffer A, B (8 x 3): B's stride 1 is inside the access, A's stride 3 is 1.5 bytes.
    let e = derive("A=8,B=3", "A, B", "A", "B # 4", DType::I4, Direction::Read).expect_err("i4");
    assert_eq!(
        e,
        SequencerError::SubByteStride {
            index: 0,
            size: 8,
            stride: 3,
            bits: 4
        }
    );
    // One i4 per access is half a byte.
    let e = derive("A=8", "A", "A", "1", DType::I4, Direction::Read).expect_err("i4 access");
    assert_eq!(e, SequencerError::SubByteAccess { access: 1, bits: 4 });
}

#[test]
fn k1_k2_k5_commit_configs() {
    let ax = "A=3,B=5,C=2";
    let k1 = write(ax, "B, A, C # 8", "A, B", "C # 8", DType::F8E4M3);
    assert_eq!(k1.to_string(), "[3:8, 5:24, 8:1] : 8");
    let k2 = write(ax, "A, [B, C] # 32", "A", "[B, C] # 32", DType::F8E4M3);
    assert_eq!(k2.to_string(), "[3:32, 32:1] : 32");
    let ax = "M=4,K=2,W=8,N=16,L=32";
    let a = write(ax, "M, K, L", "M, K", "L", DType::I8);
    // M, K, L is written whole: the run is 4 · 2 · 32 = 256, the access the 32-element packet.
    assert_eq!(shape(&a), ("[4:64, 2:32, 32:1] : 32".into(), 256, 32));
    let b = write(ax, "K, M, W", "M, K", "W", DType::F32);
    assert_eq!(b.to_string(), "[4:8, 2:32, 8:1] : 8");
    let c = write(ax, "K, M, N", "M, K", "N", DType::I8);
    assert_eq!(c.to_string(), "[4:16, 2:64, 16:1] : 16");
}

#[test]
fn k3_commit_rows_and_k3e_overrun() {
    let ax = "A=65,B=2";
    let p72 = write(
        ax,
        "B, A # 72",
        "B, A # 72 / 24",
        "A # 72 % 24",
        DType::F8E4M3,
    );
    assert_eq!(p72.to_string(), "[2:72, 3:24, 24:1] : 24");
    let p80 = write(
        ax,
        "B, A # 80",
        "B, A # 80 / 16",
        "A # 80 % 16",
        DType::F8E4M3,
    );
    assert_eq!(p80.to_string(), "[2:80, 5:16, 16:1] : 16");
    // K3e: 32-element packets into rows of 88: the last step (b = 1, step 2) ends at
    // 88 + 64 + 31 = 183, past the 176 elements of the destination.
    let e = derive(
        ax,
        "B, A # 88",
        "B, A # 96 / 32",
        "A # 96 % 32",
        DType::F8E4M3,
        Direction::Write,
    )
    .expect_err("K3e");
    assert_eq!(
        e,
        SequencerError::WriteOverrun {
            entries: "[2:88, 3:32, 32:1]".into(),
            last: 183,
            size: 176
        }
    );
    // The same loops may read past the end (over-fetch).
    let r = read(
        ax,
        "B, A # 88",
        "B, A # 96 / 32",
        "A # 96 % 32",
        DType::F8E4M3,
    );
    assert_eq!(r.last_offset(), 183);
}

#[test]
fn k4_segment_config() {
    let s = read("A=2048,B=32", "A, B", "A = 1024", "B", DType::I8);
    assert_eq!(s.to_string(), "[1024:32, 32:1] : 32");
}

#[test]
fn bank_of_address_bits() {
    // D1: byte 1053 = row 8, bank 3, byte 5.
    assert_eq!(bank_of(1053), 3);
    assert_eq!(bank_of(127), 15);
    assert_eq!(bank_of(128), 0);
}

#[test]
fn bank_runs() {
    // S1 at 0: for each b, the 8 accesses a = 0..7 start at 32b + 256a, all in bank 4b mod 16
    // (256 bytes = 2 rows of 16 banks); the next b moves to another bank: longest run 8.
    let s1 = read("A=8,B=8,C=8", "A, B, C # 32", "B, A", "C # 16", DType::I8);
    assert_eq!(s1.bank_run(0), 8);
    // 70 accesses of 8 bytes, 128 bytes apart: all in one bank, past the limit of 64.
    let s = read("A=70,B=128", "A, B", "A", "B % 8", DType::I8);
    assert_eq!(s.to_string(), "[70:128, 8:1] : 8");
    assert_eq!(s.bank_run(0), 70);
    assert_eq!(s.bank_run(8), 70);
    assert!(s.bank_run(0) >= BANK_RUN_LIMIT);
    // 32-byte accesses in a row cycle through the banks four at a time: run 1.
    let s = read("X=4096", "X", "X / 32", "X % 32", DType::I8);
    assert_eq!(s.bank_run(0), 1);
}

#[test]
fn merging_rule() {
    let e = |n, s| Entry::new(n, s);
    // (n1:s1)(n2:s2) merges iff s1 == n2·s2.
    assert_eq!(merge_adjacent(&[e(4, 16), e(16, 1)]), vec![e(64, 1)]);
    assert_eq!(
        merge_adjacent(&[e(2, 32), e(4, 64)]),
        vec![e(2, 32), e(4, 64)]
    );
    // A merge past 65,536 is not made.
    assert_eq!(
        merge_adjacent(&[e(2, 65536), e(65536, 1)]),
        vec![e(2, 65536), e(65536, 1)]
    );
}

#[test]
fn report_of_s7() {
    let s = read("N=4,C=3,H=4,W=8", "N, C, H, W", "C", "N, H, W", DType::I8);
    let r = SequenceReport::from(&s);
    assert_eq!(r.direction, "read");
    assert_eq!(r.entries, entries(&[(3, 32), (4, 96), (4, 8), (8, 1)]));
    assert_eq!((r.packet, r.run, r.access), (128, 32, 32));
    assert_eq!(r.hardware_access, Some(32));
    assert_eq!(r.text, "[3:32, 4:96, 4:8, 8:1] : 128");
}

#[test]
fn s5_as_json() {
    let ax = Axes::parse("N=8,C=8,H=8,W=32").expect("axes");
    let p = |s: &str| Mapping::parse(s, &ax).expect("mapping");
    let r = describe(
        &p("N, C, H, W"),
        &p("W / 16, H % 2, H / 2, C / 2, C % 2, N / 2, N % 2, W / 8 % 2"),
        &p("W % 8"),
        DType::I8,
        Direction::Read,
    )
    .expect("S5");
    let e = |n: usize, s: usize| json!({"size": n, "stride": s});
    let want = json!({
        "direction": "read",
        "elem_bits": 8,
        "raw": [e(2, 16), e(2, 32), e(4, 64), e(4, 512), e(2, 256), e(4, 4096), e(2, 2048),
            e(2, 8), e(8, 1)],
        "entries": [e(2, 16), e(2, 32), e(4, 64), e(8, 256), e(8, 2048), e(16, 1)],
        "packet": 8,
        "run": 16,
        "access": 8,
        "hardware_access": 8,
        "text": "[2:16, 2:32, 4:64, 8:256, 8:2048, 16:1] : 8"
    });
    assert_eq!(serde_json::to_value(&r).expect("json"), want);
}

/// A buffer of three axes in some order (the innermost padded by `pad`), and a stream walking
/// the same axes in another order, A possibly split in two digits, cut into Time and Packet at
/// `cut`, the packet padded by `packet_pad`.
#[derive(Clone, Debug)]
struct Case {
    axes: String,
    element: String,
    time: String,
    packet: String,
    /// Padding elements after the packet's data (0: none).
    packet_pad: usize,
}

fn cases() -> impl Strategy<Value = Case> {
    (
        (1usize..=6, 1usize..=5, 1usize..=4),
        Just(vec!["A", "B", "C"]).prop_shuffle(),
        0usize..=3,
        any::<bool>(),
        0usize..=4,
        prop_oneof![Just(0usize), 1usize..=3],
    )
        .prop_flat_map(|((a, b, c), memory, pad, split, cut, packet_pad)| {
            let mut parts: Vec<String> = vec!["B".into(), "C".into()];
            if split && a % 2 == 0 && a > 2 {
                parts.push("A / 2".into());
                parts.push("A % 2".into());
            } else {
                parts.push("A".into());
            }
            (
                Just(parts).prop_shuffle(),
                Just((a, b, c, memory, pad, cut, packet_pad)),
            )
        })
        .prop_map(|(stream, (a, b, c, memory, pad, cut, packet_pad))| {
            let size = |n: &str| match n {
                "A" => a,
                "A / 2" => a / 2,
                "A % 2" => 2,
                "B" => b,
                _ => c,
            };
            let inner = memory[2];
            let element = format!(
                "{}, {}, {} # {}",
                memory[0],
                memory[1],
                inner,
                size(inner) + pad
            );
            let cut = cut.min(stream.len());
            let join = |xs: &[String]| {
                if xs.is_empty() {
                    "1".to_string()
                } else {
                    xs.join(", ")
                }
            };
            let packet = &stream[cut..];
            let packet_size: usize = packet.iter().map(|n| size(n)).product();
            let (packet, packet_pad) = if packet_pad == 0 || packet.is_empty() {
                (join(packet), 0)
            } else {
                let text = format!("[{}] # {}", packet.join(", "), packet_size + packet_pad);
                (text, packet_pad)
            };
            Case {
                axes: format!("A={a},B={b},C={c}"),
                element,
                time: join(&stream[..cut]),
                packet,
                packet_pad,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Writes: every offset the loops give lies inside the destination; without stream
    /// padding, no two stream positions write the same element and every live element of the
    /// destination is written.
    #[test]
    fn writes_stay_inside_and_cover(case in cases()) {
        let ax = Axes::parse(&case.axes).expect("axes");
        let p = |s: &str| Mapping::parse(s, &ax).expect("mapping");
        let element = p(&case.element);
        let got = Sequencer::derive(&element, &p(&case.time), &p(&case.packet), DType::I8,
            Direction::Write);
        // Refusals here are the innermost-entry rule (a strided packet), or for a padded
        // packet an overrun of the destination or a padded group no single stride walks.
        if let Ok(s) = got {
            let offsets: Vec<usize> = s.offsets().collect();
            prop_assert!(offsets.iter().all(|&o| o < element.size()), "{case:?} {s}");
            if case.packet_pad > 0 {
                return Ok(());
            }
            let mut seen = offsets.clone();
            seen.sort_unstable();
            seen.dedup();
            prop_assert_eq!(seen.len(), offsets.len());
            let live = element.cells().iter().filter(|c| c.is_live()).count();
            prop_assert_eq!(offsets.len(), live);
        } else if let Err(e) = got {
            let allowed = matches!(e, SequencerError::StridedInnermost { .. })
                || (case.packet_pad > 0
                    && matches!(e, SequencerError::WriteOverrun { .. } | SequencerError::Layout(_)));
            prop_assert!(allowed, "{case:?}: {e}");
        }
    }

    /// Reads: each live stream cell's offset holds that cell's logical element, and merging
    /// the raw entries does not change the offsets or their order.
    #[test]
    fn reads_land_on_their_cells_and_merging_keeps_offsets(case in cases()) {
        let ax = Axes::parse(&case.axes).expect("axes");
        let p = |s: &str| Mapping::parse(s, &ax).expect("mapping");
        let (element, time, packet) = (p(&case.element), p(&case.time), p(&case.packet));
        let Ok(s) = Sequencer::derive(&element, &time, &packet, DType::I8, Direction::Read)
        else {
            return Ok(());
        };
        let stream = time.clone().pair(packet.clone()).expect("pair");
        for (pos, off) in s.offsets().enumerate() {
            let cell = stream.cell(pos);
            if let Final::Live(_) = cell {
                prop_assert_eq!(element.cell(off), cell, "{:?} position {}", case, pos);
            }
        }
        let merged = merge_adjacent(s.raw());
        prop_assert_eq!(offsets(&merged), offsets(s.raw()));
        prop_assert!(merged.len() <= s.raw().len());
    }

    /// Merging any entry list keeps the offsets and their order.
    #[test]
    fn merging_keeps_offsets(list in prop::collection::vec((1usize..=4, 0usize..=3), 0..=6)) {
        // Strides built from the inner entries so that some pairs merge: stride code 0 = 0,
        // 1 = 1, 2 = the inner entry's extent, 3 = twice that.
        let mut entries: Vec<Entry> = Vec::new();
        for &(size, code) in list.iter().rev() {
            let extent = entries.last().map_or(1, |e| e.size * e.stride.max(1));
            let stride = match code { 0 => 0, 1 => 1, 2 => extent, _ => 2 * extent };
            entries.push(Entry::new(size, stride));
        }
        entries.reverse();
        prop_assert_eq!(offsets(&merge_adjacent(&entries)), offsets(&entries));
    }
}
