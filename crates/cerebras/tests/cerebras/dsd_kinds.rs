//! PE memory, every DSD kind's validation and the mutators, on seed 004's fragments.

#![allow(clippy::unwrap_used)]

use crate::common::{in_queue, out_queue};
use half::f16;
use npusim_cerebras::dsd::{
    AccessStruct, CircBuf, Dsd, DsdError, FabIn, FabOut, Fifo, FifoAction, FifoConfig, MemProps,
    Priority, get_mem1d, get_mem4d, increment_dsd_offset, set_dsd_base_addr, set_dsd_length,
    set_dsd_stride,
};
use npusim_cerebras::{Arch, ElemTy, MemoryError, PE_MEMORY_BYTES, PeMemory};

/// Element indices (relative to array `name`) of a memory DSD's accesses.
fn indices(mem: &PeMemory, name: &str, d: &Dsd) -> Vec<i64> {
    let a = mem.array(name).unwrap();
    let w = i64::from(a.elem.words());
    d.element_words(0)
        .unwrap()
        .iter()
        .map(|x| (x - a.word_addr) / w)
        .collect()
}

#[test]
fn memory_is_48_kib_of_words_with_little_endian_32_bit_values() {
    assert_eq!(PE_MEMORY_BYTES, 49_152);
    assert_eq!(
        (
            npusim_cerebras::WSE2_PE_MEMORY_BYTES,
            npusim_cerebras::WSE3_PE_MEMORY_BYTES
        ),
        (49_152, 49_152)
    );
    for arch in [Arch::Wse2, Arch::Wse3] {
        assert_eq!(arch.memory_words(), 24_576);
    }
    let mut m = PeMemory::new(Arch::Wse3);
    m.declare_with("h", &[3], &[1u16, 2, 3]).unwrap();
    let x = m
        .declare_with("x", &[2], &[0x1234_5678u32, 0xDEAD_BEEF])
        .unwrap();
    assert_eq!(x.word_addr, 4, "32-bit arrays are 4-byte aligned");
    assert_eq!(m.load(4, ElemTy::U16).unwrap(), 0x5678);
    assert_eq!(m.load(5, ElemTy::U16).unwrap(), 0x1234);
    assert_eq!(m.read::<u32>("x").unwrap(), [0x1234_5678, 0xDEAD_BEEF]);
    m.declare_with("f", &[2], &[1.5f32, -2.0]).unwrap();
    assert_eq!(m.read::<f32>("f").unwrap(), [1.5, -2.0]);
    m.declare_with("g", &[2], &[f16::from_f32(0.5), f16::from_f32(6.0)])
        .unwrap();
    assert_eq!(m.read::<f16>("g").unwrap()[1], f16::from_f32(6.0));
    m.declare_with("i", &[1], &[-7i32]).unwrap();
    m.declare_with("s", &[1], &[-7i16]).unwrap();
    assert_eq!(m.read::<i32>("i").unwrap(), [-7]);
    assert_eq!(m.read::<i16>("s").unwrap(), [-7]);
}

#[test]
fn memory_errors_are_typed() {
    let mut m = PeMemory::new(Arch::Wse2);
    assert!(matches!(
        m.load(24_576, ElemTy::U16),
        Err(MemoryError::OutOfMemory { .. })
    ));
    assert!(matches!(
        m.load(-1, ElemTy::U16),
        Err(MemoryError::OutOfMemory { .. })
    ));
    assert!(matches!(
        m.load(24_575, ElemTy::U32),
        Err(MemoryError::OutOfMemory { .. })
    ));
    assert!(matches!(
        m.store(3, ElemTy::F32, 0),
        Err(MemoryError::Misaligned { .. })
    ));
    let e = m.declare("big", ElemTy::F32, &[100, 200]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "array `big` needs 40000 words but only 24576 of 24576 are free"
    );
    m.declare("a", ElemTy::U16, &[4]).unwrap();
    assert!(matches!(
        m.declare("a", ElemTy::U16, &[4]),
        Err(MemoryError::Duplicate(_))
    ));
    assert!(matches!(
        m.write("a", &[1.0f32; 4]),
        Err(MemoryError::Type { .. })
    ));
    assert!(matches!(
        m.write("a", &[1u16; 3]),
        Err(MemoryError::Length { .. })
    ));
    assert!(matches!(m.read::<u16>("b"), Err(MemoryError::Unknown(_))));
    assert!(matches!(
        m.declare("z", ElemTy::U16, &[0]),
        Err(MemoryError::Shape { .. })
    ));
}

