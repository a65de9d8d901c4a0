//! DSD operations (spec §4): the operation table, operands and the arithmetic each operation
//! applies to an element. The engine that runs them on a PE is [`crate::pe`].

pub mod error;
pub mod fixed;
pub mod fp;
pub mod fp16_format;
pub mod op;
pub mod operand;
pub mod scale;

pub use error::OpError;
pub use fp16_format::Fp16Format;
pub use op::{Class, Op};
pub use operand::{DsrId, FifoId, Operand, Scalar};
