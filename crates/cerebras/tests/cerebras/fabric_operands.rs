//! Fabric operands in DSD operations (seed 004, spec §5, goldens G39–G41, G47, G49).

use crate::common::{in_queue, out_queue};
use half::f16;
use npusim_cerebras::dsd::{FabIn, FabOut, FifoConfig, ZeroSource};
use npusim_cerebras::fabric::{Color, Wavelet};
use npusim_cerebras::ops::OpError;
use npusim_cerebras::pe::{Progress, Wait};
use npusim_cerebras::{Arch, Op, OpConfig, Operand, Pe, Scalar};

type Res = Result<(), Box<dyn std::error::Error>>;

fn c(k: i64) -> Color {
    Color::new(k).expect("color")
}

/// Wavelets waiting in `pe`'s output queue `q`, oldest first, as (payload, control).
fn sent(pe: &mut Pe, q: u8) -> Vec<(u32, bool)> {
    let queue = pe.queues.output_mut(out_queue(q)).expect("output queue");
    std::iter::from_fn(|| queue.pop())
        .map(|w| (w.payload, w.is_control()))
        .collect()
}

fn feed(pe: &mut Pe, q: u8, ws: &[Wavelet]) {
    let iq = pe.queues.input_mut(in_queue(q)).expect("input queue");
    for w in ws {
        iq.push(*w).expect("room");
    }
}

#[test]
fn g39_index_goes_in_the_high_half_of_16_bit_results() -> Res {
    // G39 as stated: mem (wio) reads array[5] = 5; 5 + 42 = 0x2F; index 5 on top
    let mut pe = Pe::new(Arch::Wse2);
    pe.mem
        .declare_with("array", &[16], &(0..16).collect::<Vec<u16>>())?;
    let wio: Operand = pe
        .mem
        .mem1d("|i|{1} -> array[i]")?
        .with_wavelet_index_offset(true)
        .into();
    let mut out = FabOut::new(Arch::Wse2, 1, Some(out_queue(2)), Some(3))?;
    out.wavelet_index_offset = true;
    let cfg = OpConfig { index: Some(5) };
    pe.exec(
        Op::Add16,
        &out.clone().into(),
        &[wio, Scalar::u16(42).into()],
        &cfg,
    )?;
    assert_eq!(sent(&mut pe, 2), vec![(0x0005_002F, false)]);
    // the general rule: any index lands in the high half, the result in the low half
    let plain: Operand = pe.mem.mem1d("|i|{1} -> array[i]")?.into();
    for index in [0u16, 5, 0xBEEF, 0xFFFF] {
        let cfg = OpConfig { index: Some(index) };
        pe.exec(
            Op::Add16,
            &out.clone().into(),
            &[plain.clone(), Scalar::u16(0xFFF0).into()],
            &cfg,
        )?;
        assert_eq!(
            sent(&mut pe, 2),
            vec![((u32::from(index) << 16) | 0xFFF0, false)]
        );
    }
    // without .index: an error (undefined in the seed)
    let e = pe
        .exec(
            Op::Add16,
            &out.into(),
            &[plain, Scalar::u16(2).into()],
            &OpConfig::default(),
        )
        .expect_err("missing index");
    assert!(matches!(e, OpError::MissingIndex { .. }), "{e}");
    Ok(())
}

#[test]
fn without_index_offset_16_bit_wavelets_carry_index_zero() -> Res {
    let mut pe = Pe::new(Arch::Wse3);
    pe.queues.bind_output(out_queue(0), c(1))?;
    let out = FabOut::new(Arch::Wse3, 3, Some(out_queue(0)), None)?;
    pe.mem.declare_with("v", &[3], &[0xFFFFu16, 7, 0x8000])?;
    let v = pe.mem.mem1d("|i|{3} -> v[i]")?;
    pe.mov16(out, &v)?;
    assert_eq!(
        sent(&mut pe, 0),
        vec![(0xFFFF, false), (7, false), (0x8000, false)]
    );
    Ok(())
}