#[test]
fn a_tensor_access_and_its_struct_give_the_same_dsd() {
    let mut m = PeMemory::new(Arch::Wse2);
    m.declare("A", ElemTy::I16, &[10]).unwrap();
    let dsd1 = m.mem1d("|i|{10} -> A[2*i + 42]").unwrap();
    let dsd2 = get_mem1d(MemProps {
        base_address: Some(m.base("A").unwrap()),
        offset: Some(42),
        stride: Some(vec![2]),
        extent: Some(vec![10]),
        ..MemProps::default()
    })
    .unwrap();
    assert_eq!(dsd1, dsd2);
    // the anonymous struct form: offset defaults to zero
    let d = get_mem1d(MemProps {
        tensor_access: Some(AccessStruct {
            base_address: Some(m.base("A").unwrap()),
            stride: Some(vec![2]),
            extent: Some(vec![10]),
            ..AccessStruct::default()
        }),
        ..MemProps::default()
    })
    .unwrap();
    assert_eq!(
        d.element_offsets().collect::<Vec<_>>(),
        (0..20).step_by(2).collect::<Vec<_>>()
    );
    // a property in both places is an error
    let (base, l) = m.lower("|i|{10} -> A[i]", Default::default()).unwrap();
    let e = get_mem1d(MemProps {
        tensor_access: Some(AccessStruct::from_lowered(base, &l)),
        stride: Some(vec![2]),
        ..MemProps::default()
    })
    .unwrap_err();
    assert_eq!(
        e,
        DsdError::GivenTwice {
            kind: "mem1d_dsd",
            property: "stride"
        }
    );
    assert!(matches!(
        get_mem4d(MemProps::default()),
        Err(DsdError::Missing { .. })
    ));
}

#[test]
fn runtime_fields_with_a_negative_stride() {
    let mut m = PeMemory::new(Arch::Wse2);
    m.declare_with("B", &[10], &(0..10).collect::<Vec<i16>>())
        .unwrap();
    let d: Dsd = get_mem1d(MemProps {
        base_address: Some(m.element("B", 9).unwrap()),
        stride: Some(vec![-1]),
        extent: Some(vec![4]),
        ..MemProps::default()
    })
    .unwrap()
    .into();
    assert_eq!(indices(&m, "B", &d), [9, 8, 7, 6]);
    assert!(d.to_string().contains(".base_address = &B[9]"));
}

#[test]
fn increment_dsd_offset_moves_the_square_up_one_row() {
    let mut m = PeMemory::new(Arch::Wse2);
    m.declare("A", ElemTy::F32, &[10, 10]).unwrap();
    let d: Dsd = m.mem4d("|i, j|{2, 2} -> A[i + 1, j + 1]").unwrap().into();
    assert_eq!(indices(&m, "A", &d), [11, 12, 21, 22]);
    let moved = increment_dsd_offset(&d, -10, ElemTy::F32).unwrap();
    assert_eq!(indices(&m, "A", &moved), [1, 2, 11, 12]);
    // the element type converts the count to words: 2 u16 elements are one f32
    let half = increment_dsd_offset(&d, 2, ElemTy::U16).unwrap();
    assert_eq!(indices(&m, "A", &half), [12, 13, 22, 23]);
    assert!(increment_dsd_offset(&d, 40_000, ElemTy::F32).is_err());
}

#[test]
fn set_base_addr_drops_the_offset_and_length_stride_mutators() {
    let mut m = PeMemory::new(Arch::Wse2);
    m.declare("X", ElemTy::I16, &[8]).unwrap();
    m.declare("Y", ElemTy::I16, &[8]).unwrap();
    let d: Dsd = m.mem1d("|i|{4} -> X[2*i+1]").unwrap().into();
    let d2 = set_dsd_base_addr(&d, m.base("Y").unwrap()).unwrap();
    assert_eq!(indices(&m, "Y", &d2), [0, 2, 4, 6]);
    assert_eq!(indices(&m, "X", &d), [1, 3, 5, 7], "the input is unchanged");
    let d: Dsd = m.mem1d("|i|{4} -> X[i]").unwrap().into();
    assert_eq!(indices(&m, "X", &set_dsd_length(&d, 2).unwrap()), [0, 1]);
    assert_eq!(
        indices(&m, "X", &set_dsd_stride(&d, 3).unwrap()),
        [0, 3, 6, 9]
    );
    assert!(
        set_dsd_stride(&d, 128)
            .unwrap_err()
            .to_string()
            .contains("stride 128")
    );
    assert!(set_dsd_length(&d, 65_536).is_err());
    let d4: Dsd = m.mem4d("|i,j|{2,2} -> X[2*i + j]").unwrap().into();
    assert!(matches!(
        set_dsd_length(&d4, 2),
        Err(DsdError::WrongKind { .. })
    ));
    assert!(matches!(
        set_dsd_stride(&d4, 2),
        Err(DsdError::WrongKind { .. })
    ));
}

