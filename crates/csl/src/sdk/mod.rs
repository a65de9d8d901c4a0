//! The SDK, modelled natively: the libraries PE programs import (`<memcpy/memcpy>` copy
//! mode, `<layout>`; see `library`), the host runtime [`SdkRuntime`] with copy-mode
//! memcpy ([`memcpy`]), and `cs-python` ([`cs_python`]): a host script run by `python3`
//! with npusim's `cerebras.sdk` ([`shim`]) talking to the runtime ([`bridge`]). The host side talks to the program's exported symbols and
//! functions directly, so no memcpy PEs are simulated; streaming mode is refused until the
//! fabric memcpy exists.

pub mod bridge;
pub mod cs_python;
mod debug;
mod error;
mod launch_args;
mod library;
pub mod memcpy;
pub mod random;
mod runtime;
pub mod shim;
pub mod simprint;

pub use debug::{
    DEBUG_ARRAY, DEBUG_ENTRIES, DEBUG_WORDS, DebugEntry, DebugValue, string_hash, strings_of,
};
pub use error::SdkError;
pub(crate) use launch_args::launch_values;
pub use launch_args::{
    LAUNCH_ARGS_ARRAY, LAUNCH_ARGS_WORDS, LaunchArg, MAX_LAUNCH_ARGS, launch_words,
};
pub use library::{CMD_STREAM_ARRAY, COORD_ARRAY, TSC_SIZE_WORDS};
pub(crate) use library::{check_library_call, library_call, library_field};
pub use memcpy::{MemcpyDataType, MemcpyOrder, MemcpyRect};
pub use random::{RANDOM_ARRAY, RANDOM_START};
pub use runtime::{DEFAULT_CYCLE_BUDGET, SdkRuntime};