#[test]
fn g40_zero_the_first_source_after_sending() -> Res {
    for which in [ZeroSource::First, ZeroSource::Second] {
        let mut pe = Pe::new(Arch::Wse2);
        let h = |xs: [f32; 4]| xs.map(f16::from_f32);
        pe.mem
            .declare_with("first", &[4], &h([1.0, 2.0, 3.0, 4.0]))?;
        pe.mem
            .declare_with("second", &[4], &h([2.0, 2.0, 2.0, 2.0]))?;
        let a = pe.mem.mem1d("|i|{4} -> first[i]")?;
        let b = pe.mem.mem1d("|i|{4} -> second[i]")?;
        let mut out = FabOut::new(Arch::Wse2, 4, Some(out_queue(2)), Some(0))?;
        out.zero = Some(which);
        pe.fmulh(out, &a, &b)?;
        let expected: Vec<(u32, bool)> = [2.0f32, 4.0, 6.0, 8.0]
            .iter()
            .map(|x| (u32::from(f16::from_f32(*x).to_bits()), false))
            .collect();
        assert_eq!(sent(&mut pe, 2), expected);
        let first: Vec<f32> = pe
            .mem
            .read::<f16>("first")?
            .iter()
            .map(|x| x.to_f32())
            .collect();
        let second: Vec<f32> = pe
            .mem
            .read::<f16>("second")?
            .iter()
            .map(|x| x.to_f32())
            .collect();
        match which {
            ZeroSource::First => {
                assert_eq!(first, [0.0; 4]);
                assert_eq!(second, [2.0; 4]);
            }
            ZeroSource::Second => {
                assert_eq!(first, [1.0, 2.0, 3.0, 4.0]);
                assert_eq!(second, [0.0; 4]);
            }
        }
    }
    Ok(())
}

#[test]
fn zero_first_source_of_a_one_source_operation_is_rejected() -> Res {
    let mut pe = Pe::new(Arch::Wse2);
    pe.mem.declare_with("v", &[2], &[1u16, 2])?;
    let v = pe.mem.mem1d("|i|{2} -> v[i]")?;
    let mut out = FabOut::new(Arch::Wse2, 2, Some(out_queue(2)), Some(0))?;
    out.zero = Some(ZeroSource::First);
    let e = pe.mov16(out, &v).expect_err("needs second_source");
    assert!(e.to_string().contains("second_source"), "{e}");
    Ok(())
}

#[test]
fn g41_fabin_times_a_stride_0_mem4d() -> Res {
    let mut pe = Pe::new(Arch::Wse2);
    pe.mem
        .declare("buff", npusim_cerebras::ElemTy::F32, &[3, 5])?;
    pe.mem.declare_with("consts", &[3], &[0.5f32, 2.0, -1.0])?;
    let buff = pe.mem.mem4d("|i,j|{3,5} -> buff[i,j]")?;
    let cd = pe.mem.mem4d("|i,j|{3,5} -> consts[i]")?;
    let fin = FabIn::new(Arch::Wse2, 15, Some(in_queue(1)), None)?;
    let input: Vec<f32> = (1..=15).map(|k| k as f32).collect();
    // an input queue holds 6 wavelets on WSE-2: run it in steps, feeding as room appears
    let mut run = pe.start(
        Op::Fmuls,
        &buff.into(),
        &[fin.into(), cd.into()],
        &OpConfig::default(),
    )?;
    let mut next = 0;
    let outcome = loop {
        while next < input.len() {
            let iq = pe.queues.input_mut(in_queue(1)).expect("iq");
            if iq
                .push(Wavelet::data32(c(4), input[next].to_bits()))
                .is_err()
            {
                break;
            }
            next += 1;
        }
        match pe.advance(&mut run, 4)? {
            Progress::Done(o) => break o,
            Progress::Stalled(w) => assert_eq!(w, Wait::InputEmpty(in_queue(1))),
            Progress::Paused => {}
        }
    };
    assert_eq!(outcome.elements, 15);
    assert_eq!(
        pe.mem.read::<f32>("buff")?,
        [
            0.5, 1.0, 1.5, 2.0, 2.5, 12.0, 14.0, 16.0, 18.0, 20.0, -11.0, -12.0, -13.0, -14.0,
            -15.0
        ]
    );
    Ok(())
}