#[test]
fn circular_buffers_of_the_seed() {
    let mut m = PeMemory::new(Arch::Wse2);
    m.declare("buffer", ElemTy::F16, &[10]).unwrap();
    let base = m.base("buffer").unwrap();
    let c1: Dsd = CircBuf::new(base.clone(), 20, None).unwrap().into();
    let want: Vec<i64> = (0..10).chain(0..10).collect();
    assert_eq!(indices(&m, "buffer", &c1), want);
    let c2: Dsd = CircBuf::new(base.clone(), 20, Some(5)).unwrap().into();
    assert_eq!(indices(&m, "buffer", &c2), [0, 1, 2, 3, 4].repeat(4));
    let e = CircBuf::new(base, 20, Some(15)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "circbuf_dsd wraparound 15 exceeds the size 10 of the underlying tensor `buffer`"
    );
    let scalar = m.element("buffer", 3).unwrap();
    assert!(matches!(
        CircBuf::new(scalar.clone(), 20, None),
        Err(DsdError::WrapRequired { .. })
    ));
    let c4 = CircBuf::new(scalar, 20, Some(5)).unwrap();
    assert_eq!(
        c4.to_string(),
        "@get_dsd(circbuf_dsd, .{.base_address = &buffer[3], .extent = 20, .wraparound = 5})"
    );
}

#[test]
fn fabric_dsds_are_validated_data() {
    let d = FabIn::new(Arch::Wse2, 5, None, Some(3)).unwrap();
    assert_eq!(
        d.to_string(),
        "@get_dsd(fabin_dsd, .{.extent = 5, .fabric_color = 3})"
    );
    assert!(matches!(
        FabIn::new(Arch::Wse3, 5, None, Some(3)),
        Err(DsdError::Arch { .. })
    ));
    assert!(matches!(
        FabIn::new(Arch::Wse3, 5, None, None),
        Err(DsdError::Missing { .. })
    ));
    // the queue number is checked where the queue id is made (`@get_input_queue(8)`)
    assert!(
        npusim_cerebras::fabric::InputQueue::new(8)
            .unwrap_err()
            .to_string()
            .contains("input queue 8")
    );
    let d = FabIn::new(Arch::Wse3, 10, Some(in_queue(0)), None).unwrap();
    assert!(d.clone().with_priority(Arch::Wse3, Priority::High).is_ok());
    assert!(d.with_priority(Arch::Wse2, Priority::High).is_err());
    let o = FabOut::new(Arch::Wse2, 1024, None, Some(4)).unwrap();
    assert_eq!(
        o.to_string(),
        "@get_dsd(fabout_dsd, .{.extent = 1024, .fabric_color = 4})"
    );
    assert!(
        FabOut::new(Arch::Wse2, 1, Some(out_queue(6)), None).is_err(),
        "WSE-2 has 6 output queues"
    );
    assert!(FabOut::new(Arch::Wse3, 1, Some(out_queue(7)), None).is_ok());
    assert!(FabOut::new(Arch::Wse2, 70_000, Some(out_queue(1)), None).is_err());
}

