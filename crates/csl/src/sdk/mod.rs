//! The SDK, modelled natively: the libraries PE programs import (`<memcpy/memcpy>` copy
//! mode, `<layout>`; see [`library`]) and the host runtime [`SdkRuntime`] with copy-mode
//! memcpy ([`memcpy`]). The host side talks to the program's exported symbols and
//! functions directly, so no memcpy PEs are simulated; streaming mode is refused until the
//! fabric memcpy exists.

mod error;
mod library;
pub mod memcpy;
mod runtime;

pub use error::SdkError;
pub use library::{CMD_STREAM_ARRAY, COORD_ARRAY};
pub(crate) use library::{check_library_call, library_call};
pub use memcpy::{MemcpyDataType, MemcpyOrder, MemcpyRect};
pub use runtime::{DEFAULT_CYCLE_BUDGET, SdkRuntime};
