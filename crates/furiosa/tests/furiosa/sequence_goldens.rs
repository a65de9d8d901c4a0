//! Spec §7.2 goldens G13–G19: stream accesses as sequencer loops.

use npusim_furiosa::mapping::sequence::{Direction, Entry, Sequence, SequenceError, sequence};
use npusim_furiosa::mapping::{Axes, Mapping};

fn seq(
    axes: &str,
    memory: &str,
    time: &str,
    packet: &str,
    dir: Direction,
) -> Result<Sequence, SequenceError> {
    let ax = Axes::parse(axes).expect("axes");
    let p = |s: &str| Mapping::parse(s, &ax).unwrap_or_else(|e| panic!("{e}"));
    sequence(&p(memory), &p(time), &p(packet), 8, dir)
}

fn read(axes: &str, memory: &str, time: &str, packet: &str) -> Sequence {
    seq(axes, memory, time, packet, Direction::Read).unwrap_or_else(|e| panic!("{e}"))
}

fn entries(list: &[(usize, usize)]) -> Vec<Entry> {
    list.iter()
        .map(|&(size, stride)| Entry { size, stride })
        .collect()
}

#[test]
fn g13_padded_packet() {
    let s = read("A=8,B=8,C=8", "A, B, C # 32", "B, A", "C # 16");
    assert_eq!(s.merged(), entries(&[(8, 32), (8, 256), (16, 1)]));
    assert_eq!(s.packet_bytes, 16);
    assert_eq!(s.max_access_bytes(), 16);
    assert_eq!(s.to_string(), "[8:32, 8:256, 16:1] : 16");
}

#[test]
fn g14_interleaved_digits() {
    let s = read(
        "A=8,B=8,C=4",
        "A, B, C # 8",
        "A % 2, B % 4, A / 2, B / 4",
        "C # 32",
    );
    assert_eq!(s.to_string(), "[2:64, 4:8, 4:128, 2:32, 32:1] : 32");
    assert_eq!(s.max_access_bytes(), 32);
}

#[test]
fn g15_resized_digits() {
    let s = read(
        "A=16,B=8,C=8",
        "A, B, C",
        "A / 4, A % 4 = 3, B / 4, B % 4 = 2",
        "C",
    );
    assert_eq!(s.to_string(), "[4:256, 3:64, 2:32, 2:8, 8:1] : 8");
    assert_eq!(s.max_access_bytes(), 8);
}

#[test]
fn g16_broadcast_read_and_rejected_write() {
    let s = read("A=16,T=4,P=4", "A", "T, A", "P");
    assert_eq!(s.to_string(), "[4:0, 16:1, 4:0] : 4");
    let e = seq("A=16,T=4,P=4", "A", "T, A", "P", Direction::Write).expect_err("broadcast write");
    assert!(e.to_string().contains("broadcasts"), "{e}");
}

#[test]
fn g17_merging() {
    let s = read(
        "N=8,C=8,H=8,W=32",
        "N, C, H, W",
        "W / 16, H % 2, H / 2, C / 2, C % 2, N / 2, N % 2, W / 8 % 2",
        "W % 8",
    );
    assert_eq!(
        s.raw,
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
        s.merged(),
        entries(&[(2, 16), (2, 32), (4, 64), (8, 256), (8, 2048), (16, 1)])
    );
    assert_eq!(s.max_access_bytes(), 8);
}

#[test]
fn g18_contiguous_run_and_access() {
    // [4:192, 3:64, 8:8, 8:1], packet 8 -> run 768, access 8.
    let s = read("A=4,B=3,C=8,D=8", "A, B, C, D", "A, B, C", "D");
    assert_eq!(s.to_string(), "[4:192, 3:64, 8:8, 8:1] : 8");
    assert_eq!(s.contiguous_run_bytes(), 768);
    assert_eq!(s.max_access_bytes(), 8);
    // [3:32, 4:96, 4:8, 8:1], packet 128 -> run 32, access 32 (4 accesses per packet).
    let s = read("A=3,B=4,C=4,D=8", "B, A, C, D", "A", "B, C, D");
    assert_eq!(s.to_string(), "[3:32, 4:96, 4:8, 8:1] : 128");
    assert_eq!(s.contiguous_run_bytes(), 32);
    assert_eq!(s.max_access_bytes(), 32);
    assert_eq!(s.packet_bytes / s.max_access_bytes(), 4);
    // i8 write of packet m![A, B] into m![A, B # 16] -> [4:16, 8:1] : 32, access 8.
    let s = seq("A=4,B=8", "A, B # 16", "1", "A, B", Direction::Write).expect("write");
    assert_eq!(s.to_string(), "[4:16, 8:1] : 32");
    assert_eq!(s.max_access_bytes(), 8);
}

#[test]
fn g19_incompatible() {
    let e = seq("A=15", "A % 5, A / 5", "1", "A % 3, A / 3", Direction::Read).expect_err("G19");
    assert!(matches!(e, SequenceError::Incompatible { .. }), "{e}");
    assert!(e.to_string().contains("m![A % 5, A / 5]"), "{e}");
    // The same buffer read digit by digit in its own order is fine.
    assert!(seq("A=15", "A % 5, A / 5", "A % 5", "A / 5", Direction::Read).is_ok());
}

#[test]
fn writes_must_cover_memory_once() {
    let e = seq("A=8", "A", "1", "A % 4", Direction::Write).expect_err("partial");
    assert!(e.to_string().contains("4 of 8 live memory cells"), "{e}");
    assert!(seq("A=8", "A", "A / 4", "A % 4", Direction::Write).is_ok());
}
