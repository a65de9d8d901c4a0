//! Which tensor container a path names, chosen by its extension.

use std::path::Path;

use crate::error::IoError;

/// The file containers npusim reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Container {
    /// numpy `.npy`: one array.
    Npy,
    /// `.safetensors`: named tensors plus string metadata.
    Safetensors,
    /// Raw little-endian element bytes (`.bin`, `.raw`): one tensor whose format and shape
    /// are given by the caller.
    Raw,
}

impl Container {
    /// The container a path's extension names (case-insensitive).
    pub fn of(path: &Path) -> Result<Container, IoError> {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        match ext.as_str() {
            "npy" => Ok(Container::Npy),
            "safetensors" => Ok(Container::Safetensors),
            "bin" | "raw" => Ok(Container::Raw),
            _ => Err(IoError::UnknownExtension {
                path: path.to_path_buf(),
            }),
        }
    }

    /// Short name for messages.
    pub const fn name(self) -> &'static str {
        match self {
            Container::Npy => ".npy",
            Container::Safetensors => ".safetensors",
            Container::Raw => "raw .bin",
        }
    }

    /// Whether the container holds exactly one tensor.
    pub const fn is_single_tensor(self) -> bool {
        !matches!(self, Container::Safetensors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_name_containers() {
        assert_eq!(Container::of(Path::new("a/b.NPY")).unwrap(), Container::Npy);
        assert_eq!(
            Container::of(Path::new("m.safetensors")).unwrap(),
            Container::Safetensors
        );
        assert_eq!(Container::of(Path::new("x.raw")).unwrap(), Container::Raw);
        let e = Container::of(Path::new("x.txt")).unwrap_err().to_string();
        assert!(
            e.contains("`x.txt`") && e.contains(".bin (raw bytes)"),
            "{e}"
        );
    }
}
