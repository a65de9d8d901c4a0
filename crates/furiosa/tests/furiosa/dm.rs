//! Data memory and `DmTensor` (`docs/furiosa-engines.md` §2): the worked examples D1–D5 and the
//! rules of §2.2. Expected values are the document's hand derivations (or derived in a comment
//! here from the rules), never the code's output.

use std::path::PathBuf;

use npusim_furiosa::DType;
use npusim_furiosa::dm::{DM_SLICE_BYTES, Dm, DmAddress, DmError, DmTensor, Place, SliceId};
use npusim_furiosa::mapping::sequence::Direction;
use npusim_furiosa::mapping::{Axes, Mapping};
use npusim_furiosa::sequencer::Sequencer;

/// Places a tensor: `maps` = [Chip, Cluster, Slice, Element].
fn place(
    dm: &Dm,
    axes: &str,
    dtype: DType,
    maps: [&str; 4],
    address: usize,
) -> Result<DmTensor, DmError> {
    let ax = Axes::parse(axes).expect("axes");
    let p = |s: &str| Mapping::parse(s, &ax).unwrap_or_else(|e| panic!("{s}: {e}"));
    DmTensor::from_addr(
        dm,
        dtype,
        &p(maps[0]),
        &p(maps[1]),
        &p(maps[2]),
        &p(maps[3]),
        address,
    )
}

