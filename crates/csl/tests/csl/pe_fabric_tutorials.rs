//! A measure, not a check: for each directory under `NPUSIM_CSL_TUTORIALS` holding a
//! `layout.csl`, on each architecture its `commands_<arch>.sh` names (both without one), the
//! layout is evaluated with its params (`params.txt`, else the `--params=` of the commands)
//! and every PE's program is compiled with the params the layout gives it and loaded onto a
//! simulator of the layout's rectangle. It prints, per tutorial and architecture, how many
//! PEs compiled and loaded, or the first error; it fails only on a panic. Without the
//! variable it says it skipped. The tutorials' sources are not in this repository.

use std::path::Path;
use std::sync::Arc;

use npusim_cerebras::Arch as SimArch;
use npusim_cerebras::sched::Sim;
use npusim_csl::SourceFile;
use npusim_csl::comptime::{Arch, ComptimeConfig, evaluate_layout, parse_params};
use npusim_csl::pe::{PeProgram, load};

/// A tutorial's params: `params.txt`, else the `--params=` of its commands file.
pub fn params_of(dir: &Path) -> String {
    if let Ok(p) = std::fs::read_to_string(dir.join("params.txt")) {
        return p.trim().to_string();
    }
    for f in ["commands_wse3.sh", "commands_wse2.sh", "commands.sh"] {
        if let Ok(text) = std::fs::read_to_string(dir.join(f))
            && let Some(k) = text.find("--params=")
        {
            let rest = &text[k + "--params=".len()..];
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '\\')
                .unwrap_or(rest.len());
            return rest[..end].to_string();
        }
    }
    String::new()
}

/// How far one tutorial gets on `arch`: PEs loaded, or the first error.
fn measure(dir: &Path, arch: Arch) -> String {
    let params = match parse_params(&params_of(dir)) {
        Ok(p) => p,
        Err(e) => return format!("params: {e}"),
    };
    let layout_path = dir.join("layout.csl");
    let text = std::fs::read_to_string(&layout_path).unwrap_or_default();
    let src = SourceFile::new(layout_path.display().to_string(), text);
    let layout = match evaluate_layout(&src, &ComptimeConfig { arch, params }) {
        Ok(l) => l,
        Err(e) => return format!("layout: {e}"),
    };
    let Some((w, h)) = layout.rectangle else {
        return "layout: no @set_rectangle".into();
    };
    let sim_arch = match arch {
        Arch::Wse2 => SimArch::Wse2,
        Arch::Wse3 => SimArch::Wse3,
    };
    let mut sim = match Sim::new(sim_arch, w, h) {
        Ok(s) => s,
        Err(e) => return format!("simulator: {e}"),
    };
    let mut loaded = 0;
    for (&(x, y), tile) in &layout.tiles {
        let path = dir.join(&tile.file);
        let Ok(text) = std::fs::read_to_string(&path) else {
            return format!("{} is missing", tile.file);
        };
        let config = ComptimeConfig {
            arch,
            params: tile.params.clone(),
        };
        let program = match PeProgram::compile(&SourceFile::new(&tile.file, text), &config) {
            Ok(p) => p,
            Err(e) => {
                let first = e.to_string().lines().next().unwrap_or_default().to_string();
                return format!("PE ({x}, {y}) compile: {first}");
            }
        };
        if let Err(e) = load(&Arc::new(program), &mut sim, i64::from(x), i64::from(y)) {
            return format!("PE ({x}, {y}) load: {e}");
        }
        loaded += 1;
    }
    format!("{loaded} PEs compiled and loaded")
}

#[test]
fn tutorial_pe_programs_compile_and_load() {
    let Ok(root) = std::env::var("NPUSIM_CSL_TUTORIALS") else {
        eprintln!("skipped: NPUSIM_CSL_TUTORIALS is not set");
        return;
    };
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .map(|r| r.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.sort();
    for dir in dirs {
        if !dir.join("layout.csl").is_file() {
            continue;
        }
        let named: Vec<Arch> = [(Arch::Wse2, "wse2"), (Arch::Wse3, "wse3")]
            .into_iter()
            .filter(|(_, n)| dir.join(format!("commands_{n}.sh")).is_file())
            .map(|(a, _)| a)
            .collect();
        let archs = if named.is_empty() {
            vec![Arch::Wse2, Arch::Wse3]
        } else {
            named
        };
        for arch in archs {
            let name = dir
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            println!("{name} {}: {}", arch.name(), measure(&dir, arch));
        }
    }
}
