//! Cerebras Wafer-Scale Engine, one processing element: PE memory, Data Structure Descriptors
//! (DSDs), tensor access expressions and DSD operations, after the chapter "Data Structure
//! Descriptors" of the CSL language guide and the CSL SDK's documented examples.
//!
//! A program reads like the CSL it models:
//!
//! ```
//! use npusim_cerebras::{Arch, ElemTy, Pe, Scalar};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut pe = Pe::new(Arch::Wse2);
//! // const src_array = [8]f16{ 0, 1, 2, 3, 4, 5, 6, 7 };
//! let src: Vec<half::f16> = (0..8).map(|x| half::f16::from_f32(x as f32)).collect();
//! pe.mem.declare_with("src_array", &[8], &src)?;
//! pe.mem.declare("dst_scalar", ElemTy::F16, &[1])?;
//! // const src_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{4} -> src_array[2*i] });
//! let src_dsd = pe.mem.mem1d("|i|{4} -> src_array[2*i]")?;
//! // @fmovh(&dst_scalar, src_dsd);
//! let dst = npusim_cerebras::Operand::Ptr(pe.mem.element("dst_scalar", 0)?);
//! pe.fmovh(dst, &src_dsd)?;
//! assert_eq!(pe.mem.read::<half::f16>("dst_scalar")?[0].to_f32(), 6.0);
//! # Ok(()) }
//! ```
//!
//! Lowering alone (what `npusim cerebras access` prints):
//!
//! ```
//! use npusim_cerebras::access::{BoundsPolicy, lower, parse};
//! let access = parse("|i, j, k, l|{5, 5, 5, 5} -> A[i + j, k + l + 2]").unwrap();
//! let l = lower(&access, &[4, 5], BoundsPolicy::Unchecked).unwrap();
//! assert_eq!((l.offset, l.stride.as_slice()), (2, &[1, -3, -3, -23][..]));
//! ```
//!
//! # Modules
//!
//! * [`access`]: tensor access expressions: parser, normal form, lowering (reset-relative
//!   strides, innermost first).
//! * [`dsd`]: `mem1d`, `mem4d`, `circbuf`, `fabin`/`fabout` (validated data), FIFOs, the
//!   address walk and the mutators.
//! * [`memory`]: 48 KiB of 16-bit words with named, typed, row-major arrays.
//! * [`npy`]: arrays read and written as `.npy` files (through `npusim-io`).
//! * [`ops`]: the operation table, operands (DSD, DSR, FIFO, scalar, pointer; a fabric operand
//!   is one more kind) and the arithmetic of each operation.
//! * [`pe`]: one PE's compute engine: the machine, the operation engine (a state machine
//!   advanced element by element, its operands behind ports), `@map`, the cycle model and the
//!   builtins as methods.
//! * [`ids`]: the ids a program names tasks, queues, microthreads and channels by, as CSL's
//!   `@get_local_task_id`, `@get_data_task_id`, `@get_input_queue`, ... make them (checked).
//! * [`fabric`]: wavelets, colors, per-color routes and switch positions, a grid of routers
//!   moving one wavelet per link per cycle, input/output queues (the queue table of the SDK's "Data Structure Descriptors" page).
//! * [`sched`]: tasks, asynchronous operations on microthreads, resource-conflict detection and
//!   the deterministic cycle-stepped multi-PE scheduler.
//!
//! The SDK tutorial programs ported onto this simulator (E1-E11, what `npusim cerebras run` and
//! the tour run) live in the `npusim-examples` crate, outside this library's API.
//!
//! # Decisions the documentation leaves open, and other policies
//!
//! `DECISIONS.md` beside this crate's manifest lists each with the test that pins it.
//!
//! * **Operand roles**: a single source may sit in either source DSR (`dsr_src0` or
//!   `dsr_src1`); `dsr_dest` is destination only, `dsr_src1` source only.
//! * **FIFO count**: with more than one source at most one operand is a FIFO and it is
//!   not the first source; `mov16(fifoA, fifoB)` (one source) is allowed.
//! * **Fabric decisions** concern the fabric (part 2, [`fabric`], [`sched`]): see
//!   `DECISIONS_PART2.md`.
//! * **FIFO lengths**: a non-zero read/write length is the FIFO operand's length; after
//!   a normal completion it drops by the elements used (0 when all were used); an empty/full
//!   event sets it to what remained. A length above the capacity is allowed. Capacity = the
//!   buffer's element count. A synchronous `suspend` is an error (nothing could serve it).
//! * **Pointer destinations**: `(ptr, dsd)` forms keep the last element (`@fmovh` ends
//!   with 6); `(ptr, scalar, dsd)` forms accumulate, one rounding per step (an inference: the documentation does not say).
//! * **Bounds**: lowering never rejects an index outside the array
//!   ([`access::BoundsPolicy::Unchecked`], default); [`access::BoundsPolicy::Strict`] is the
//!   opt-in per-array check. An access outside the PE's memory is always an error.
//! * **Typos in the documentation's examples** are read as meant (`dst_dsd`, a `var` scalar).
//! * **Lengths**: [`pe::LengthPolicy::HardwarePriority`] by default (sources, then the
//!   destination; non-governing operands are walked past their ends, a mem4d continuing in its
//!   outermost dimension), [`pe::LengthPolicy::Strict`] on request.
//! * **`wavelet_index_offset` without `.index`** is an error (the documentation calls it undefined).
//! * **mem1d strides** that do not fit `i8` are rejected, not wrapped.
//! * **Floating point**: IEEE binary16/32, round to nearest even, one rounding per operation
//!   (fused `fmach`/`fmacs`), through numerics; `fmax` of a NaN returns the other operand.
//! * **Undocumented operations**: `@addc16` chains its carry through the elements of one
//!   operation (starting at 0); `@faddhs` adds an FP16 second source to an f32 first source;
//!   `@fh2xp16`/`@fs2xp16` round to nearest even and saturate; `@fscale*` is `x * 2^k`;
//!   `@fnorm*` is refused (`OpError::Undocumented`).
//! * **FP16 format**: [`ops::Fp16Format`] (IEEE binary16 by default, or bfloat16); `cb16` is
//!   not offered (numerics has no such format).
//! * **FIFO buffers** are 4-byte aligned by default; an explicit alignment below
//!   [`Arch::fifo_min_align_bytes`] is refused.
//! * **Cycle model** `cerebras-simd-v1`: `ceil(elements / width)`, width = the op's SIMD width
//!   (the DSD page's table) reduced by the strides of its memory operands (stride mod 8 = 4 taken as width 2).

pub mod access;
pub mod arch;
pub mod dsd;
pub mod elem;
pub mod fabric;
pub mod ids;
pub mod limits;
pub mod memory;
pub mod npy;
pub mod ops;
pub mod pe;
pub mod sched;

pub use arch::{Arch, PE_MEMORY_BYTES, WSE2_PE_MEMORY_BYTES, WSE3_PE_MEMORY_BYTES};
pub use elem::{ElemTy, Element};
pub use memory::{MemoryError, PeMemory};
pub use ops::{Op, Operand, Scalar};
pub use pe::{OpConfig, Pe};
