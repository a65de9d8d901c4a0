//! FIFO `simd_mode` (seed 004: "On WSE-2, but not WSE-3, simd_mode may also be set on
//! FIFOs"): 16-bit values move in pairs (`simd_32`, `simd_32_or_64`) or in groups of two
//! pairs (`simd_64`), a step waits until its whole group has room (data), and the
//! `activate_pop` / `activate_push` rule counts the room (data) in the stalled step's width.
//! The reading is an inference from the seed's fabric-DSD SIMD text (`DECISIONS_PART2.md`).

use crate::common;

use crate::common::*;

use npusim_cerebras::dsd::{DsdError, FabIn, FabOut, FifoConfig, SimdMode};
use npusim_cerebras::fabric::{Color, Wavelet};
use npusim_cerebras::ops::{FifoId, OpError};
use npusim_cerebras::pe::Pe;
use npusim_cerebras::sched::{Action, AsyncConfig};
use npusim_cerebras::{Arch, ElemTy, Op};

type Res = Result<(), Box<dyn std::error::Error>>;

const MODES: [Option<SimdMode>; 4] = [
    None,
    Some(SimdMode::Simd32),
    Some(SimdMode::Simd64),
    Some(SimdMode::Simd32Or64),
];

fn cfg(mode: Option<SimdMode>) -> FifoConfig {
    FifoConfig {
        simd_mode: mode,
        ..FifoConfig::default()
    }
}

fn fifo_pe(cap: u64, config: FifoConfig) -> Result<(Pe, FifoId), Box<dyn std::error::Error>> {
    let mut pe = Pe::new(Arch::Wse2);
    pe.mem.declare("buf", ElemTy::I16, &[cap])?;
    let f = pe.allocate_fifo("buf", config)?;
    Ok((pe, f))
}

/// The values a step starting at element `n` of `len` moves at once: the seed's
/// "a single wavelet carries two 16-bit values" (a pair) and "two wavelets must be ready"
/// (two pairs, `simd_64`), cut to what is left of the operation.
fn group(mode: Option<SimdMode>, n: u64, len: u64) -> u64 {
    let left = len - n;
    match mode {
        None => 1,
        Some(SimdMode::Simd64) if n.is_multiple_of(4) && left >= 4 => 4,
        Some(_) if n.is_multiple_of(2) => left.min(2),
        Some(_) => 1,
    }
}

/// Elements a synchronous push of `len` values into an empty FIFO of `cap` elements gets
/// in: whole steps only.
fn pushed(mode: Option<SimdMode>, cap: u64, len: u64) -> u64 {
    let mut n = 0;
    while n < len && cap - n >= group(mode, n, len) {
        n += 1;
    }
    n
}

#[test]
fn wse3_refuses_fifo_simd_mode_naming_the_fifo_and_the_arch() -> Res {
    let mut pe = Pe::new(Arch::Wse3);
    pe.mem.declare("my_fifo_buf", ElemTy::I16, &[8])?;
    let e = pe
        .allocate_fifo("my_fifo_buf", cfg(Some(SimdMode::Simd64)))
        .expect_err("WSE-3 has no FIFO simd_mode");
    let msg = e.to_string();
    assert!(
        msg.contains("my_fifo_buf") && msg.contains("simd_mode"),
        "{msg}"
    );
    assert!(msg.contains(&Arch::Wse3.to_string()), "{msg}");
    Ok(())
}

#[test]
fn simd_fifo_needs_16_bit_elements_and_16_bit_operations() -> Res {
    let mut pe = Pe::new(Arch::Wse2);
    pe.mem.declare("wide", ElemTy::U32, &[8])?;
    let e = pe
        .allocate_fifo("wide", cfg(Some(SimdMode::Simd32)))
        .expect_err("32-bit elements");
    assert!(
        matches!(&e, OpError::Dsd(DsdError::FifoSimdElem { buffer, .. }) if buffer == "wide"),
        "{e}"
    );
    // a 32-bit operation cannot use the 16-bit buffer at all (the type check refuses it)
    let (mut pe, f) = fifo_pe(8, cfg(Some(SimdMode::Simd32)))?;
    pe.mem.declare("src", ElemTy::U32, &[2])?;
    let src = pe.mem.mem1d("|i|{2} -> src[i]")?;
    let e = pe.mov32(f, &src).expect_err("a 32-bit op on a 16-bit FIFO");
    assert!(e.to_string().contains("i16"), "{e}");
    Ok(())
}