fn slice(chip: usize, cluster: usize, slice: usize) -> SliceId {
    SliceId {
        chip,
        cluster,
        slice,
    }
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("npusim-dm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

const D1_AXES: &str = "A=4096,B=8";
const D1_MAPS: [&str; 4] = ["1", "1 # 2", "A / 16", "A / 8 % 2, A % 8, B"];

#[test]
fn d1_address_arithmetic() {
    let dm = Dm::new(1);
    let t = place(&dm, D1_AXES, DType::I8, D1_MAPS, 1024).expect("D1");
    // (19, 5): cluster 0, slice 1, byte 1024 + 0 + 24 + 5 = 1053 = row 8, bank 3, byte 5.
    let at = t.locate(&[("A", 19), ("B", 5)]).expect("locate");
    let p = |s, e| Place {
        chip: 0,
        cluster: 0,
        slice: s,
        element: e,
    };
    assert_eq!(at, vec![(p(1, 29), 1053)]);
    assert_eq!(
        DmAddress::of(1053),
        DmAddress {
            row: 8,
            bank: 3,
            byte: 5
        }
    );
    // (4095, 7): slice 255, byte 1024 + 64 + 56 + 7 = 1151.
    let at = t.locate(&[("A", 4095), ("B", 7)]).expect("locate");
    assert_eq!(at, vec![(p(255, 127), 1151)]);
    // 128 bytes per slice.
    assert_eq!(t.byte_range(), 1024..1152);
}

#[test]
fn d1_cluster_padding_holds_nothing() {
    let mut dm = Dm::new(1);
    dm.fill_undefined(0xA5);
    let t = place(&dm, D1_AXES, DType::I8, D1_MAPS, 1024).expect("D1");
    // x[a, b] = (8a + b) mod 256.
    let codes: Vec<u64> = (0..4096 * 8).map(|i| (i % 256) as u64).collect();
    t.write_logical(&mut dm, &["A", "B"], &codes)
        .expect("write");
    // (19, 5) -> 8·19 + 5 = 157 at cluster 0, slice 1, byte 1053; cluster 1 keeps the fill.
    assert_eq!(dm.read_byte(slice(0, 0, 1), 1053).expect("read"), 157);
    assert_eq!(dm.read_byte(slice(0, 1, 1), 1053).expect("read"), 0xA5);
    // Bytes before the tensor keep the fill byte.
    assert_eq!(dm.read_byte(slice(0, 0, 1), 1023).expect("read"), 0xA5);
    // Sparse: 256 slices of cluster 0 written up to byte 1151, nothing else.
    assert_eq!(dm.allocated_bytes(), 256 * 1152);
    assert_eq!(t.read_logical(&dm, &["A", "B"]).expect("read"), codes);
}

#[test]
fn d2_capacity() {
    let dm = Dm::new(1);
    fn one(x: &str) -> [&str; 4] {
        ["1", "1", "1", x]
    }
    assert!(place(&dm, "X=524288", DType::I8, one("X"), 0).is_ok());
    let e = place(&dm, "X=524289", DType::I8, one("X"), 0).expect_err("too big");
    assert!(
        matches!(
            e,
            DmError::Capacity {
                end: 524289,
                capacity: 524288,
                ..
            }
        ),
        "{e}"
    );
    let e = place(&dm, "N=1024", DType::BF16, one("N"), 523264).expect_err("bf16");
    assert_eq!(
        e.to_string(),
        "m![N] of bf16 at byte 523264 needs 2048 bytes, ends at 525312, past the 524288 bytes of a slice"
    );
    assert!(place(&dm, "N=131072", DType::F32, one("N"), 0).is_ok());
    // Sub-byte types round up: 3 i4 at 524287 need 2 bytes and end at 524289.
    let e = place(&dm, "N=3", DType::I4, one("N"), 524287).expect_err("i4");
    assert!(
        matches!(
            e,
            DmError::Capacity {
                bytes: 2,
                end: 524289,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(DM_SLICE_BYTES, 524288);
}

#[test]
fn d3_alignment() {
    let dm = Dm::new(1);
    let m = ["1", "1", "1", "N"];
    let e = place(&dm, "N=4", DType::F32, m, 6).expect_err("f32 at 6");
    assert!(
        matches!(
            e,
            DmError::Alignment {
                address: 6,
                unit: 4,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("multiple of 4 bytes"), "{e}");
    assert!(place(&dm, "N=4", DType::F32, m, 4).is_ok());
    // One byte is the unit of i8 and of i4.
    assert!(place(&dm, "N=4", DType::I8, m, 7).is_ok());
    assert!(place(&dm, "N=4", DType::I4, m, 7).is_ok());
}

#[test]
fn spatial_sizes() {
    let dm = Dm::new(1);
    let e = place(&dm, "S=512", DType::I8, ["1", "1", "S", "1"], 0).expect_err("512 slices");
    assert!(
        matches!(
            e,
            DmError::Dimension {
                dim: "Slice",
                size: 512,
                max: 256,
                ..
            }
        ),
        "{e}"
    );
    let e = place(&dm, "K=3", DType::I8, ["1", "K", "1", "1"], 0).expect_err("3 clusters");
    assert!(
        matches!(
            e,
            DmError::Dimension {
                dim: "Cluster",
                size: 3,
                max: 2,
                ..
            }
        ),
        "{e}"
    );
    let e = place(&dm, "C=2", DType::I8, ["C", "1", "1", "1"], 0).expect_err("2 chips");
    assert!(
        matches!(
            e,
            DmError::Dimension {
                dim: "Chip",
                size: 2,
                max: 1,
                ..
            }
        ),
        "{e}"
    );
    let two = place(&Dm::new(2), "C=2", DType::I8, ["C", "1", "1", "1"], 0).expect("2 chips");
    // A tensor of two chips written into the DM of one is refused before any byte is written.
    let mut one = Dm::new(1);
    let e = two
        .write_logical(&mut one, &["C"], &[1, 2])
        .expect_err("1 chip");
    assert!(
        matches!(
            e,
            DmError::Dimension {
                dim: "Chip",
                size: 2,
                max: 1,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(one.allocated_bytes(), 0);
}

#[test]
fn d4_npy_round_trip() {
    let mut dm = Dm::new(1);
    dm.fill_undefined(0xA5);
    let t = place(
        &dm,
        "A=3,B=5,C=2",
        DType::I8,
        ["1", "1", "1", "B, A, C # 8"],
        0,
    )
    .expect("D4");
    let order = ["A", "B", "C"];
    // x[a, b, c] = 10a + 2b + c.
    let mut x = Vec::new();
    for a in 0..3u64 {
        for b in 0..5u64 {
            for c in 0..2u64 {
                x.push(10 * a + 2 * b + c);
            }
        }
    }
    let input = temp("d4-in.npy");
    let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    let mut header = "{'descr': '|i1', 'fortran_order': False, 'shape': (3, 5, 2), }".to_string();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    npy.extend_from_slice(&(header.len() as u16).to_le_bytes());
    npy.extend_from_slice(header.as_bytes());
    npy.extend(x.iter().map(|&v| v as u8));
    std::fs::write(&input, &npy).expect("write input");
    t.load_npy(&mut dm, &input, &order).expect("load");
    // Byte 24b + 8a + c holds 10a + 2b + c for c < 2, the fill byte for c >= 2.
    let id = slice(0, 0, 0);
    for a in 0..3 {
        for b in 0..5 {
            for c in 0..8 {
                let want = if c < 2 {
                    (10 * a + 2 * b + c) as u8
                } else {
                    0xA5
                };
                let got = dm.read_byte(id, 24 * b + 8 * a + c).expect("byte");
                assert_eq!(got, want, "a {a} b {b} c {c}");
            }
        }
    }
    // Saving gives the same array, byte for byte.
    let output = temp("d4-out.npy");
    t.save_npy(&dm, &output, &order).expect("save");
    assert_eq!(std::fs::read(&output).expect("read output"), npy);
    // Loading a file of another shape or type is refused.
    let e = place(
        &dm,
        "A=3,B=5,C=2",
        DType::I16,
        ["1", "1", "1", "B, A, C # 8"],
        0,
    )
    .expect("i16")
    .load_npy(&mut dm, &input, &order)
    .expect_err("i8 file into i16");
    assert!(matches!(e, DmError::NpyDtype { .. }), "{e}");
    let e = t
        .load_npy(&mut dm, &input, &["B", "A", "C"])
        .expect_err("shape");
    assert!(
        matches!(e, DmError::NpyShape { ref found, ref expected, .. }
            if found == &[3, 5, 2] && expected == &[5, 3, 2]),
        "{e}"
    );
}

#[test]
fn d5_replication_and_copies_that_differ() {
    let mut dm = Dm::new(1);
    let t = place(
        &dm,
        "A=128,Q=4,V=16",
        DType::BF16,
        ["1", "1", "A, 2", "Q, V"],
        0,
    )
    .expect("D5");
    let order = ["A", "Q", "V"];
    let codes: Vec<u64> = (0..128 * 64)
        .map(|i| (0x3F80 + i) as u64 & 0xffff)
        .collect();
    t.write_logical(&mut dm, &order, &codes).expect("load");
    // Slices 2a and 2a + 1 hold the same 64 bf16 = 128 bytes.
    for a in 0..128 {
        let even = dm.read_bytes(slice(0, 0, 2 * a), 0, 128).expect("even");
        let odd = dm.read_bytes(slice(0, 0, 2 * a + 1), 0, 128).expect("odd");
        assert_eq!(even, odd, "a = {a}");
    }
    assert_eq!(t.read_logical(&dm, &order).expect("read"), codes);
    // Poke byte 34 of slice 1 (element 17 = {Q: 1, V: 1}): the copies of {A: 0, Q: 1, V: 1}
    // in slices 0 and 1 differ, and saving is refused without creating the file.
    dm.write_byte(slice(0, 0, 1), 34, 0xFF).expect("poke");
    let out = temp("d5.npy");
    let e = t.save_npy(&dm, &out, &order).expect_err("copies differ");
    match &e {
        DmError::CopiesDiffer {
            index,
            first,
            second,
            ..
        } => {
            assert_eq!(index, "{A: 0, Q: 1, V: 1}");
            assert_eq!(first, "chip 0, cluster 0, slice 0, element 17");
            assert_eq!(second, "chip 0, cluster 0, slice 1, element 17");
        }
        other => panic!("{other}"),
    }
    assert!(!out.exists());
}

#[test]
fn elements_held_nowhere() {
    // A resize keeps A's first 4 coordinates: {A: 4} is held by no position.
    let dm = Dm::new(1);
    let t = place(&dm, "A=8", DType::I8, ["1", "1", "1", "A = 4"], 0).expect("resize");
    let e = t.read_logical(&dm, &["A"]).expect_err("not held");
    assert_eq!(
        e.to_string(),
        "logical element {A: 4} is held by no DM position of the tensor"
    );
}

#[test]
fn logical_order_and_values_are_checked() {
    let mut dm = Dm::new(1);
    let t = place(&dm, "A=2,B=3,Z=4", DType::I8, ["1", "1", "1", "A, B"], 0).expect("A, B");
    let ax = Axes::parse("Z=4,B=3,A=2").expect("axes");
    assert_eq!(t.logical_order(&ax), ["B", "A"]);
    assert!(matches!(
        t.logical_shape(&["A"]),
        Err(DmError::MissingAxis { ref axis, .. }) if axis == "B"
    ));
    assert!(matches!(
        t.logical_shape(&["A", "B", "Z"]),
        Err(DmError::UnknownAxis { ref axis, .. }) if axis == "Z"
    ));
    assert!(matches!(
        t.logical_shape(&["A", "A"]),
        Err(DmError::DuplicateAxis(ref a)) if a == "A"
    ));
    let e = t
        .write_logical(&mut dm, &["A", "B"], &[0; 5])
        .expect_err("length");
    assert!(
        matches!(
            e,
            DmError::Length {
                got: 5,
                need: 6,
                ..
            }
        ),
        "{e}"
    );
    let e = t
        .write_logical(&mut dm, &["A", "B"], &[0, 1, 2, 256, 4, 5])
        .expect_err("wide");
    assert!(
        matches!(
            e,
            DmError::CodeTooWide {
                index: 3,
                code: 256,
                bits: 8,
                ..
            }
        ),
        "{e}"
    );
    // Nothing was written by the refused calls.
    assert_eq!(dm.allocated_bytes(), 0);
}

#[test]
fn nibbles_low_first() {
    // i4 elements two per byte, element 0 in the low nibble (as f4e2m1 bytes in §4.4 F12).
    let mut dm = Dm::new(1);
    let t = place(&dm, "X=4", DType::I4, ["1", "1", "1", "X"], 10).expect("i4");
    t.write_logical(&mut dm, &["X"], &[1, 2, 3, 0xF])
        .expect("write");
    assert_eq!(
        dm.read_bytes(slice(0, 0, 0), 10, 2).expect("bytes"),
        [0x21, 0xF3]
    );
    assert_eq!(t.read_logical(&dm, &["X"]).expect("read"), [1, 2, 3, 0xF]);
}

#[test]
fn dm_bounds() {
    let mut dm = Dm::new(1);
    assert!(matches!(
        dm.read_byte(slice(1, 0, 0), 0),
        Err(DmError::NoSuchSlice {
            chip: 1,
            chips: 1,
            ..
        })
    ));
    assert!(matches!(
        dm.write_byte(slice(0, 2, 0), 0, 1),
        Err(DmError::NoSuchSlice { cluster: 2, .. })
    ));
    assert!(matches!(
        dm.read_byte(slice(0, 0, 0), 524288),
        Err(DmError::OutsideSlice {
            address: 524288,
            capacity: 524288
        })
    ));
    dm.write_byte(slice(0, 1, 255), 524287, 7)
        .expect("last byte");
    assert_eq!(dm.read_byte(slice(0, 1, 255), 524287).expect("read"), 7);
    // Unwritten bytes below a written one read as the fill byte, whenever it is set.
    dm.fill_undefined(0x5A);
    assert_eq!(dm.read_byte(slice(0, 1, 255), 0).expect("read"), 0x5A);
}

#[test]
fn bank_run_of_a_placed_tensor() {
    // 70 rows of 128 i8 at 1024, reading the first 8 bytes of each: every access starts at
    // 1024 + 128a, bank (1024 + 128a) / 8 mod 16 = 0, so 70 accesses in a row hit bank 0.
    let dm = Dm::new(1);
    let t = place(&dm, "A=70,B=128", DType::I8, ["1", "1", "1", "A, B"], 1024).expect("70 rows");
    let ax = Axes::parse("A=70,B=128").expect("axes");
    let p = |s: &str| Mapping::parse(s, &ax).expect("mapping");
    let seq = Sequencer::derive(
        t.element(),
        &p("A"),
        &p("B % 8"),
        DType::I8,
        Direction::Read,
    )
    .expect("sequence");
    assert_eq!(t.bank_run(&seq), 70);
}

mod tiles {
    use super::*;
    use npusim_furiosa::dm::TileError;
    use npusim_furiosa::mapping::{Final, PaddingKind};

    fn maps(axes: &str) -> impl Fn(&str) -> Mapping {
        let ax = Axes::parse(axes).expect("axes");
        move |s: &str| Mapping::parse(s, &ax).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn k4_segment_offsets() {
        // x = m![A, B] (A = 2048, B = 32, i8) at 0, y the same at 262144; segment k is the tile
        // of m![A] from 1024·k, laid out m![A = 1024 # 2048, B]: offset {A: 1024k}, element
        // position 1024k · 32, bases 0 / 32768 and 262144 / 294912.
        let axes = "A=2048,B=32";
        let p = maps(axes);
        let dm = Dm::new(1);
        let x = place(&dm, axes, DType::I8, ["1", "1", "1", "A, B"], 0).expect("x");
        let y = place(&dm, axes, DType::I8, ["1", "1", "1", "A, B"], 262144).expect("y");
        let e2 = p("A = 1024 # 2048, B");
        let mut bases = Vec::new();
        for k in 0..2 {
            let xs = x.view().tile(&p("A"), 1024, &e2, 1024 * k).expect("x tile");
            let ys = y
                .view_mut()
                .tile(&p("A"), 1024, &e2, 1024 * k)
                .expect("y tile");
            bases.push((xs.address(), ys.address()));
            assert_eq!(
                Final::Live(xs.offset().clone()),
                Final::live(&[("A", 1024 * k)])
            );
            // Position 32 of segment k holds {A: 1024k + 1}; position 1024·32 is outside it.
            assert_eq!(xs.cell(32), Final::live(&[("A", 1024 * k + 1)]));
            assert_eq!(xs.cell(1024 * 32), Final::Padding(PaddingKind::Top));
            assert_eq!(ys.cell(1024 * 32), Final::Padding(PaddingKind::Bottom));
        }
        assert_eq!(bases, [(0, 262144), (32768, 294912)]);
        // Each segment is read and written with [1024:32, 32:1] : 32 over the tile's layout.
        let xs = x.view().tile(&p("A"), 1024, &e2, 1024).expect("x tile");
        let ys = y.view_mut().tile(&p("A"), 1024, &e2, 1024).expect("y tile");
        for (view, dir) in [(&xs, Direction::Read), (&ys, Direction::Write)] {
            let s = Sequencer::derive(view.element(), &p("A = 1024"), &p("B"), DType::I8, dir)
                .expect("segment sequence");
            assert_eq!(s.to_string(), "[1024:32, 32:1] : 32");
        }
    }

    #[test]
    fn tile_of_b_covers_two_coordinates() {
        // Base m![A, B] (A = 8, B = 512); tile of m![B], 2 cells from 2, layout
        // m![A, B = 2 # 512]: covers B in {2, 3}, starts at element 2.
        let axes = "A=8,B=512";
        let p = maps(axes);
        let dm = Dm::new(1);
        let t = place(&dm, axes, DType::BF16, ["1", "1", "1", "A, B"], 64).expect("t");
        let v = t
            .view()
            .tile(&p("B"), 2, &p("A, B = 2 # 512"), 2)
            .expect("tile");
        assert_eq!(v.cell(0), Final::live(&[("B", 2)]));
        assert_eq!(v.cell(1), Final::live(&[("B", 3)]));
        assert_eq!(v.cell(2), Final::Padding(PaddingKind::Top));
        assert_eq!(v.cell(512), Final::live(&[("A", 1), ("B", 2)]));
        assert_eq!(v.base_offset(), 2);
        // bf16: 2 elements = 4 bytes past 64.
        assert_eq!(v.address(), 68);
    }

    #[test]
    fn overlapping_block_tiles() {
        // tile of m![B / 32], 2 blocks from i, layout m![A, B / 32 = 2 # 16, B % 32]: valid
        // for i = 0..14 (blocks {i, i + 1}); i = 15 runs past the 16 blocks.
        let axes = "A=8,B=512";
        let p = maps(axes);
        let dm = Dm::new(1);
        let t = place(&dm, axes, DType::I8, ["1", "1", "1", "A, B"], 0).expect("t");
        let e2 = p("A, B / 32 = 2 # 16, B % 32");
        for i in 0..15 {
            let v = t.view().tile(&p("B / 32"), 2, &e2, i).expect("tile");
            assert_eq!(v.address(), 32 * i, "i = {i}");
            assert_eq!(v.cell(63), Final::live(&[("B", 32 * i + 63)]));
        }
        let e = t.view().tile(&p("B / 32"), 2, &e2, 15).expect_err("i = 15");
        assert_eq!(
            e,
            TileError::OutOfRange {
                index: "B / 32".into(),
                start: 15,
                len: 2,
                size: 16
            }
        );
    }

    #[test]
    fn f13_tile_of_a_row() {
        // F13: m![A, B] (A = B = 8), tile of m![B], 4 cells from 0, m![A, B = 4 # 8].
        let axes = "A=8,B=8";
        let p = maps(axes);
        let dm = Dm::new(1);
        let t = place(&dm, axes, DType::I8, ["1", "1", "1", "A, B"], 0).expect("t");
        let v = t
            .view()
            .tile(&p("B"), 4, &p("A, B = 4 # 8"), 0)
            .expect("tile");
        assert_eq!(v.cell(3), Final::live(&[("B", 3)]));
        assert_eq!(v.cell(4), Final::Padding(PaddingKind::Top));
        assert_eq!(v.address(), 0);
        // A tile of the tile: B from 2, 2 cells, m![A, B = 2 # 8] starts 2 elements further.
        let w = v
            .tile(&p("B"), 2, &p("A, B = 2 # 8"), 2)
            .expect("nested tile");
        assert_eq!(w.cell(0), Final::live(&[("B", 2)]));
        assert_eq!(w.cell(1), Final::live(&[("B", 3)]));
        assert_eq!(w.address(), 2);
        // A tile along A (4 rows), then along B (2 of each row's 8): 8 elements, at {B: 2}.
        let rows = t
            .view()
            .tile(&p("A"), 4, &p("A = 4 # 8, B"), 0)
            .expect("rows");
        let block = rows
            .tile(&p("B"), 2, &p("A = 4 # 8, B = 2 # 8"), 2)
            .expect("block");
        assert_eq!(block.cell(8), Final::live(&[("A", 1), ("B", 2)]));
        assert_eq!(block.cell(2), Final::Padding(PaddingKind::Top));
        assert_eq!(block.address(), 2);
    }

    #[test]
    fn tiles_that_break_the_layout() {
        let axes = "A=8,B=8";
        let p = maps(axes);
        let dm = Dm::new(1);
        let t = place(&dm, axes, DType::I8, ["1", "1", "1", "A, B"], 0).expect("t");
        // Transposed layout: position 1 of m![B = 4 # 8, A] is {A: 1}, the view holds {B: 1}.
        let e = t
            .view()
            .tile(&p("B"), 4, &p("B = 4 # 8, A"), 0)
            .expect_err("transposed");
        assert!(matches!(e, TileError::Layout { position: 1, .. }), "{e}");
        // Three of B's cells laid out for a tile of four.
        let e = t
            .view()
            .tile(&p("B"), 4, &p("A, B = 3 # 8"), 0)
            .expect_err("count");
        assert!(
            matches!(
                e,
                TileError::Count {
                    live: 24,
                    expected: 32,
                    ..
                }
            ),
            "{e}"
        );
    }
}

#[test]
fn f14_over_fetch_past_the_slice() {
    // F14: i8 m![X], X = 8, at 524280 ends exactly at 524288 (placement accepted); reading
    // Packet m![X # 32] touches elements 0..31, i.e. bytes up to 524280 + 31 = 524311, past
    // the slice's last byte 524287.
    let dm = Dm::new(1);
    let t = place(&dm, "X=8", DType::I8, ["1", "1", "1", "X"], 524280).expect("fits exactly");
    assert_eq!(t.byte_range(), 524280..524288);
    let ax = Axes::parse("X=8").expect("axes");
    let p = |s: &str| Mapping::parse(s, &ax).expect("mapping");
    let s = Sequencer::derive(
        t.element(),
        &p("1"),
        &p("X # 32"),
        DType::I8,
        Direction::Read,
    )
    .expect("over-fetch is a valid read");
    assert_eq!(s.to_string(), "[32:1] : 32");
    assert_eq!(s.last_offset(), 31);
    let at = |element| Place {
        chip: 0,
        cluster: 0,
        slice: 0,
        element,
    };
    assert!(t.read_code(&dm, &at(7)).is_ok());
    let e = t
        .read_code(&dm, &at(s.last_offset()))
        .expect_err("past the slice");
    assert!(
        matches!(
            e,
            DmError::OutsideSlice {
                address: 524311,
                capacity: 524288
            }
        ),
        "{e}"
    );
}
