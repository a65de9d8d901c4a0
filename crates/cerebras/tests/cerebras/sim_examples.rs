//! The ported programs (spec §13 E4–E9) give their documented outputs, on both
//! architectures, and two runs give the same trace.

use npusim_examples::cerebras::programs::e4_gemv_routes_3 as e4;
use npusim_examples::cerebras::programs::e5_gemv_streaming as e5;
use npusim_examples::cerebras::programs::e6_gemv_checkerboard as e6;
use npusim_examples::cerebras::programs::e7_pipeline_basic as e7;
use npusim_examples::cerebras::programs::e8_pipeline_fifo as e8;
use npusim_examples::cerebras::programs::e9_fifos as e9;

use npusim_cerebras::Arch;

type Res = Result<(), Box<dyn std::error::Error>>;

fn plus_one(input: &[i16]) -> Vec<i16> {
    input.iter().map(|v| v.wrapping_add(1)).collect()
}

#[test]
fn e7_pipeline_basic_adds_one() -> Res {
    for arch in [Arch::Wse2, Arch::Wse3] {
        for input in [(0..12).collect::<Vec<i16>>(), vec![-5, i16::MAX, 0, -1]] {
            let (out, report) = e7::run(arch, &input)?;
            assert_eq!(out, plus_one(&input), "{arch}");
            assert!(report.idle.is_empty());
            let (_, again) = e7::run(arch, &input)?;
            assert_eq!(report, again);
        }
    }
    Ok(())
}

#[test]
fn e8_pipeline_fifo_adds_one_through_three_microthreads() -> Res {
    for arch in [Arch::Wse2, Arch::Wse3] {
        let input: Vec<i16> = (0..32).map(|k| k * 3 - 40).collect();
        let (out, report) = e8::run(arch, &input)?;
        assert_eq!(out, plus_one(&input), "{arch}");
        // the three unbounded operations end idle, waiting for more input
        assert_eq!(report.idle.len(), 3, "{:?}", report.idle);
        let (_, again) = e8::run(arch, &input)?;
        assert_eq!(report.trace_hash, again.trace_hash);
        assert_eq!(report.cycles, again.cycles);
    }
    Ok(())
}

fn negated_cube(x: f32) -> f32 {
    let t = -(x + 10.0);
    t * t * t
}

#[test]
fn e9_fifos_negate_and_cube() -> Res {
    let input = [0.5f32, 1.0, -2.0, 0.25];
    for arch in [Arch::Wse2, Arch::Wse3] {
        let (out, report) = e9::run(arch, &input)?;
        assert_eq!(out, [-1157.625, -1331.0, -512.0, -68921.0 / 64.0], "{arch}");
        let (_, again) = e9::run(arch, &input)?;
        assert_eq!(report, again);
    }
    // N = 512 as in the example's commands: the 16-element FIFO fills and the producer waits
    let input: Vec<f32> = (0..512).map(|k| (k as f32 - 256.0) * 0.125).collect();
    let (out, report) = e9::run(Arch::Wse2, &input)?;
    let expected: Vec<f32> = input.iter().map(|&x| negated_cube(x)).collect();
    assert_eq!(out.len(), 512);
    for (k, (o, e)) in out.iter().zip(&expected).enumerate() {
        assert_eq!(o.to_bits(), e.to_bits(), "element {k}");
    }
    assert!(report.pes[0].stalls > 0);
    Ok(())
}

#[test]
fn e4_gemv_routes_3_reduces_across_a_4x3_grid() -> Res {
    for arch in [Arch::Wse2, Arch::Wse3] {
        let r = e4::run(arch)?;
        assert_eq!(r.y, [30.0, 94.0, 158.0, 222.0, 286.0, 350.0], "{arch}");
        assert_eq!(r.exits, [1; 12], "every exit task runs once ({arch})");
        // every PE started its data task once per x element it holds (2) plus reduce, exit
        for s in &r.report.pes {
            let expected = if s.y == 0 { 5 } else { 4 };
            assert_eq!(s.tasks_started, expected, "PE ({}, {})", s.x, s.y);
        }
        let again = e4::run(arch)?;
        assert_eq!(r.report, again.report);
    }
    Ok(())
}

#[test]
fn e5_gemv_streaming_with_block_and_unblock() -> Res {
    for arch in [Arch::Wse2, Arch::Wse3] {
        let (y, report) = e5::run(arch)?;
        assert_eq!(y, [30.0, 94.0, 158.0, 222.0, 286.0, 350.0], "{arch}");
        assert!(report.idle.is_empty());
        let (_, again) = e5::run(arch)?;
        assert_eq!(report, again);
    }
    Ok(())
}

#[test]
fn e6_gemv_checkerboard_bit_exact_in_f16() -> Res {
    let want = e6::expected();
    assert_eq!(want.len(), e6::M as usize);
    for arch in [Arch::Wse2, Arch::Wse3] {
        assert_eq!(e6::run(arch)?, want, "{arch}");
    }
    Ok(())
}