#[test]
fn a_16_bit_operation_uses_the_low_half_of_a_fabin_wavelet() -> Res {
    let mut pe = Pe::new(Arch::Wse2);
    pe.mem.declare("dst", npusim_cerebras::ElemTy::U16, &[2])?;
    let dst = pe.mem.mem1d("|i|{2} -> dst[i]")?;
    feed(
        &mut pe,
        0,
        &[Wavelet::data16(c(2), 7, 100), Wavelet::data16(c(2), 9, 200)],
    );
    let fin = FabIn::new(Arch::Wse2, 2, Some(in_queue(0)), None)?;
    pe.add16(&dst, fin, Scalar::u16(1))?;
    assert_eq!(pe.mem.read::<u16>("dst")?, [101, 201]);
    Ok(())
}

#[test]
fn a_synchronous_operation_waiting_on_an_empty_queue_is_an_error() -> Res {
    let mut pe = Pe::new(Arch::Wse2);
    pe.mem.declare("dst", npusim_cerebras::ElemTy::U32, &[4])?;
    let dst = pe.mem.mem1d("|i|{4} -> dst[i]")?;
    feed(
        &mut pe,
        3,
        &[Wavelet::data32(c(2), 1), Wavelet::data32(c(2), 2)],
    );
    let e = pe
        .mov32(&dst, FabIn::new(Arch::Wse2, 4, Some(in_queue(3)), None)?)
        .expect_err("stalls");
    assert!(matches!(e, OpError::Stalled { element: 2, .. }), "{e}");
    assert!(e.to_string().contains("input queue 3"), "{e}");
    // a full output queue: WSE-2 output queue 0 holds 2
    let src = pe.mem.mem1d("|i|{4} -> dst[i]")?;
    let e = pe
        .mov32(
            FabOut::new(Arch::Wse2, 4, Some(out_queue(0)), Some(1))?,
            &src,
        )
        .expect_err("stalls");
    assert!(matches!(e, OpError::Stalled { element: 2, .. }), "{e}");
    assert!(e.to_string().contains("output queue 0"), "{e}");
    Ok(())
}

#[test]
fn fabric_operand_positions_and_the_wse3_single_fabric_input_rule() -> Res {
    for arch in [Arch::Wse2, Arch::Wse3] {
        let mut pe = Pe::new(arch);
        pe.queues.bind_output(out_queue(2), c(0))?;
        let a = FabIn::new(arch, 1, Some(in_queue(0)), None)?;
        let b = FabIn::new(arch, 1, Some(in_queue(1)), None)?;
        let out = FabOut::new(arch, 1, Some(out_queue(2)), None)?;
        feed(&mut pe, 0, &[Wavelet::data16(c(0), 0, 3)]);
        feed(&mut pe, 1, &[Wavelet::data16(c(1), 0, 4)]);
        let r = pe.add16(out.clone(), a.clone(), b);
        match arch {
            Arch::Wse2 => {
                r?;
                assert_eq!(sent(&mut pe, 2), vec![(7, false)]);
            }
            Arch::Wse3 => {
                let e = r.expect_err("WSE-3: one fabric input");
                assert!(e.to_string().contains("only one fabric input"), "{e}");
            }
        }
        let e = pe
            .mov16(a, Scalar::u16(1))
            .expect_err("fabin as destination");
        assert!(matches!(e, OpError::Kind { .. }), "{e}");
        let e = pe.mov16(Scalar::u16(1), out).expect_err("fabout as source");
        assert!(
            matches!(e, OpError::Kind { .. } | OpError::Form { .. }),
            "{e}"
        );
    }
    Ok(())
}

#[test]
fn control_wavelets_without_transform_are_consumed_as_data() -> Res {
    let mut pe = Pe::new(Arch::Wse2);
    pe.mem.declare("dst", npusim_cerebras::ElemTy::U32, &[2])?;
    let dst = pe.mem.mem1d("|i|{2} -> dst[i]")?;
    feed(
        &mut pe,
        0,
        &[Wavelet::control(c(0), 0x1234), Wavelet::data32(c(0), 5)],
    );
    pe.mov32(&dst, FabIn::new(Arch::Wse2, 2, Some(in_queue(0)), None)?)?;
    assert_eq!(pe.mem.read::<u32>("dst")?, [0x1234, 5]);
    Ok(())
}