#[test]
fn a_push_waits_for_room_for_its_whole_simd_step() -> Res {
    // the documented cases first: 5 values into 3 slots
    assert_eq!(pushed(None, 3, 5), 3);
    assert_eq!(pushed(Some(SimdMode::Simd32), 3, 5), 2);
    assert_eq!(pushed(Some(SimdMode::Simd64), 3, 8), 0);
    for mode in MODES {
        for cap in 1..=6u64 {
            for len in 1..=9u64 {
                let (mut pe, f) = fifo_pe(cap, cfg(mode))?;
                let vals: Vec<i16> = (0..len as i16).map(|k| 3 * k - 7).collect();
                pe.mem.declare_with("src", &[len], &vals)?;
                let src = pe.mem.mem1d(&format!("|i|{{{len}}} -> src[i]"))?;
                let o = pe.mov16(f, &src)?;
                let want = pushed(mode, cap, len);
                let case = format!("{mode:?} cap {cap} len {len}");
                assert_eq!(o.elements, want, "{case}");
                assert_eq!(o.completed, want == len, "{case}");
                let held: Vec<u32> = vals[..want as usize]
                    .iter()
                    .map(|&v| u32::from(v as u16))
                    .collect();
                assert_eq!(pe.fifo_contents(f)?, held, "{case}");
                // a full event leaves the write length at what remained
                if want < len {
                    assert_eq!(u64::from(pe.fifo(f)?.write_length), len - want, "{case}");
                }
            }
        }
    }
    Ok(())
}

#[test]
fn a_pop_waits_for_data_for_its_whole_simd_step() -> Res {
    for mode in MODES {
        for held in 0..=6u64 {
            for len in 1..=8u64 {
                let (mut pe, f) = fifo_pe(8, cfg(mode))?;
                let vals: Vec<i16> = (0..held as i16).map(|k| 100 - 5 * k).collect();
                let init = if vals.is_empty() {
                    vec![0]
                } else {
                    vals.clone()
                };
                pe.mem.declare_with("src", &[held.max(1)], &init)?;
                pe.mem.declare("dst", ElemTy::I16, &[len])?;
                if held > 0 {
                    let src = pe.mem.mem1d(&format!("|i|{{{held}}} -> src[i]"))?;
                    pe.mov16(f, &src)?;
                }
                pe.set_fifo_read_length(f, len as i64)?;
                let dst = pe.mem.mem1d(&format!("|i|{{{len}}} -> dst[i]"))?;
                let o = pe.mov16(&dst, f)?;
                // pops go on while the FIFO holds the whole step
                let mut want = 0;
                while want < len && held - want >= group(mode, want, len) {
                    want += 1;
                }
                let case = format!("{mode:?} held {held} len {len}");
                assert_eq!(o.elements, want, "{case}");
                assert_eq!(
                    pe.mem.read::<i16>("dst")?[..want as usize],
                    vals[..want as usize],
                    "{case}"
                );
                assert_eq!(pe.fifo(f)?.count, (held - want) as u32, "{case}");
            }
        }
    }
    Ok(())
}

#[test]
fn activate_pop_fires_on_the_pop_that_makes_room_for_the_stalled_simd_step() -> Res {
    for (mode, cap) in [
        (None, 5u64),
        (Some(SimdMode::Simd32), 5),
        (Some(SimdMode::Simd64), 5),
        (Some(SimdMode::Simd32Or64), 5),
    ] {
        let config = FifoConfig {
            activate_pop: Some(pop_task()),
            ..cfg(mode)
        };
        let (mut pe, f) = fifo_pe(cap, config)?;
        pe.mem
            .declare_with("src", &[8], &[1i16, 2, 3, 4, 5, 6, 7, 8])?;
        pe.mem.declare("dst", ElemTy::I16, &[1])?;
        let src = pe.mem.mem1d("|i|{8} -> src[i]")?;
        let dst = pe.mem.mem1d("|i|{1} -> dst[i]")?;
        let o = pe.mov16(f, &src)?;
        assert!(!o.completed);
        let in_fifo = o.elements;
        let need = group(mode, in_fifo, 8);
        pe.set_fifo_write_length(f, 0)?;
        // pop one at a time: P exactly on the pop after which the stalled step fits
        for k in 1..=in_fifo {
            let o = pe.mov16(&dst, f)?;
            let room = cap - in_fifo + k;
            let fires = room >= need && room - 1 < need;
            assert_eq!(
                o.activated,
                if fires { vec![pop_task()] } else { vec![] },
                "{mode:?}: pop {k}, room {room}, need {need}"
            );
        }
    }
    Ok(())
}