#[test]
fn fifo_allocation_rules_and_lengths() {
    let mut m = PeMemory::new(Arch::Wse2);
    m.declare("fifo_buffer", ElemTy::I16, &[32]).unwrap();
    let buf = m.base("fifo_buffer").unwrap();
    let mut fifo = Fifo::allocate(Arch::Wse2, buf.clone(), FifoConfig::default()).unwrap();
    assert_eq!((fifo.read_length, fifo.write_length), (0, 0));
    fifo.set_write_length(42).unwrap();
    fifo.set_read_length(42).unwrap();
    assert_eq!(
        (fifo.read_length, fifo.write_length, fifo.capacity()),
        (42, 42, 32)
    );
    assert!(fifo.set_read_length(-1).is_err());
    let cfg = FifoConfig {
        empty_action: Some(FifoAction::Terminate),
        full_action: Some(FifoAction::Fault),
        ..FifoConfig::default()
    };
    assert!(matches!(
        Fifo::allocate(Arch::Wse2, buf.clone(), cfg.clone()),
        Err(DsdError::Arch { .. })
    ));
    let f3 = Fifo::allocate(Arch::Wse3, buf.clone(), cfg).unwrap();
    assert_eq!(
        f3.to_string(),
        "@allocate_fifo(fifo_buffer, .{ .empty_action = .{ .terminate = true }, .full_action = .{ .fault = true } })"
    );
    assert!(
        Fifo::allocate(
            Arch::Wse2,
            m.element("fifo_buffer", 0).unwrap(),
            FifoConfig::default()
        )
        .is_err()
    );
}

#[test]
fn arrays_round_trip_as_little_endian_bytes() {
    let mut m = PeMemory::new(Arch::Wse3);
    m.declare_with("f", &[2], &[1.0f32, -2.5]).unwrap();
    m.declare_with("h", &[3], &[1u16, 0x0203, 0xFFFF]).unwrap();
    let fb = m.array_bytes("f").unwrap();
    assert_eq!(fb, [1.0f32.to_le_bytes(), (-2.5f32).to_le_bytes()].concat());
    assert_eq!(m.array_bytes("h").unwrap(), [1, 0, 3, 2, 0xFF, 0xFF]);
    m.set_array_bytes("h", &[9, 0, 8, 0, 7, 0]).unwrap();
    assert_eq!(m.read::<u16>("h").unwrap(), [9, 8, 7]);
    assert!(matches!(
        m.set_array_bytes("f", &[0; 7]),
        Err(MemoryError::Length { .. })
    ));
}

#[test]
fn fifo_buffers_are_aligned_to_the_architecture_minimum() {
    use npusim_cerebras::memory::DEFAULT_ALIGN_BYTES;
    use npusim_cerebras::ops::OpError;
    use npusim_cerebras::pe::Pe;
    for arch in [Arch::Wse2, Arch::Wse3] {
        let min = arch.fifo_min_align_bytes();
        assert!(DEFAULT_ALIGN_BYTES >= min);
        let mut pe = Pe::new(arch);
        // an odd number of words before the buffer: the default alignment still applies
        pe.mem.declare("odd", ElemTy::U16, &[3]).unwrap();
        let b = pe.mem.declare("fifo_buffer", ElemTy::I16, &[32]).unwrap();
        assert_eq!(b.word_addr * 2 % i64::from(min), 0);
        pe.allocate_fifo("fifo_buffer", FifoConfig::default())
            .unwrap();
        // explicit alignments: below the minimum is an error naming both numbers
        pe.mem.declare("odd2", ElemTy::U16, &[1]).unwrap();
        let packed = pe
            .mem
            .declare_aligned("packed", ElemTy::I16, &[8], 2)
            .unwrap();
        assert_eq!(packed.word_addr % 2, 1, "align(2) packs after an odd word");
        let e = pe
            .allocate_fifo("packed", FifoConfig::default())
            .unwrap_err();
        assert!(matches!(e, OpError::Dsd(DsdError::FifoAlign { .. })), "{e}");
        assert_eq!(
            e.to_string(),
            format!(
                "@allocate_fifo: buffer `packed` is declared with align(2), below the FIFO minimum of {min} bytes on {arch}"
            )
        );
        let big = pe
            .mem
            .declare_aligned("wide", ElemTy::I16, &[8], 16)
            .unwrap();
        assert_eq!(big.word_addr % 8, 0);
        pe.allocate_fifo("wide", FifoConfig::default()).unwrap();
        for bad in [0, 3, 6] {
            let e = pe
                .mem
                .declare_aligned("bad", ElemTy::I16, &[1], bad)
                .unwrap_err();
            assert!(matches!(e, MemoryError::Align { .. }), "{e}");
        }
        let e = pe
            .mem
            .declare_aligned("bad", ElemTy::F32, &[1], 2)
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("no smaller than its f32 elements (4 bytes)"),
            "{e}"
        );
    }
}