#[test]
fn g47_control_transform_round_trip_through_a_fifo() -> Res {
    let mut pe = Pe::new(Arch::Wse2);
    pe.mem.declare("buf", npusim_cerebras::ElemTy::U32, &[5])?;
    let fifo = pe.allocate_fifo("buf", FifoConfig::default())?;
    let mut fin = FabIn::new(Arch::Wse2, 3, Some(in_queue(0)), Some(0))?;
    fin.control_transform = true;
    let mut fout = FabOut::new(Arch::Wse2, 3, Some(out_queue(2)), Some(1))?;
    fout.control_transform = true;
    let ctl = 0x0012_3456;
    feed(
        &mut pe,
        0,
        &[
            Wavelet::data32(c(0), 0x0001_000A),
            Wavelet::control(c(0), ctl),
            Wavelet::data32(c(0), 0x0002_000B),
        ],
    );
    pe.mov32(fifo, fin)?;
    assert_eq!(
        pe.fifo_contents(fifo)?,
        [0x0001_000A, ctl | 0xC000_0000, 0x0002_000B],
        "the control entry carries the marker in bits 31..30"
    );
    pe.mov32(fout, fifo)?;
    assert_eq!(
        sent(&mut pe, 2),
        vec![(0x0001_000A, false), (ctl, true), (0x0002_000B, false)]
    );
    // a data wavelet using the marker bits is an error on a control_transform path
    let mut fin = FabIn::new(Arch::Wse2, 1, Some(in_queue(0)), None)?;
    fin.control_transform = true;
    feed(&mut pe, 0, &[Wavelet::data32(c(0), 0x4000_0000)]);
    let e = pe.mov32(fifo, fin).expect_err("marker bits in use");
    assert!(
        matches!(
            e,
            OpError::ControlTransform {
                payload: 0x4000_0000,
                ..
            }
        ),
        "{e}"
    );
    Ok(())
}

#[test]
fn control_fabout_sends_control_wavelets() -> Res {
    let mut pe = Pe::new(Arch::Wse2);
    let mut out = FabOut::new(Arch::Wse2, 1, Some(out_queue(3)), Some(9))?;
    out.control = true;
    pe.mov32(out, Scalar::u32(0xABCD_0001))?;
    assert_eq!(sent(&mut pe, 3), vec![(0xABCD_0001, true)]);
    Ok(())
}

#[test]
fn g49_on_control_ends_the_operation_without_counting_an_element() -> Res {
    let mut pe = Pe::new(Arch::Wse2);
    pe.mem.declare_with("mem", &[8], &[9u32; 8])?;
    let mem = pe.mem.mem1d("|i|{8} -> mem[i]")?;
    let fin = FabIn::new(Arch::Wse2, 0x7fff, Some(in_queue(0)), None)?;
    let ws: Vec<Wavelet> = (1..=3)
        .map(|k| Wavelet::data32(c(0), k))
        .chain([Wavelet::control(c(0), 0), Wavelet::data32(c(0), 77)])
        .collect();
    feed(&mut pe, 0, &ws);
    let mut run = pe.start(Op::Mov32, &mem.into(), &[fin.into()], &OpConfig::default())?;
    run.asynchronous = true;
    run.on_control = true;
    let Progress::Done(o) = pe.advance(&mut run, u64::MAX)? else {
        panic!("the control wavelet ends it");
    };
    assert!(o.control_ended);
    assert_eq!(o.elements, 3);
    assert_eq!(pe.mem.read::<u32>("mem")?, [1, 2, 3, 9, 9, 9, 9, 9]);
    // the control wavelet was consumed; the next data wavelet waits
    assert_eq!(pe.queues.input(in_queue(0)).expect("iq").len(), 1);
    Ok(())
}

#[test]
fn wse2_color_only_fabin_gets_a_deterministic_default_queue() -> Res {
    let mut pe = Pe::new(Arch::Wse2);
    pe.mem.declare("dst", npusim_cerebras::ElemTy::U32, &[1])?;
    let dst = pe.mem.mem1d("|i|{1} -> dst[i]")?;
    pe.queues.bind_input(in_queue(5), c(13))?; // queue 5 (13 mod 8) serves another color
    let fin = FabIn::new(Arch::Wse2, 1, None, Some(5))?;
    let e = pe.mov32(&dst, fin.clone()).expect_err("nothing queued");
    assert!(e.to_string().contains("input queue 6"), "{e}");
    assert_eq!(pe.queues.input_of(c(5)), Some(in_queue(6)));
    feed(&mut pe, 6, &[Wavelet::data32(c(5), 41)]);
    pe.mov32(&dst, fin)?;
    assert_eq!(pe.mem.read::<u32>("dst")?, [41]);
    Ok(())
}

