//! The options of `npusim quantize` and `npusim dequantize` (clap derive) and the library job
//! they describe.

use std::path::PathBuf;

use crate::cast::args::{RoundParser, parse_format};
use clap::Args;
use npusim_io::QuantizeJob;
use npusim_numerics::block::{ScaleRule, Scheme};
use npusim_numerics::{CastPolicy, Format, RoundMode};

/// Options of `npusim quantize`.
#[derive(Debug, Args)]
pub struct QuantizeArgs {
    /// Input .safetensors file, or a sharded checkpoint directory
    /// (model.safetensors.index.json + shards; OUT is then a directory).
    #[arg(value_name = "IN")]
    pub input: PathBuf,

    /// Output .safetensors file (`-`: standard output; the report then goes to standard error).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,

    /// Block scheme: mxfp4, mxfp6-e2m3, mxfp6-e3m2, mxfp8-e4m3, mxfp8-e5m2, mxint8, nvfp4.
    #[arg(long, value_name = "S", value_parser = parse_scheme)]
    pub scheme: Scheme,

    /// The axis the blocks run along (negative counts from the last).
    #[arg(long, value_name = "AXIS", default_value_t = -1, allow_negative_numbers = true)]
    pub axis: isize,

    /// MX scale rule: floor (OCP MX v1.0, the default), ceil, even, rceil (NVIDIA's). NVFP4
    /// has its own rule and takes none.
    #[arg(long, value_name = "R", value_parser = parse_rule)]
    pub scale_rule: Option<ScaleRule>,

    /// Rounding mode of the element cast (hybrid: stochastic rounding, with --seed).
    #[arg(long, value_name = "MODE", default_value = "rint", value_parser = RoundParser)]
    pub round: RoundMode,

    /// Seed of the stochastic rounding thresholds.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// Quantize only the tensors this name or glob matches (repeatable; 1-d tensors too).
    /// Default: every F32/F64/F16/BF16 tensor of 2 or more dimensions.
    #[arg(long = "tensor", value_name = "GLOB")]
    pub tensors: Vec<String>,

    /// Never quantize the tensors this name or glob matches (repeatable; wins over --tensor).
    #[arg(long = "exclude", value_name = "GLOB")]
    pub exclude: Vec<String>,

    /// Print the error table: per tensor and in total, max abs / rel error, RMSE, SQNR,
    /// exact, flushed, saturated, and the share of blocks whose scale clamped low or high.
    #[arg(long)]
    pub stats: bool,

    /// Print one JSON document on standard output instead of text; implies --stats.
    #[arg(long)]
    pub json: bool,

    /// Print no per-tensor lines (what --stats or --json ask for is still printed).
    #[arg(short, long)]
    pub quiet: bool,
}

impl QuantizeArgs {
    /// The library job of these options.
    pub fn job(&self) -> anyhow::Result<QuantizeJob> {
        if let (Some(rule), false) = (self.scale_rule, self.scheme.is_mx()) {
            anyhow::bail!(
                "--scale-rule {rule} chooses e8m0 scales and applies only to the MX schemes; {} has its own scale rule",
                self.scheme
            );
        }
        let mut job = QuantizeJob::new(self.scheme);
        job.axis = self.axis;
        job.scale_rule = self.scale_rule;
        job.policy = CastPolicy::new(self.round);
        if let Some(seed) = self.seed {
            job.seed = seed;
        }
        job.tensors = self.tensors.clone();
        job.exclude = self.exclude.clone();
        job.stats = self.stats || self.json;
        Ok(job)
    }
}

/// Options of `npusim dequantize`.
#[derive(Debug, Args)]
pub struct DequantizeArgs {
    /// Input .safetensors file written by `npusim quantize`, or a checkpoint in the published
    /// MXFP4 (`_blocks`/`_scales`) or NVFP4 (`weight_scale`/`weight_scale_2`) layout; or a
    /// sharded checkpoint directory (OUT is then a directory).
    #[arg(value_name = "IN")]
    pub input: PathBuf,

    /// Output .safetensors file (`-`: standard output).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,

    /// Format of the dequantized tensors: f32, bf16, f16 or f64.
    #[arg(long, value_name = "FMT", default_value = "f32", value_parser = parse_format)]
    pub to: Format,

    /// Print no per-tensor lines.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Parses a scheme name through the library (the error lists every name).
fn parse_scheme(s: &str) -> Result<Scheme, String> {
    Scheme::parse_name(s).map_err(|e| e.to_string())
}

/// Parses a scale-rule name through the library (the error lists every name).
fn parse_rule(s: &str) -> Result<ScaleRule, String> {
    ScaleRule::parse_name(s).map_err(|e| e.to_string())
}
