//! `npusim cslc`: the SDK compiler's command on npusim (`npusim_csl::compiled::command`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use npusim_csl::compiled::command::{cslc, cslc_options};

use crate::output::emit;

/// Options of `npusim cslc` (the SDK's `cslc` arguments).
#[derive(Debug, Args)]
pub struct CslcArgs {
    /// The layout file (`layout.csl`); the PE programs it names are read beside it.
    pub layout: PathBuf,
    /// Target architecture: wse2 or wse3.
    #[arg(long, default_value = "wse2")]
    pub arch: String,
    /// Fabric width and height, `W,H`.
    #[arg(long, value_name = "W,H")]
    pub fabric_dims: Option<String>,
    /// Fabric coordinates of the rectangle's PE (0, 0), `X,Y`.
    #[arg(long, value_name = "X,Y")]
    pub fabric_offsets: Option<String>,
    /// The layout's param values, `name:value,...` (may be given more than once).
    #[arg(long)]
    pub params: Vec<String>,
    /// The output directory.
    #[arg(short = 'o', default_value = "out")]
    pub out: PathBuf,
    /// The program uses the memcpy infrastructure.
    #[arg(long)]
    pub memcpy: bool,
    /// memcpy I/O channels.
    #[arg(long)]
    pub channels: Option<u32>,
    /// memcpy buffer columns west of the rectangle (only 0 is modelled).
    #[arg(long, default_value_t = 0)]
    pub width_west_buf: u32,
    /// memcpy buffer columns east of the rectangle (only 0 is modelled).
    #[arg(long, default_value_t = 0)]
    pub width_east_buf: u32,
}

/// Runs `npusim cslc`; a compile error is printed as `file:line:col: error: ...`.
pub fn run(a: &CslcArgs) -> Result<ExitCode> {
    let done = cslc_options(
        &a.arch,
        a.fabric_dims.as_deref(),
        a.fabric_offsets.as_deref(),
        &a.params,
        a.memcpy,
        a.channels,
        (a.width_west_buf, a.width_east_buf),
    )
    .and_then(|o| cslc(&a.layout, o, &a.out));
    match done {
        Ok(line) => emit(&line).map(|()| ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("{}", e.to_string().trim_end());
            Ok(ExitCode::FAILURE)
        }
    }
}
