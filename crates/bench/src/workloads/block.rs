//! Block-scaled quantization workloads: a 2-d f32 tensor quantized to MXFP8 (e4m3, e5m2),
//! MXFP4 and NVFP4 along its last axis (MX under the OCP scale rule) into buffers reused from
//! call to call (as the slice-cast rows write into preallocated output), the same for MXFP8
//! (e4m3) and MXFP4 into a fresh output per call (rows named `fresh output`), and the MXFP8
//! (e4m3) and MXFP4 tensors dequantized back to f32, into a reused buffer and into a fresh
//! output per call.

use std::hint::black_box;

use npusim_numerics::Format;
use npusim_numerics::KernelChoice;
use npusim_numerics::block::{Options, Scheme, Source, quantize, quantize_into};
use npusim_numerics::bulk::sample_source;

use super::{Unit, Workload};
use crate::cases::human;
use crate::error::BenchError;

/// Elements per row of the quantized tensor (a multiple of every block size).
const ROW: usize = 4096;

/// The schemes quantized.
const QUANTIZED: [Scheme; 4] = [
    Scheme::Mxfp8E4m3,
    Scheme::Mxfp8E5m2,
    Scheme::Mxfp4,
    Scheme::Nvfp4,
];

/// The schemes also quantized into a fresh output per call.
const FRESH: [Scheme; 2] = [Scheme::Mxfp8E4m3, Scheme::Mxfp4];

/// The schemes dequantized.
const DEQUANTIZED: [Scheme; 2] = [Scheme::Mxfp8E4m3, Scheme::Mxfp4];

/// A workload's failure, named.
fn failed(workload: String, message: String) -> BenchError {
    BenchError::Workload { workload, message }
}

/// The quantize and dequantize workloads on `n` f32 elements, `threads` threads each.
pub(super) fn workloads(n: usize, threads: usize) -> Result<Vec<Workload<'static>>, BenchError> {
    let values: Vec<f32> = sample_source(Format::F32, n)
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let values: std::sync::Arc<[f32]> = values.into();
    let shape = [n / ROW, ROW];
    let mut out = Vec::new();
    for scheme in QUANTIZED {
        let name = scheme.name();
        let values = values.clone();
        let rule = if scheme.is_mx() { " floor" } else { "" };
        let mut codes = vec![0u8; scheme.code_bytes(n)];
        let mut scales = vec![0u8; n / scheme.block_size()];
        out.push(Workload {
            name: format!("quantize f32->{name}{rule} {}", human(n)),
            unit: Unit::Elements,
            units: n as u64,
            input_bytes: 4 * n,
            output_bytes: codes.len() + scales.len(),
            threads,
            call: Box::new(move || {
                let summary = quantize_into(
                    Source::F32(&values),
                    &shape,
                    -1,
                    scheme,
                    &Options::default(),
                    KernelChoice::Fastest,
                    &mut codes,
                    &mut scales,
                )
                .map_err(|e| failed(format!("quantize {name}"), e.to_string()))?;
                black_box((&summary, &codes, &scales));
                Ok(())
            }),
        });
    }
    for scheme in FRESH {
        let name = scheme.name();
        let values = values.clone();
        out.push(Workload {
            name: format!("quantize f32->{name} floor {} fresh output", human(n)),
            unit: Unit::Elements,
            units: n as u64,
            input_bytes: 4 * n,
            output_bytes: scheme.code_bytes(n) + n / scheme.block_size(),
            threads,
            call: Box::new(move || {
                let q = quantize(
                    Source::F32(&values),
                    &shape,
                    -1,
                    scheme,
                    &Options::default(),
                )
                .map_err(|e| failed(format!("quantize {name}"), e.to_string()))?;
                black_box(&q);
                Ok(())
            }),
        });
    }
    for scheme in DEQUANTIZED {
        let name = scheme.name();
        let q = quantize(
            Source::F32(&values),
            &shape,
            -1,
            scheme,
            &Options::default(),
        )
        .map_err(|e| failed(format!("dequantize {name}"), e.to_string()))?;
        let q = std::sync::Arc::new(q);
        let input_bytes = q.codes().len() + q.scales().len();
        let fresh = q.clone();
        let mut back = vec![0f32; n];
        out.push(Workload {
            name: format!("dequantize {name}->f32 {}", human(n)),
            unit: Unit::Elements,
            units: n as u64,
            input_bytes,
            output_bytes: 4 * n,
            threads,
            call: Box::new(move || {
                q.dequantize_f32_into(&mut back, KernelChoice::Fastest)
                    .map_err(|e| failed(format!("dequantize {name}"), e.to_string()))?;
                black_box(&back);
                Ok(())
            }),
        });
        out.push(Workload {
            name: format!("dequantize {name}->f32 {} fresh output", human(n)),
            unit: Unit::Elements,
            units: n as u64,
            input_bytes,
            output_bytes: 4 * n,
            threads,
            call: Box::new(move || {
                let v = fresh
                    .dequantize_bytes(Format::F32)
                    .map_err(|e| failed(format!("dequantize {name}"), e.to_string()))?;
                black_box(&v);
                Ok(())
            }),
        });
    }
    Ok(out)
}
