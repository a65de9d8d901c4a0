//! `npusim cast`: cast the tensors of a file to another format.
//!
//! Reading and writing files is the `io` modules' business, the numeric work is
//! `npusim_numerics::cast_elements`; this module parses the options, decides what is cast into
//! which layout, drives the chunked cast (with its progress bar) and prints the summary.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use npusim_numerics::{BulkOptions, CastPolicy, Format, RoundMode, Storage, cast_elements};
use safetensors::SafeTensors;

use crate::io::safetensors::{self as st, META_PREFIX, OutTensor};
use crate::io::{Container, Elements, element_count, npy, raw, shape_str};
use crate::output::{write_atomic, write_atomic_via_path};
use crate::progress::Progress;
use crate::stats::{Classifier, Stats};

/// Elements per `cast_elements` call (even, so packed chunks never share a byte).
pub const CHUNK_ELEMENTS: usize = 1 << 20;

const EXAMPLES: &str = "\
Examples:
  # f32 weights in a .npy to OCP fp8 e4m3fn (round to nearest even, overflow clamps to ±448)
  npusim cast w.npy -o w_e4m3.npy --to f8e4m3fn --saturate
  # load the result in Python:  np.load('w_e4m3.npy').view(ml_dtypes.float8_e4m3fn)

  # an ml_dtypes bfloat16 .npy (dtype '<V2') back to float32
  npusim cast act_bf16.npy -o act.npy --from bf16 --to f32

  # every floating-point tensor of a checkpoint to bf16 with round-to-odd, then one back
  npusim cast model.safetensors -o model_bf16.safetensors --to bf16 --round odd
  npusim cast model_bf16.safetensors -o fixed.safetensors --tensor lm_head.weight --to f32

  # raw bytes: 2x3x4 half values to int4 packed two per byte, stochastic rounding
  npusim cast x.bin --from f16 --shape 2,3,4 -o x_i4.bin --to i4 --packed --round hybrid --seed 7

Files:
  .npy          standard dtypes <f8 <f4 <f2 |i1 <i2 <i4 <i8 |u1 <u2 <u4 map to formats; ml_dtypes'
                narrow types are saved as '<V2' (bfloat16), '<V1' or '<f1' (float8_e5m2) and need
                --from. Narrow outputs are written as ml_dtypes writes them ('<V2', '<V1'; e5m2 as
                '<V1'), 4-bit one element per byte. With --packed a 4-bit array is a '|u1' array
                whose last dimension is ceil(d/2): each row packed two per byte, element 0 in the
                low nibble (a packed input's last dimension is read as 2k elements; give --shape
                if it is odd).
  .safetensors  every floating-point tensor is cast (f8e8m0 scale tensors and integer tensors are
                kept), or only the --tensor ones; other tensors and __metadata__ are kept. hif8,
                f4e1m2 and i4 are stored as U8 plus a metadata entry npusim.dtype.<tensor>.
  .bin          raw little-endian elements; needs --from and --shape. --packed: two 4-bit
                elements per byte over the whole buffer.

Policies: the default is IEEE (overflow to Inf, or NaN where the format has no Inf; integers
clamp); --saturate clamps floats to ±max too; --no-saturate also wraps integers.
The output is written to a temporary file and renamed, so a failed run leaves nothing behind.";

/// Options of `npusim cast`.
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct CastArgs {
    /// Input file: .npy, .safetensors or raw .bin.
    #[arg(value_name = "IN")]
    pub input: PathBuf,

    /// Output file: .npy or .bin for a .npy/.bin input, .safetensors for a .safetensors input.
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,

    /// Destination format: a canonical name (see `npusim formats`) or an alias
    /// (bfloat16, float8_e4m3fn, hifloat8_t, int4b_t, torch.float16, ...).
    #[arg(long, value_name = "FMT", value_parser = parse_format)]
    pub to: Format,

    /// Source element format: required for raw .bin files and for .npy files whose dtype does
    /// not say it ('<V2', '<V1', '<f1'); must match the file's element size.
    #[arg(long, value_name = "FMT", value_parser = parse_format)]
    pub from: Option<Format>,

    /// Rounding mode: rint round floor ceil trunc odd hybrid none (CAST_* spellings too).
    #[arg(long, value_name = "MODE", default_value = "rint", value_parser = parse_round)]
    pub round: RoundMode,

    /// Saturate: overflow and ±Inf clamp to ±max finite, integers clamp (NaN stays NaN).
    #[arg(long, conflicts_with = "no_saturate")]
    pub saturate: bool,

    /// Never saturate: IEEE overflow for floats, integers wrap (keep the low bits).
    #[arg(long)]
    pub no_saturate: bool,

    /// Store 4-bit formats two elements per byte, element 0 in the low nibble (on both sides).
    #[arg(long)]
    pub packed: bool,

    /// With .safetensors: cast only this tensor (repeatable). Default: every floating-point
    /// tensor.
    #[arg(long = "tensor", value_name = "NAME")]
    pub tensors: Vec<String>,

    /// Shape of a raw .bin input, e.g. 2,3,4 (or the logical shape of a packed 4-bit .npy input
    /// whose last dimension is odd).
    #[arg(long, value_name = "DIMS", value_parser = parse_shape)]
    pub shape: Option<Shape>,

    /// Seed of the per-element random thresholds of `--round hybrid` (stochastic rounding).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
}

