//! Furiosa RNGD workloads at the size of a real kernel: the inter-slice reduce of issue 25
//! (256 slices x 512 time steps x 8 i32 lanes, reduced to `1 # 256`) and a Cast Engine run of
//! the same 1 Mi cells (f32 -> bf16, each 8-lane flit re-padded to 16 lanes), counted in input
//! cells per second.

use std::hint::black_box;

use npusim_furiosa::mapping::Axes;
use npusim_furiosa::{CastProfile, DType, InterSliceReduceOpI32, Mapping, StreamTensor};

use super::{Unit, Workload};
use crate::error::BenchError;

/// Cells of each workload: 256 slices x 512 time steps x 8 lanes.
const CELLS: usize = 1 << 20;

/// A workload's failure, named.
fn failed(workload: &str, e: impl std::fmt::Display) -> BenchError {
    BenchError::Workload {
        workload: workload.to_string(),
        message: e.to_string(),
    }
}

/// The stream `[1, 1, S, T, P]` of `axes` with the given Slice, Time, Packet.
fn dims(axes: &Axes, slice: &str, workload: &str) -> Result<[Mapping; 5], BenchError> {
    let parse = |t: &str| Mapping::parse(t, axes).map_err(|e| failed(workload, e));
    Ok([
        parse("1")?,
        parse("1")?,
        parse(slice)?,
        parse("T")?,
        parse("P")?,
    ])
}

/// The two Furiosa workloads, one thread each (the engines run on their caller's thread).
pub(super) fn workloads() -> Result<Vec<Workload<'static>>, BenchError> {
    Ok(vec![reduce()?, cast()?])
}

fn reduce() -> Result<Workload<'static>, BenchError> {
    const NAME: &str = "furiosa inter-slice reduce 1Mi i32";
    let axes = Axes::parse("R=256, T=512, P=8").map_err(|e| failed(NAME, e))?;
    let values: Vec<i32> = (0..CELLS as u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) as i32)
        .collect();
    let input =
        StreamTensor::collect_i32(dims(&axes, "R", NAME)?, &values).map_err(|e| failed(NAME, e))?;
    let out_slice = Mapping::parse("1 # 256", &axes).map_err(|e| failed(NAME, e))?;
    let out_time = Mapping::parse("T", &axes).map_err(|e| failed(NAME, e))?;
    Ok(Workload {
        name: NAME.to_string(),
        unit: Unit::Cells,
        units: CELLS as u64,
        input_bytes: 4 * CELLS,
        output_bytes: 4 * CELLS,
        threads: 1,
        // The reducer consumes its stream, so each call starts from a copy of the input (one
        // more pass over the input's bytes than the reduce itself).
        call: Box::new(move || {
            let out = input
                .clone()
                .vector_init()
                .and_then(|v| {
                    v.vector_inter_slice_reduce(&out_slice, &out_time, InterSliceReduceOpI32::Add)
                })
                .and_then(|v| v.vector_final())
                .map_err(|e| failed(NAME, e))?;
            black_box(&out);
            Ok(())
        }),
    })
}

fn cast() -> Result<Workload<'static>, BenchError> {
    const NAME: &str = "furiosa cast f32->bf16 1Mi";
    let axes = Axes::parse("S=256, T=512, P=8").map_err(|e| failed(NAME, e))?;
    let values: Vec<f32> = (0..CELLS)
        .map(|i| (i as f32 - 4096.0) * 0.37 + 1.0 / (1.0 + i as f32))
        .collect();
    let input =
        StreamTensor::collect_f32(dims(&axes, "S", NAME)?, &values).map_err(|e| failed(NAME, e))?;
    let out_packet = Mapping::parse("P # 16", &axes).map_err(|e| failed(NAME, e))?;
    let profile = CastProfile::default();
    Ok(Workload {
        name: NAME.to_string(),
        unit: Unit::Cells,
        units: CELLS as u64,
        input_bytes: 4 * CELLS,
        output_bytes: 2 * 2 * CELLS,
        threads: 1,
        call: Box::new(move || {
            let out = input
                .cast_to(DType::BF16, &out_packet, &profile)
                .map_err(|e| failed(NAME, e))?;
            black_box(&out);
            Ok(())
        }),
    })
}