fn simd_out(arch: Arch, extent: i64, queue: i64, mode: npusim_cerebras::dsd::SimdMode) -> FabOut {
    let mut out = FabOut::new(arch, extent, Some(out_queue(queue)), Some(1)).expect("fabout");
    out.simd_mode = Some(mode);
    out
}

#[test]
fn simd_32_packs_two_16_bit_values_per_wavelet_low_half_first() -> Res {
    use npusim_cerebras::dsd::SimdMode;
    for count in [1u16, 2, 5, 6] {
        let mut pe = Pe::new(Arch::Wse3);
        let vals: Vec<u16> = (0..count).map(|k| 0x100 + k).collect();
        pe.mem.declare_with("v", &[u64::from(count)], &vals)?;
        let v = pe.mem.mem1d(&format!("|i|{{{count}}} -> v[i]"))?;
        pe.queues.bind_output(out_queue(0), c(1))?;
        let mut out = FabOut::new(Arch::Wse3, 8, Some(out_queue(0)), None)?;
        out.simd_mode = Some(SimdMode::Simd32);
        pe.mov16(out, &v)?;
        let expected: Vec<(u32, bool)> = vals
            .chunks(2)
            .map(|p| {
                (
                    u32::from(p[0]) | (u32::from(p.get(1).copied().unwrap_or(0)) << 16),
                    false,
                )
            })
            .collect();
        assert_eq!(sent(&mut pe, 0), expected, "{count} values");
    }
    // the fabout governs: extent 3 wavelets = 6 values of a scalar
    let mut pe = Pe::new(Arch::Wse2);
    pe.mov16(simd_out(Arch::Wse2, 3, 2, SimdMode::Simd32), Scalar::u16(7))?;
    assert_eq!(sent(&mut pe, 2), vec![(0x0007_0007, false); 3]);
    Ok(())
}

#[test]
fn simd_64_needs_two_wavelets_of_room_simd_32_or_64_one() -> Res {
    use npusim_cerebras::dsd::SimdMode;
    for (mode, stalls) in [
        (SimdMode::Simd64, true),
        (SimdMode::Simd32Or64, false),
        (SimdMode::Simd32, false),
    ] {
        let mut pe = Pe::new(Arch::Wse2);
        // WSE-2 output queue 0 holds 2 wavelets; one is taken
        pe.queues
            .output_mut(out_queue(0))
            .expect("oq")
            .push(Wavelet::data32(c(1), 0))
            .expect("room");
        let out = simd_out(Arch::Wse2, 2, 0, mode);
        let mut run = pe.start(
            Op::Mov16,
            &out.into(),
            &[Scalar::u16(3).into()],
            &OpConfig::default(),
        )?;
        let p = pe.advance(&mut run, 1)?;
        assert_eq!(
            p == Progress::Stalled(Wait::OutputFull(out_queue(0))),
            stalls,
            "{mode:?}: {p:?}"
        );
    }
    Ok(())
}

#[test]
fn simd_rules() -> Res {
    use npusim_cerebras::dsd::SimdMode;
    let mut pe = Pe::new(Arch::Wse2);
    let e = pe
        .mov32(simd_out(Arch::Wse2, 2, 2, SimdMode::Simd32), Scalar::u32(1))
        .expect_err("32-bit op");
    assert!(e.to_string().contains("16-bit"), "{e}");
    let mut out = simd_out(Arch::Wse2, 2, 2, SimdMode::Simd32);
    out.wavelet_index_offset = true;
    let e = pe
        .exec(
            Op::Mov16,
            &out.into(),
            &[Scalar::u16(1).into()],
            &OpConfig { index: Some(1) },
        )
        .expect_err("wio + simd");
    assert!(e.to_string().contains("wavelet_index_offset"), "{e}");
    Ok(())
}

fn simd_in(arch: Arch, extent: i64, queue: i64, mode: npusim_cerebras::dsd::SimdMode) -> FabIn {
    FabIn::new(arch, extent, Some(in_queue(queue)), None)
        .expect("fabin")
        .with_simd_mode(mode)
}

