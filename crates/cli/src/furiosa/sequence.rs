//! `npusim furiosa sequence`: the DM sequencer of a fetch (read) or commit (write): the
//! nested loops `[size : stride]` in elements that a tensor's mapping and a stream's
//! Time/Packet split give, its contiguous run and access sizes, as text or JSON.

use std::process::ExitCode;

use anyhow::{Result, anyhow};
use clap::Args;
use npusim_furiosa::DType;
use npusim_furiosa::mapping::sequence::Direction;
use npusim_furiosa::mapping::{Axes, Mapping};
use npusim_furiosa::sequencer::describe;

use crate::output::emit;

/// Options of `npusim furiosa sequence`.
#[derive(Debug, Args)]
#[command(
    after_help = "Example (a 48-element i8 buffer read as 2 time steps of 24):
  npusim furiosa sequence --axes X=48 --element X --time 'X / 24' --packet 'X % 24' --dtype i8
prints `[2:24, 24:1] : 24`, the contiguous run (48), the access (24 elements) and the largest
hardware access that divides it (8 elements, 8 bytes)."
)]
pub struct SequenceArgs {
    /// Axis declarations `NAME=SIZE,...` (like `axes![A = 8, B = 512]`).
    #[arg(long, value_name = "A=8,B=512")]
    pub axes: String,
    /// The tensor's element mapping in DM (the `Element` of `DmTensor`).
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    pub element: String,
    /// The stream's Time mapping.
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    pub time: String,
    /// The stream's Packet mapping.
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    pub packet: String,
    /// Element type (`i8`, `i32`, `bf16`, `f32`, ...).
    #[arg(long, value_name = "TYPE")]
    pub dtype: String,
    /// A commit (stream to DM: no broadcast, no write past the tensor) instead of a fetch.
    #[arg(long)]
    pub write: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `npusim furiosa sequence`.
pub fn run(args: SequenceArgs) -> Result<ExitCode> {
    let axes = Axes::parse(&args.axes)?;
    let dtype = DType::parse(&args.dtype).ok_or_else(|| {
        let names: Vec<&str> = DType::ALL.iter().map(|d| d.name()).collect();
        anyhow!(
            "unknown --dtype `{}`; the types are: {}",
            args.dtype,
            names.join(" ")
        )
    })?;
    let parse = |flag: &str, text: &str| {
        Mapping::parse(text, &axes).map_err(|e| anyhow!("--{flag} `{text}`: {e}"))
    };
    let element = parse("element", &args.element)?;
    let time = parse("time", &args.time)?;
    let packet = parse("packet", &args.packet)?;
    let direction = if args.write {
        Direction::Write
    } else {
        Direction::Read
    };
    let r = describe(&element, &time, &packet, dtype, direction)?;
    if args.json {
        emit(&format!("{}\n", serde_json::to_string(&r)?))?;
    } else {
        let hw = r.hardware_access.map_or("none fits".to_string(), |e| {
            format!("{e} elements, {} bytes", e * r.elem_bits / 8)
        });
        emit(&format!(
            "{} {} of {dtype}: {}\ncontiguous run {} elements; access {} elements; hardware access {hw}\n",
            r.direction,
            if r.raw.len() > r.entries.len() {
                format!(
                    "({} raw entries merged to {})",
                    r.raw.len(),
                    r.entries.len()
                )
            } else {
                format!("({} entries)", r.entries.len())
            },
            r.text,
            r.run,
            r.access
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}
