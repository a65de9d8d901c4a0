//! The Python package directory `npusim cs-python` puts first on `PYTHONPATH`, so that a
//! host script's `from cerebras.sdk.runtime.sdkruntimepybind import ...` and
//! `from cerebras.sdk.sdk_utils import ...` resolve to npusim. The files are plain Python
//! (numpy only) built into the binary; they talk to the Rust runtime over [`super::bridge`].

use std::path::Path;

/// The shim's files: path inside the package directory, text.
pub const FILES: [(&str, &str); 7] = [
    (
        "cerebras/__init__.py",
        include_str!("python/cerebras/__init__.py"),
    ),
    (
        "cerebras/sdk/__init__.py",
        include_str!("python/cerebras/sdk/__init__.py"),
    ),
    (
        "cerebras/sdk/runtime/__init__.py",
        include_str!("python/cerebras/sdk/runtime/__init__.py"),
    ),
    (
        "cerebras/sdk/runtime/sdkruntimepybind.py",
        include_str!("python/cerebras/sdk/runtime/sdkruntimepybind.py"),
    ),
    (
        "cerebras/sdk/sdk_utils.py",
        include_str!("python/cerebras/sdk/sdk_utils.py"),
    ),
    (
        "cerebras/sdk/debug/__init__.py",
        include_str!("python/cerebras/sdk/debug/__init__.py"),
    ),
    (
        "cerebras/sdk/debug/debug_util.py",
        include_str!("python/cerebras/sdk/debug/debug_util.py"),
    ),
];

/// Writes the package into directory `dir`.
pub fn write(dir: &Path) -> std::io::Result<()> {
    for (name, text) in FILES {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)?;
    }
    Ok(())
}
