//! Criterion benches of the bulk casts `npusim bench` measures: per case, 1 Mi elements on one
//! thread at every instruction-set level this machine has, and the reference routine on a
//! smaller slice for scale. Run with `cargo bench -p npusim-numerics`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_main};
use npusim_numerics::bulk::{SimdLevel, sample_source};
use npusim_numerics::{BulkOptions, CastPolicy, Format, KernelChoice, RoundMode, Storage};
use std::hint::black_box;

/// (source, destination, mode, saturating)
const CASES: &[(Format, Format, RoundMode, bool)] = &[
    (Format::F32, Format::F16, RoundMode::Rint, false),
    (Format::F32, Format::BF16, RoundMode::Rint, false),
    (Format::F32, Format::F8E4M3FN, RoundMode::Rint, true),
    (Format::F32, Format::F8E5M2, RoundMode::Rint, false),
    (Format::F32, Format::I8, RoundMode::Rint, false),
    (Format::F32, Format::F16, RoundMode::Trunc, false),
    (Format::F32, Format::BF16, RoundMode::Floor, false),
    (Format::F32, Format::F8E4M3FN, RoundMode::Odd, true),
    (Format::F32, Format::F4E2M1, RoundMode::Rint, false),
    (Format::F32, Format::I4, RoundMode::Rint, false),
    (Format::F32, Format::F8E8M0, RoundMode::Rint, false),
    (Format::F16, Format::F32, RoundMode::Rint, false),
    (Format::BF16, Format::F32, RoundMode::Rint, false),
    (Format::F8E4M3FN, Format::F32, RoundMode::Rint, false),
    (Format::F16, Format::F8E4M3FN, RoundMode::Rint, true),
    (Format::I4, Format::F32, RoundMode::Rint, false),
    // f32 -> f16 / bf16 in the other modes and saturating (the directed modes and odd should
    // stay within 10% of rint, saturating within 5% of IEEE)
    (Format::F32, Format::F16, RoundMode::Rint, true),
    (Format::F32, Format::F16, RoundMode::Round, false),
    (Format::F32, Format::F16, RoundMode::Floor, false),
    (Format::F32, Format::F16, RoundMode::Ceil, false),
    (Format::F32, Format::F16, RoundMode::Odd, false),
    (Format::F32, Format::BF16, RoundMode::Rint, true),
    (Format::F32, Format::BF16, RoundMode::Round, false),
    (Format::F32, Format::BF16, RoundMode::Ceil, false),
    (Format::F32, Format::BF16, RoundMode::Trunc, false),
    (Format::F32, Format::BF16, RoundMode::Odd, false),
    // the explicit AVX2 integer and small-float kernels, and f64 sources
    (Format::F32, Format::I16, RoundMode::Rint, false),
    (Format::F32, Format::U8, RoundMode::Floor, false),
    (Format::F32, Format::F8E5M2, RoundMode::Rint, true),
    (Format::F32, Format::F8E5M2, RoundMode::Ceil, false),
    (Format::F32, Format::F8E4M3FN, RoundMode::Rint, false),
    (Format::F64, Format::BF16, RoundMode::Rint, false),
    (Format::F64, Format::F16, RoundMode::Rint, false),
];

fn casts(c: &mut Criterion) {
    let n = 1 << 20;
    for &(src_fmt, dst_fmt, mode, sat) in CASES {
        let s = Storage::native(src_fmt);
        let d = Storage::native(dst_fmt);
        let policy = if sat {
            CastPolicy::saturating(mode)
        } else {
            CastPolicy::new(mode)
        };
        let src = sample_source(src_fmt, n);
        let mut dst = vec![0u8; d.bytes_for(n)];
        let sat_name = if sat { " sat" } else { "" };
        let mut group = c.benchmark_group(format!("{src_fmt}->{dst_fmt} {mode}{sat_name}"));
        group.throughput(Throughput::Elements(n as u64));
        group.sample_size(20);
        for level in SimdLevel::available() {
            let options = BulkOptions {
                parallel: false,
                kernels: KernelChoice::Level(level),
                ..BulkOptions::default()
            };
            group.bench_function(BenchmarkId::new(level.name(), n), |b| {
                b.iter(|| {
                    npusim_numerics::cast_elements(&src, s, &mut dst, d, n, &policy, &options)
                        .expect("buffers sized for n");
                    black_box(&dst);
                })
            });
        }
        group.finish();
    }
}

/// The `half` crate's slice conversions of the same f32 data, for the ×half ratios.
fn half_baseline(c: &mut Criterion) {
    use half::slice::HalfFloatSliceExt;
    let n = 1 << 20;
    let f32s: Vec<f32> = sample_source(Format::F32, n)
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let mut h16 = vec![half::f16::ZERO; n];
    let mut hb16 = vec![half::bf16::ZERO; n];
    let mut group = c.benchmark_group("half f32->f16/bf16");
    group.throughput(Throughput::Elements(n as u64));
    group.sample_size(20);
    group.bench_function(BenchmarkId::new("f16", n), |b| {
        b.iter(|| {
            h16.convert_from_f32_slice(&f32s);
            black_box(&h16);
        })
    });
    group.bench_function(BenchmarkId::new("bf16", n), |b| {
        b.iter(|| {
            hb16.convert_from_f32_slice(&f32s);
            black_box(&hb16);
        })
    });
    group.finish();
}

// The macro defines an undocumented public function.
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::casts, super::half_baseline);
}
criterion_main!(group::benches);
