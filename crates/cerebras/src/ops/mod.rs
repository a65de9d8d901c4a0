//! DSD operations on one PE (spec §4): the operation table, operands, the engine and `@map`.

pub mod error;
pub mod exec;
pub mod fabric_port;
pub mod fixed;
pub mod fp;
pub mod fp16_format;
pub mod op;
pub mod operand;
pub mod pe;
pub mod scale;

pub use error::OpError;
pub use exec::{CYCLE_MODEL, Progress, RunningOp, stride_width};
pub use fabric_port::{CONTROL_MARKER, FabInPort, FabOutPort, INFINITE_EXTENT, Wait};
pub use fp16_format::Fp16Format;
pub use op::{Class, Op};
pub use operand::{DsrId, FifoId, Operand, Scalar};
pub use pe::{Dsr, DsrFile, LengthPolicy, OpConfig, Outcome, Pe};