/// A tensor shape given on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape(
    /// The dimension sizes, outermost first.
    pub Vec<usize>,
);

/// Parses a format name through the library (canonical names and aliases).
fn parse_format(s: &str) -> Result<Format, String> {
    Format::parse_name(s).map_err(|e| e.to_string())
}

/// Parses a rounding-mode name through the library.
fn parse_round(s: &str) -> Result<RoundMode, String> {
    RoundMode::parse_name(s).map_err(|e| e.to_string())
}

/// Parses `2,3,4` (or `2x3x4`; empty for a scalar).
fn parse_shape(s: &str) -> Result<Shape, String> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(Shape(Vec::new()));
    }
    s.split([',', 'x'])
        .map(|d| {
            d.trim()
                .parse::<usize>()
                .map_err(|_| format!("`{s}` is not a shape: expected sizes like 2,3,4"))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Shape)
}

/// Everything the numeric side of a cast needs.
struct Plan {
    policy: CastPolicy,
    bulk: BulkOptions,
}

/// Runs `npusim cast`.
pub fn run(args: CastArgs) -> Result<ExitCode> {
    let policy = if args.saturate {
        CastPolicy::saturating(args.round)
    } else if args.no_saturate {
        CastPolicy::non_saturating(args.round)
    } else {
        CastPolicy::new(args.round)
    };
    let mut bulk = BulkOptions::default();
    if let Some(seed) = args.seed {
        bulk.seed = seed;
    }
    let plan = Plan { policy, bulk };
    let in_c = Container::of(&args.input)?;
    let out_c = Container::of(&args.output)?;
    if in_c.is_single_tensor() != out_c.is_single_tensor() {
        bail!(
            "cannot cast a {} file into a {} file: .npy and .bin hold one tensor, .safetensors many",
            in_c.name(),
            out_c.name()
        );
    }
    let bytes = std::fs::read(&args.input)
        .with_context(|| format!("cannot read `{}`", args.input.display()))?;
    let lines = if in_c == Container::Safetensors {
        cast_safetensors(&args, &bytes, &plan)?
    } else {
        cast_single(&args, in_c, out_c, &bytes, &plan)?
    };
    for line in lines {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `--packed` must concern a 4-bit side.
fn check_packed(packed: bool, from: Format, to: Format) -> Result<()> {
    if packed && !from.is_sub_byte() && !to.is_sub_byte() {
        bail!(
            "--packed applies only to 4-bit formats (f4e2m1, f4e1m2, i4), but this casts {from} ({} bits) to {to} ({} bits)",
            from.bits(),
            to.bits()
        );
    }
    Ok(())
}

/// Casts a .npy or raw .bin file into a .npy or raw .bin file.
fn cast_single(
    args: &CastArgs,
    in_c: Container,
    out_c: Container,
    bytes: &[u8],
    plan: &Plan,
) -> Result<Vec<String>> {
    let input = &args.input;
    if !args.tensors.is_empty() {
        bail!(
            "--tensor applies to .safetensors files; a {} file holds one tensor",
            in_c.name()
        );
    }
    let given_shape = args.shape.as_ref().map(|s| s.0.as_slice());
    let (src, shape, fortran) = match in_c {
        Container::Npy => {
            let array =
                npy::parse(bytes).with_context(|| format!("reading `{}`", input.display()))?;
            let from = npy::element_format(&array, args.from)
                .with_context(|| format!("reading `{}`", input.display()))?;
            check_packed(args.packed, from, args.to)?;
            let src_packed = args.packed && from.is_sub_byte();
            if given_shape.is_some() && !src_packed {
                bail!(
                    "--shape is for raw .bin inputs (and packed 4-bit .npy inputs); a .npy file states its shape"
                );
            }
            if src_packed && array.fortran {
                bail!(
                    "--packed needs a C-order .npy array (`{}` is in Fortran order)",
                    input.display()
                );
            }
            let shape = npy::logical_shape(&array.shape, src_packed, given_shape)
                .with_context(|| format!("reading `{}`", input.display()))?;
            let elements = npy::elements(&array, from, &shape, src_packed)
                .with_context(|| format!("reading `{}`", input.display()))?;
            (elements, shape, array.fortran)
        }
        _ => {
            let (Some(from), Some(shape)) = (args.from, given_shape) else {
                bail!(
                    "a raw .bin input has no header: give its element format and shape with --from FMT --shape DIMS"
                );
            };
            check_packed(args.packed, from, args.to)?;
            let elements = raw::elements(bytes, from, shape, args.packed && from.is_sub_byte())
                .with_context(|| format!("reading `{}`", input.display()))?;
            (elements, shape.to_vec(), false)
        }
    };
    let to = args.to;
    let count = src.count;
    let out_packed = args.packed && to.is_sub_byte();
    let sub = match out_c {
        Container::Npy => {
            if out_packed && shape.is_empty() {
                bail!("--packed needs an array with at least one dimension");
            }
            if out_packed && fortran {
                bail!(
                    "--packed needs a C-order .npy array (`{}` is in Fortran order)",
                    input.display()
                );
            }
            npy::file_sub_byte(to, &shape, out_packed)
        }
        _ => raw::file_sub_byte(to, out_packed),
    };
    let dst_storage = sub.storage(to, count);
    let progress = Progress::new(bytes.len() as u64, count as u64);
    let (out, stats) = cast_buffer(&src, dst_storage, plan, &progress)?;
    progress.finish();
    let out = Elements {
        storage: dst_storage,
        count,
        bytes: out.into(),
    };
    write_atomic(&args.output, |w| match out_c {
        Container::Npy => npy::write(w, &out, &shape, fortran, out_packed),
        _ => raw::write(w, &out, out_packed),
    })?;
    let name = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(vec![
        summary(&name, src.storage.format(), to, count, &shape, stats),
        format!("wrote {}", args.output.display()),
    ])
}

/// One summary line.
fn summary(
    name: &str,
    from: Format,
    to: Format,
    count: usize,
    shape: &[usize],
    stats: Stats,
) -> String {
    let plural = if count == 1 { "" } else { "s" };
    format!(
        "{name}: {from} -> {to}, {count} element{plural} {} ({stats})",
        shape_str(shape)
    )
}

/// Casts `src` into a new buffer of `dst` storage, in chunks of [`CHUNK_ELEMENTS`] whose
/// `first_index` is the chunk start, so that the result equals one whole cast (stochastic
/// rounding included).
fn cast_buffer(
    src: &Elements<'_>,
    dst: Storage,
    plan: &Plan,
    progress: &Progress,
) -> Result<(Vec<u8>, Stats)> {
    let count = src.count;
    let mut out = vec![0u8; dst.bytes_for(count)];
    let classifier = Classifier::new(dst.format());
    let mut stats = Stats::default();
    let s = src.storage;
    let mut start = 0;
    while start < count {
        let n = CHUNK_ELEMENTS.min(count - start);
        let src_part = &src.bytes[s.bytes_for(start)..s.bytes_for(start + n)];
        let dst_part = &mut out[dst.bytes_for(start)..dst.bytes_for(start + n)];
        let options = BulkOptions {
            first_index: start as u64,
            ..plan.bulk
        };
        cast_elements(src_part, s, dst_part, dst, n, &plan.policy, &options)
            .map_err(|e| anyhow!("cast failed: {e}"))?;
        stats.add(classifier.count(src_part, s, dst_part, dst, n));
        progress.advance(n);
        start += n;
    }
    Ok((out, stats))
}

/// What happens to one tensor of a .safetensors file.
enum Action {
    /// Cast from this interpretation.
    Cast(st::Interp),
    /// Copied unchanged, for this reason.
    Keep(&'static str),
}

/// Casts the tensors of a .safetensors file.
fn cast_safetensors(args: &CastArgs, bytes: &[u8], plan: &Plan) -> Result<Vec<String>> {
    let input = &args.input;
    if args.from.is_some() {
        bail!("--from does not apply to .safetensors inputs: each tensor's dtype is in the file");
    }
    if args.shape.is_some() {
        bail!("--shape does not apply to .safetensors inputs: each tensor's shape is in the file");
    }
    if args.packed && !args.to.is_sub_byte() {
        bail!(
            "--packed applies only to 4-bit formats (f4e2m1, f4e1m2, i4), not to --to {} ({} bits); a .safetensors file records how its own tensors are stored",
            args.to,
            args.to.bits()
        );
    }
    let (_, header) = SafeTensors::read_metadata(bytes)
        .map_err(|e| safetensors_error(bytes, &e))
        .with_context(|| format!("reading `{}`", input.display()))?;
    let tensors = SafeTensors::deserialize(bytes)
        .map_err(|e| safetensors_error(bytes, &e))
        .with_context(|| format!("reading `{}`", input.display()))?;
    let metadata = header.metadata().clone();
    let names = header.offset_keys();
    for wanted in &args.tensors {
        if !names.contains(wanted) {
            bail!(
                "no tensor named `{wanted}` in `{}`; its tensors are: {}",
                input.display(),
                names.join(", ")
            );
        }
    }
    // Decide first, so that the progress bar knows the total.
    let mut actions = Vec::with_capacity(names.len());
    let mut total = 0u64;
    for name in &names {
        let view = tensors.tensor(name)?;
        let interp = st::interpret(name, view.dtype(), view.shape(), metadata.as_ref())
            .with_context(|| format!("reading `{}`", input.display()))?;
        let action = match interp {
            Some(i) if args.tensors.contains(name) => Action::Cast(i),
            None if args.tensors.contains(name) => bail!(
                "tensor `{name}` has dtype {}, which npusim has no format for",
                view.dtype()
            ),
            _ if !args.tensors.is_empty() => Action::Keep("not selected"),
            None => Action::Keep("no npusim format"),
            Some(i) if i.format == Format::F8E8M0 => {
                Action::Keep("f8e8m0 scale tensor; name it with --tensor to cast it")
            }
            Some(i) if i.format.is_int() => Action::Keep("integer tensor"),
            Some(i) => Action::Cast(i),
        };
        if let Action::Cast(i) = &action {
            total += element_count(&i.shape)? as u64;
        }
        actions.push(action);
    }
    let progress = Progress::new(bytes.len() as u64, total);
    let mut out_meta = metadata.clone();
    let mut out_tensors = Vec::with_capacity(names.len());
    let mut lines = Vec::new();
    let (mut cast_n, mut kept_n) = (0, 0);
    for (name, action) in names.iter().zip(actions) {
        let view = tensors.tensor(name)?;
        match action {
            Action::Keep(why) => {
                kept_n += 1;
                lines.push(format!(
                    "{name}: {} {} left unchanged ({why})",
                    view.dtype(),
                    shape_str(view.shape())
                ));
                out_tensors.push((
                    name.clone(),
                    OutTensor {
                        dtype: view.dtype(),
                        shape: view.shape().to_vec(),
                        data: view.data().into(),
                    },
                ));
            }
            Action::Cast(interp) => {
                cast_n += 1;
                progress.set_message(name);
                let (tensor, line, meta) =
                    cast_one(name, view.data(), &interp, args, plan, &progress)?;
                let key = format!("{META_PREFIX}{name}");
                if let Some(m) = out_meta.as_mut() {
                    m.remove(&key);
                }
                if let Some(value) = meta {
                    out_meta.get_or_insert_with(HashMap::new).insert(key, value);
                }
                lines.push(line);
                out_tensors.push((name.clone(), tensor));
            }
        }
    }
    progress.finish();
    write_atomic_via_path(&args.output, |path| st::write(path, &out_tensors, out_meta))?;
    lines.push(format!(
        "wrote {} ({cast_n} tensor(s) cast, {kept_n} left unchanged)",
        args.output.display()
    ));
    Ok(lines)
}

/// Casts one safetensors tensor; returns it, its summary line and its `npusim.dtype` entry.
fn cast_one<'a>(
    name: &str,
    data: &'a [u8],
    interp: &st::Interp,
    args: &CastArgs,
    plan: &Plan,
    progress: &Progress,
) -> Result<(OutTensor<'a>, String, Option<String>)> {
    let count = element_count(&interp.shape)?;
    let need = interp.sub.file_bytes(interp.format, count);
    if need != Some(data.len()) {
        bail!(
            "tensor `{name}`: {} bytes do not hold {count} {} elements",
            data.len(),
            interp.format
        );
    }
    let src = Elements::from_file(data, interp.format, interp.sub, count);
    let enc = st::encode(args.to, &interp.shape, args.packed)
        .with_context(|| format!("tensor `{name}`"))?;
    let dst = enc.sub.storage(args.to, count);
    let (out, stats) = cast_buffer(&src, dst, plan, progress)?;
    let out = Elements {
        storage: dst,
        count,
        bytes: out.into(),
    };
    let file_bytes = out.to_file(enc.sub).into_owned();
    let line = summary(name, interp.format, args.to, count, &interp.shape, stats);
    Ok((
        OutTensor {
            dtype: enc.dtype,
            shape: enc.file_shape,
            data: file_bytes.into(),
        },
        line,
        enc.meta,
    ))
}

/// A clearer message for the common ways a .safetensors file is broken.
fn safetensors_error(bytes: &[u8], e: &safetensors::SafeTensorError) -> anyhow::Error {
    if bytes.len() < 8 {
        return anyhow!(
            "not a .safetensors file: {} bytes is too short for the 8-byte header length",
            bytes.len()
        );
    }
    let mut n = [0u8; 8];
    n.copy_from_slice(&bytes[..8]);
    let n = u64::from_le_bytes(n);
    let after = (bytes.len() - 8) as u64;
    if n > after {
        return anyhow!(
            "truncated or not a .safetensors file: the header length field says {n} bytes but only {after} bytes follow it"
        );
    }
    if let safetensors::SafeTensorError::MetadataIncompleteBuffer = e {
        let data = after - n;
        return match declared_data_len(&bytes[8..8 + n as usize]) {
            Some(want) if want > data => anyhow!(
                "truncated .safetensors file: the header describes {want} bytes of tensor data but the file holds only {data}"
            ),
            Some(want) => anyhow!(
                "invalid .safetensors file: the header describes {want} bytes of tensor data but the file holds {data}"
            ),
            None => anyhow!("invalid .safetensors file: {e}"),
        };
    }
    anyhow!("invalid .safetensors file: {e}")
}

/// The end of the last tensor's data according to a safetensors JSON header.
fn declared_data_len(header: &[u8]) -> Option<u64> {
    let v: serde_json::Value = serde_json::from_slice(header).ok()?;
    v.as_object()?
        .iter()
        .filter(|(k, _)| k.as_str() != "__metadata__")
        .filter_map(|(_, t)| t.get("data_offsets")?.get(1)?.as_u64())
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_parse() {
        assert_eq!(parse_shape("2,3,4").unwrap(), Shape(vec![2, 3, 4]));
        assert_eq!(parse_shape("2x3").unwrap(), Shape(vec![2, 3]));
        assert_eq!(parse_shape("").unwrap(), Shape(vec![]));
        assert!(parse_shape("2,a").is_err());
    }

    #[test]
    fn chunked_cast_equals_one_shot_cast_with_hybrid_rounding() {
        let n = 2 * CHUNK_ELEMENTS + 5;
        let src: Vec<u8> = (0..n as u32)
            .flat_map(|i| {
                f32::from_bits(0x3f80_0000 | (i.wrapping_mul(2_654_435_761) >> 9)).to_le_bytes()
            })
            .collect();
        let s = Storage::native(Format::F32);
        let d = Storage::native(Format::F4E2M1);
        let plan = Plan {
            policy: CastPolicy::new(RoundMode::Hybrid),
            bulk: BulkOptions {
                seed: 42,
                ..BulkOptions::default()
            },
        };
        let e = Elements {
            storage: s,
            count: n,
            bytes: src[..].into(),
        };
        let (chunked, _) = cast_buffer(&e, d, &plan, &Progress::hidden()).unwrap();
        let mut whole = vec![0u8; d.bytes_for(n)];
        cast_elements(&src, s, &mut whole, d, n, &plan.policy, &plan.bulk).unwrap();
        assert_eq!(chunked, whole);
    }
}