#[test]
fn activate_push_fires_on_the_push_that_makes_data_for_the_stalled_simd_step() -> Res {
    for mode in MODES {
        let config = FifoConfig {
            activate_push: Some(push_task()),
            ..cfg(mode)
        };
        let (mut pe, f) = fifo_pe(8, config)?;
        pe.mem.declare("dst", ElemTy::I16, &[4])?;
        let dst = pe.mem.mem1d("|i|{4} -> dst[i]")?;
        // a read of 4 on the empty FIFO: empty event for a step of group(mode, 0, 4)
        let o = pe.mov16(&dst, f)?;
        assert_eq!((o.completed, o.elements), (false, 0));
        let need = group(mode, 0, 4);
        pe.set_fifo_read_length(f, 0)?;
        for k in 1..=4u64 {
            let o = pe.mov16(f, npusim_cerebras::ops::Scalar::i16(k as i16))?;
            let fires = k == need;
            assert_eq!(
                o.activated,
                if fires { vec![push_task()] } else { vec![] },
                "{mode:?}: push {k}, need {need}"
            );
        }
    }
    Ok(())
}

/// A one-PE pipe: an async producer moves 7 host wavelets from input queue 0 into a SIMD
/// FIFO of 5 elements, an async consumer pops the FIFO out to the host: every value arrives,
/// in order, in every mode (odd length: the last step moves one value).
#[test]
fn async_producer_and_consumer_through_a_simd_fifo() -> Res {
    for mode in MODES {
        let (h2d, d2h) = (Color::new(1)?, Color::new(2)?);
        let input: Vec<u16> = (0..7).map(|k| 500 + 7 * k).collect();
        let mut sim = common::host_pipe(
            Arch::Wse2,
            h2d,
            d2h,
            input.iter().map(|&v| Wavelet::data16(h2d, 0, v)),
        )?;
        let pe = sim.pe_mut(0, 0)?;
        pe.mem.declare("buf", ElemTy::I16, &[5])?;
        pe.queues.bind_input(in_queue(0), h2d)?;
        pe.queues.bind_output(out_queue(1), d2h)?;
        let fifo = pe.allocate_fifo("buf", cfg(mode))?;
        let fin = FabIn::new(Arch::Wse2, 7, Some(in_queue(0)), None)?;
        let fout = FabOut::new(Arch::Wse2, 7, Some(out_queue(1)), None)?;
        let spawn =
            |d: npusim_cerebras::Operand, s| Action::spawn(Op::Mov16, d, s, AsyncConfig::default());
        let body = vec![
            spawn(fifo.into(), vec![fin.into()]),
            spawn(fout.into(), vec![fifo.into()]),
        ];
        sim.bind_task(0, 0, local_task(10), "main", body)?;
        sim.activate(0, 0, local_task(10))?;
        sim.run(500)?;
        let got: Vec<u16> = sim
            .collected()
            .iter()
            .map(|c| c.wavelet.payload as u16)
            .collect();
        assert_eq!(got, input, "{mode:?}");
    }
    Ok(())
}

/// The seed's fragment: `.{ .simd_mode = .{ .simd_64 = true } }` if `@is_arch("wse2")`, else
/// `.{}`: both allocate, and only the WSE-2 FIFO has the mode.
#[test]
fn seed_fifo_simd_64_on_wse2_only() -> Res {
    for arch in [Arch::Wse2, Arch::Wse3] {
        let mut pe = Pe::new(arch);
        pe.mem.declare("some_buffer", ElemTy::I16, &[16])?;
        let config = if arch == Arch::Wse2 {
            cfg(Some(SimdMode::Simd64))
        } else {
            FifoConfig::default()
        };
        let my_fifo = pe.allocate_fifo("some_buffer", config)?;
        let want = (arch == Arch::Wse2).then_some(SimdMode::Simd64);
        assert_eq!(pe.fifo(my_fifo)?.config.simd_mode, want, "{arch}");
    }
    Ok(())
}

/// The local task a FIFO's `activate_pop` names in these tests.
fn pop_task() -> npusim_cerebras::ids::LocalTaskId {
    npusim_cerebras::ids::LocalTaskId::new(12).expect("a local task id")
}

/// The local task a FIFO's `activate_push` names in these tests.
fn push_task() -> npusim_cerebras::ids::LocalTaskId {
    npusim_cerebras::ids::LocalTaskId::new(13).expect("a local task id")
}
