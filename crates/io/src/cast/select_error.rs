//! The problems of a cast's tensor selection and exclusion ([`super::CastJob::tensors`],
//! [`super::CastJob::exclude`]), apart from the selection itself so the crate's error can
//! carry them.

use std::fmt;
use std::path::PathBuf;

/// Which list of a cast's tensor patterns: the selection or the exclusion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatternList {
    /// The tensors to cast ([`CastJob::tensors`](super::CastJob::tensors)).
    Selection,
    /// The tensors not to cast ([`CastJob::exclude`](super::CastJob::exclude)).
    Exclusion,
}

impl fmt::Display for PatternList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PatternList::Selection => "tensor selection",
            PatternList::Exclusion => "tensor exclusion",
        })
    }
}

/// A problem with the tensor selection or exclusion.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SelectError {
    /// A pattern the glob matcher refuses.
    #[error("{option} `{pattern}` is not a valid glob pattern: {reason} (at character {pos})")]
    BadPattern {
        /// The list the pattern is in.
        option: PatternList,
        /// The pattern.
        pattern: String,
        /// What the matcher said.
        reason: String,
        /// Where (0-based character index).
        pos: usize,
    },
    /// A pattern that matches no tensor of the file.
    #[error(
        "{option} `{pattern}` matches no tensor of `{}` ({} tensors: {})",
        .path.display(), .count, .names
    )]
    NoMatch {
        /// The list the pattern is in.
        option: PatternList,
        /// The pattern.
        pattern: String,
        /// The input file.
        path: PathBuf,
        /// How many tensors the file has.
        count: usize,
        /// The first tensor names, comma-separated (`...` if there are more).
        names: String,
    },
    /// A tensor exclusion given for a single-tensor file.
    #[error("excluding tensors applies to .safetensors files; a {container} file holds one tensor")]
    ExcludeOnSingle {
        /// The input container's name.
        container: &'static str,
    },
}
