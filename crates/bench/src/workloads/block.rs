//! Block-scaled quantization workloads: a 2-d f32 tensor quantized to MXFP8 (e4m3) and MXFP4
//! along its last axis under the OCP scale rule.

use std::hint::black_box;

use npusim_numerics::Format;
use npusim_numerics::block::{Options, Scheme, Source, quantize};
use npusim_numerics::bulk::sample_source;

use super::{Unit, Workload};
use crate::cases::human;
use crate::error::BenchError;

/// Elements per row of the quantized tensor (a multiple of every block size).
const ROW: usize = 4096;

/// The quantize workloads on `n` f32 elements, `threads` threads each.
pub(super) fn workloads(n: usize, threads: usize) -> Vec<Workload<'static>> {
    let values: Vec<f32> = sample_source(Format::F32, n)
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let values: std::sync::Arc<[f32]> = values.into();
    [Scheme::Mxfp8E4m3, Scheme::Mxfp4]
        .into_iter()
        .map(|scheme| {
            let name = scheme.name();
            let values = values.clone();
            let shape = [n / ROW, ROW];
            let block = scheme.block_size();
            let code_bytes = scheme.code_bytes(n);
            Workload {
                name: format!("quantize f32->{name} floor {}", human(n)),
                unit: Unit::Elements,
                units: n as u64,
                input_bytes: 4 * n,
                output_bytes: code_bytes + n / block,
                threads,
                call: Box::new(move || {
                    let q = quantize(
                        Source::F32(&values),
                        &shape,
                        -1,
                        scheme,
                        &Options::default(),
                    )
                    .map_err(|e| BenchError::Workload {
                        workload: format!("quantize {name}"),
                        message: e.to_string(),
                    })?;
                    black_box(&q);
                    Ok(())
                }),
            }
        })
        .collect()
}