#[test]
fn simd_fabin_unpacks_two_16_bit_values_per_wavelet_low_half_first() -> Res {
    use npusim_cerebras::dsd::SimdMode;
    for arch in [Arch::Wse2, Arch::Wse3] {
        for mode in [SimdMode::Simd32, SimdMode::Simd64, SimdMode::Simd32Or64] {
            for wavelets in [1u16, 2, 3] {
                let mut pe = Pe::new(arch);
                let payloads: Vec<u32> = (0..u32::from(wavelets))
                    .map(|k| (0xA000 + k) << 16 | (0x0100 + k))
                    .collect();
                let ws: Vec<Wavelet> = payloads.iter().map(|&p| Wavelet::data32(c(1), p)).collect();
                feed(&mut pe, 0, &ws);
                let n = 2 * u64::from(wavelets);
                pe.mem.declare("dst", npusim_cerebras::ElemTy::U16, &[n])?;
                let dst = pe.mem.mem1d(&format!("|i|{{{n}}} -> dst[i]"))?;
                // the fabin governs: extent counts wavelets, so 2 x extent values
                pe.mov16(&dst, simd_in(arch, i64::from(wavelets), 0, mode))?;
                let expected: Vec<u16> = payloads
                    .iter()
                    .flat_map(|&p| [p as u16, (p >> 16) as u16])
                    .collect();
                assert_eq!(pe.mem.read::<u16>("dst")?, expected, "{arch} {mode:?}");
                assert!(pe.queues.input(in_queue(0)).expect("iq").is_empty());
            }
        }
    }
    Ok(())
}

#[test]
fn simd_64_fabin_needs_two_wavelets_ready_simd_32_or_64_one() -> Res {
    use npusim_cerebras::dsd::SimdMode;
    for (mode, stalls) in [
        (SimdMode::Simd64, true),
        (SimdMode::Simd32Or64, false),
        (SimdMode::Simd32, false),
    ] {
        let mut pe = Pe::new(Arch::Wse3);
        feed(&mut pe, 0, &[Wavelet::data32(c(1), 0x0002_0001)]);
        pe.mem.declare("dst", npusim_cerebras::ElemTy::U16, &[4])?;
        let dst: Operand = pe.mem.mem1d("|i|{4} -> dst[i]")?.into();
        let mut run = pe.start(
            Op::Mov16,
            &dst,
            &[simd_in(Arch::Wse3, 2, 0, mode).into()],
            &OpConfig::default(),
        )?;
        let p = pe.advance(&mut run, 2)?;
        assert_eq!(
            p == Progress::Stalled(Wait::InputEmpty(in_queue(0))),
            stalls,
            "{mode:?}: {p:?}"
        );
        // the second wavelet arrives: every mode finishes, values in order
        feed(&mut pe, 0, &[Wavelet::data32(c(1), 0x0004_0003)]);
        assert!(
            matches!(pe.advance(&mut run, 8)?, Progress::Done(_)),
            "{mode:?}"
        );
        assert_eq!(pe.mem.read::<u16>("dst")?, [1, 2, 3, 4], "{mode:?}");
    }
    Ok(())
}

#[test]
fn simd_fabin_rules_and_display() -> Res {
    use npusim_cerebras::dsd::SimdMode;
    let mut pe = Pe::new(Arch::Wse2);
    pe.mem.declare("d32", npusim_cerebras::ElemTy::U32, &[4])?;
    let d32 = pe.mem.mem1d("|i|{4} -> d32[i]")?;
    feed(
        &mut pe,
        0,
        &[Wavelet::data32(c(1), 1), Wavelet::data32(c(1), 2)],
    );
    let e = pe
        .mov32(&d32, simd_in(Arch::Wse2, 2, 0, SimdMode::Simd32))
        .expect_err("32-bit op");
    assert!(e.to_string().contains("16-bit"), "{e}");
    let mut ct = simd_in(Arch::Wse2, 2, 0, SimdMode::Simd32);
    ct.control_transform = true;
    pe.mem.declare("d16", npusim_cerebras::ElemTy::U16, &[4])?;
    let d16 = pe.mem.mem1d("|i|{4} -> d16[i]")?;
    let e = pe.mov16(&d16, ct).expect_err("control_transform + simd");
    assert!(e.to_string().contains("control_transform"), "{e}");
    let text = simd_in(Arch::Wse2, 2, 0, SimdMode::Simd32Or64).to_string();
    assert!(
        text.contains(".simd_mode = .{ .simd_32_or_64 = true }"),
        "{text}"
    );
    Ok(())
}
