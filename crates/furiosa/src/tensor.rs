//! Stream tensors: a scalar type, the five mappings Chip / Cluster / Slice / Time /
//! Packet, the pipeline position, and the data.
//!
//! The data is a flat typed buffer ([`Codes`]) of one code per physical position of the
//! combined mapping `m![Chip, Cluster, Slice, Time, Packet]` (outer to inner), padding
//! positions included, so position `((((chip · CL + cluster) · S + slice) · T + time) · P +
//! packet)` holds the element at those coordinates.

use std::fmt;

use npusim_hw::LimitError;
use thiserror::Error;

use crate::buffer::Codes;
use crate::limits::{CLUSTERS_PER_CHIP, SLICES_PER_CLUSTER};
use crate::mapping::{Evaluator, Final};
use crate::{DType, Mapping};

/// Where in the Tensor Unit pipeline a stream tensor is (which engines may take it next).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Position {
    /// A DM view entering the Tensor Unit (`BeginTensor`: Time `m![1]`, Packet the view's
    /// `Element`).
    Begin,
    /// Output of the Fetch Engine (`FetchTensor`).
    Fetch,
    /// Output of the Fetch Adapter's mask stage (`FetchMaskTensor`).
    FetchMask,
    /// Output of the Fetch Adapter's table lookup (`FetchTableLookupTensor`).
    FetchTableLookup,
    /// Output of the Fetch Adapter's cast (`FetchCastTensor`).
    FetchCast,
    /// Output of the Switch Engine (`SwitchTensor`).
    Switch,
    /// Output of the Collect Engine (`CollectTensor`).
    Collect,
    /// Output of the Contraction Engine (`ContractTensor`).
    Contract,
    /// Output of the Vector Engine (`VectorFinalTensor`).
    VectorFinal,
    /// Output of the Cast Engine (`CastTensor`).
    Cast,
    /// Output of the Commit Adapter's trim (`CommitTrimTensor`).
    CommitTrim,
    /// Output of the Commit Adapter's cast (`CommitCastTensor`).
    CommitCast,
}

impl Position {
    /// The vendor's type name for a tensor at this position.
    pub fn type_name(self) -> &'static str {
        match self {
            Position::Begin => "BeginTensor",
            Position::Fetch => "FetchTensor",
            Position::FetchMask => "FetchMaskTensor",
            Position::FetchTableLookup => "FetchTableLookupTensor",
            Position::FetchCast => "FetchCastTensor",
            Position::Switch => "SwitchTensor",
            Position::Collect => "CollectTensor",
            Position::Contract => "ContractTensor",
            Position::VectorFinal => "VectorFinalTensor",
            Position::Cast => "CastTensor",
            Position::CommitTrim => "CommitTrimTensor",
            Position::CommitCast => "CommitCastTensor",
        }
    }
}

/// The five stream dimensions, outer to inner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// Chips.
    Chip,
    /// Clusters of a chip.
    Cluster,
    /// Slices of a cluster.
    Slice,
    /// Time steps of the stream.
    Time,
    /// Elements of one packet.
    Packet,
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// Why a stream tensor cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TensorError {
    /// A dimension mapping breaks a hardware limit.
    #[error("{dim} = m![{mapping}] has {size} positions: {source}")]
    Limit {
        /// The dimension.
        dim: Dim,
        /// Its mapping in m-notation.
        mapping: String,
        /// Its size.
        size: usize,
        /// The limit broken.
        source: LimitError,
    },
    /// A dimension has no position (a size-0 mapping such as `A = 0`).
    #[error("nothing to stream: {dim} = m![{mapping}] has no positions")]
    Empty {
        /// The dimension.
        dim: Dim,
        /// Its mapping in m-notation.
        mapping: String,
    },
    /// The data does not hold one element per physical position.
    #[error("the data holds {got} elements but m![{layout}] has {expected} positions")]
    DataLength {
        /// Positions of the combined mapping.
        expected: usize,
        /// Elements given.
        got: usize,
        /// `Chip, Cluster, Slice, Time, Packet` in m-notation.
        layout: String,
    },
    /// A code does not fit the scalar type.
    #[error("element {index} has code {code:#x}, which is not a {dtype} code")]
    BadCode {
        /// Physical position.
        index: usize,
        /// The code.
        code: u64,
        /// The scalar type.
        dtype: DType,
    },
    /// A buffer's word width is not its type's.
    #[error("the buffer holds {bits}-bit words but {dtype} codes are stored in {want}-bit words")]
    Width {
        /// The buffer's word width.
        bits: usize,
        /// The width the type is stored in.
        want: usize,
        /// The scalar type.
        dtype: DType,
    },
}

/// A stream tensor: scalar type, the five mappings, pipeline position and one code per
/// physical position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamTensor {
    dtype: DType,
    position: Position,
    chip: Mapping,
    cluster: Mapping,
    slice: Mapping,
    time: Mapping,
    packet: Mapping,
    data: Codes,
}

impl StreamTensor {
    /// Builds a stream tensor, checking the cluster and slice counts, the data length and that
    /// every code fits `dtype`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        dtype: DType,
        position: Position,
        chip: Mapping,
        cluster: Mapping,
        slice: Mapping,
        time: Mapping,
        packet: Mapping,
        data: Vec<u64>,
    ) -> Result<StreamTensor, TensorError> {
        let dims = [chip, cluster, slice, time, packet];
        check_shape(&dims, data.len())?;
        let data = Codes::from_u64(dtype, &data).map_err(|b| TensorError::BadCode {
            index: b.index,
            code: b.code,
            dtype,
        })?;
        StreamTensor::from_codes(dtype, position, dims, data)
    }

    /// This tensor's mappings over new codes of `dtype` at `position`: a stage that keeps the
    /// layout and changes the element type or the values.
    pub(crate) fn restaged(
        &self,
        dtype: DType,
        position: Position,
        data: Vec<u64>,
    ) -> Result<StreamTensor, TensorError> {
        StreamTensor::new(
            dtype,
            position,
            self.mapping(Dim::Chip).clone(),
            self.mapping(Dim::Cluster).clone(),
            self.mapping(Dim::Slice).clone(),
            self.time().clone(),
            self.packet().clone(),
            data,
        )
    }

    /// Builds a stream tensor over a typed buffer (the mappings as
    /// `[Chip, Cluster, Slice, Time, Packet]`), checking the cluster and slice counts, the data
    /// length, the buffer's word width and that every code fits `dtype`.
    pub fn from_codes(
        dtype: DType,
        position: Position,
        dims: [Mapping; 5],
        data: Codes,
    ) -> Result<StreamTensor, TensorError> {
        check_shape(&dims, data.len())?;
        match data.check(dtype) {
            Ok(true) => {}
            Ok(false) => {
                return Err(TensorError::Width {
                    bits: match data {
                        Codes::U8(_) => 8,
                        Codes::U16(_) => 16,
                        Codes::U32(_) => 32,
                    },
                    want: dtype.bits().next_power_of_two().max(8),
                    dtype,
                });
            }
            Err(b) => {
                return Err(TensorError::BadCode {
                    index: b.index,
                    code: b.code,
                    dtype,
                });
            }
        }
        let [chip, cluster, slice, time, packet] = dims;
        Ok(StreamTensor {
            dtype,
            position,
            chip,
            cluster,
            slice,
            time,
            packet,
            data,
        })
    }

    /// A `CollectTensor` of `i32` values (one per physical position).
    pub fn collect_i32(dims: [Mapping; 5], values: &[i32]) -> Result<StreamTensor, TensorError> {
        let data = Codes::U32(values.iter().map(|v| *v as u32).collect());
        StreamTensor::from_codes(DType::I32, Position::Collect, dims, data)
    }

    /// A `CollectTensor` of `f32` values (one per physical position).
    pub fn collect_f32(dims: [Mapping; 5], values: &[f32]) -> Result<StreamTensor, TensorError> {
        let data = Codes::U32(values.iter().map(|v| v.to_bits()).collect());
        StreamTensor::from_codes(DType::F32, Position::Collect, dims, data)
    }

    /// [`StreamTensor::new`] with the mappings given as `[Chip, Cluster, Slice, Time, Packet]`.
    pub fn from_dims(
        dtype: DType,
        position: Position,
        dims: [Mapping; 5],
        data: Vec<u64>,
    ) -> Result<StreamTensor, TensorError> {
        let [chip, cluster, slice, time, packet] = dims;
        StreamTensor::new(dtype, position, chip, cluster, slice, time, packet, data)
    }

    /// The scalar type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The pipeline position.
    pub fn position(&self) -> Position {
        self.position
    }

    /// The mapping of one dimension.
    pub fn mapping(&self, dim: Dim) -> &Mapping {
        match dim {
            Dim::Chip => &self.chip,
            Dim::Cluster => &self.cluster,
            Dim::Slice => &self.slice,
            Dim::Time => &self.time,
            Dim::Packet => &self.packet,
        }
    }

    /// The Time mapping.
    pub fn time(&self) -> &Mapping {
        &self.time
    }

    /// The Packet mapping.
    pub fn packet(&self) -> &Mapping {
        &self.packet
    }

    /// The codes, one per physical position, in their type's word width.
    pub fn codes(&self) -> &Codes {
        &self.data
    }

    /// The codes, moved out.
    pub fn into_codes(self) -> Codes {
        self.data
    }

    /// The codes of an integer type as sign-extended values.
    pub fn ints(&self) -> Vec<i64> {
        let bits = self.dtype.bits() as u32;
        self.data
            .iter()
            .map(|c| ((c << (64 - bits)) as i64) >> (64 - bits))
            .collect()
    }

    /// The elements decoded to f64 (NaN for NaN codes).
    pub fn values(&self) -> Vec<f64> {
        let f = self.dtype.format();
        self.data.iter().map(|c| f.decode(c).to_f64()).collect()
    }

    /// The finalised cell of every physical position of `m![Chip, Cluster, Slice, Time, Packet]`,
    /// in position order: which logical element (axis coordinates) each code holds, or that the
    /// position is padding.
    pub fn cells(&self) -> Vec<Final> {
        combined_cells(&[
            &self.chip,
            &self.cluster,
            &self.slice,
            &self.time,
            &self.packet,
        ])
    }

    /// Whether each physical position of `m![Chip, Cluster, Slice, Time, Packet]` holds a
    /// logical element, in position order (the cells of [`StreamTensor::cells`] without their
    /// coordinates).
    pub fn liveness(&self) -> Vec<bool> {
        combined_liveness(&[
            &self.chip,
            &self.cluster,
            &self.slice,
            &self.time,
            &self.packet,
        ])
    }

    /// [`StreamTensor::liveness`], or `None` when every position holds a logical element.
    pub(crate) fn partial_liveness(&self) -> Option<Vec<bool>> {
        partial_liveness(&[
            &self.chip,
            &self.cluster,
            &self.slice,
            &self.time,
            &self.packet,
        ])
    }

    /// The sizes `[Chip, Cluster, Slice, Time, Packet]` (the shape of the physical buffer).
    pub fn shape(&self) -> [usize; 5] {
        [
            self.chip.size(),
            self.cluster.size(),
            self.slice.size(),
            self.time.size(),
            self.packet.size(),
        ]
    }

    /// `[Chip, Cluster, Slice, Time, Packet]` in m-notation.
    pub fn layout(&self) -> String {
        [
            &self.chip,
            &self.cluster,
            &self.slice,
            &self.time,
            &self.packet,
        ]
        .map(|m| m.to_string())
        .join(", ")
    }

    /// The same data under new Time and Packet mappings of the same sizes (for relabelling
    /// stages such as narrow/widen).
    pub(crate) fn relabel(self, time: Mapping, packet: Mapping) -> StreamTensor {
        StreamTensor {
            time,
            packet,
            ..self
        }
    }

    /// The same tensor with new Slice and Time mappings and data (for the inter-slice reducer).
    pub(crate) fn reshaped(&self, slice: Mapping, time: Mapping, data: Codes) -> StreamTensor {
        self.with_parts(
            self.dtype,
            self.position,
            slice,
            time,
            self.packet.clone(),
            data,
        )
    }

    /// The same tensor with new Time and Packet mappings and data (for the intra-slice reducer
    /// and widening).
    pub(crate) fn regrouped(&self, time: Mapping, packet: Mapping, data: Codes) -> StreamTensor {
        self.with_parts(
            self.dtype,
            self.position,
            self.slice.clone(),
            time,
            packet,
            data,
        )
    }

    /// The same tensor with other codes, type, position and Packet (for engines).
    pub(crate) fn with(
        &self,
        dtype: DType,
        position: Position,
        packet: Mapping,
        data: Codes,
    ) -> StreamTensor {
        let (slice, time) = (self.slice.clone(), self.time.clone());
        self.with_parts(dtype, position, slice, time, packet, data)
    }

    /// The tensor moved to another position, its data kept.
    pub(crate) fn moved_to(self, position: Position) -> StreamTensor {
        StreamTensor { position, ..self }
    }

    /// Runs `f` over the codes as 32-bit words in place (a buffer of another width is widened
    /// first); the tensor then holds `dtype`.
    pub(crate) fn map_words(&mut self, dtype: DType, f: impl FnOnce(&mut [u32])) {
        let mut words = std::mem::replace(&mut self.data, Codes::U8(Vec::new())).into_words();
        f(&mut words);
        self.data = Codes::U32(words);
        self.dtype = dtype;
    }

    fn with_parts(
        &self,
        dtype: DType,
        position: Position,
        slice: Mapping,
        time: Mapping,
        packet: Mapping,
        data: Codes,
    ) -> StreamTensor {
        StreamTensor {
            dtype,
            position,
            chip: self.chip.clone(),
            cluster: self.cluster.clone(),
            slice,
            time,
            packet,
            data,
        }
    }
}

/// Checks the cluster and slice counts and that `len` codes are one per physical position of
/// `dims` (`[Chip, Cluster, Slice, Time, Packet]`).
fn check_shape(dims: &[Mapping; 5], len: usize) -> Result<(), TensorError> {
    let [chip, cluster, slice, time, packet] = dims;
    let named = [Dim::Chip, Dim::Cluster, Dim::Slice, Dim::Time, Dim::Packet];
    if let Some((dim, m)) = named.into_iter().zip(dims).find(|(_, m)| m.size() == 0) {
        return Err(TensorError::Empty {
            dim,
            mapping: m.m_notation(),
        });
    }
    for (dim, m, limit) in [
        (Dim::Cluster, cluster, CLUSTERS_PER_CHIP),
        (Dim::Slice, slice, SLICES_PER_CLUSTER),
    ] {
        limit
            .check(m.size() as i128)
            .map_err(|source| TensorError::Limit {
                dim,
                mapping: m.to_string(),
                size: m.size(),
                source,
            })?;
    }
    let expected = dims
        .iter()
        .try_fold(1usize, |acc, m| acc.checked_mul(m.size()))
        .unwrap_or(usize::MAX);
    if len != expected {
        return Err(TensorError::DataLength {
            expected,
            got: len,
            layout: format!("{chip}, {cluster}, {slice}, {time}, {packet}"),
        });
    }
    Ok(())
}

/// The finalised cell of every physical position of `m![d0, d1, ...]` (outer to inner), in
/// position order.
pub(crate) fn combined_cells(dims: &[&Mapping]) -> Vec<Final> {
    let mut e = Evaluator::of_dims(dims);
    (0..e.size()).map(|p| e.cell(p)).collect()
}

pub(crate) use crate::liveness::{combined_liveness, partial_liveness};

impl fmt::Display for StreamTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}<{}, m![{}], m![{}], m![{}], m![{}], m![{}]>",
            self.position.type_name(),
            self.dtype,
            self.chip.m_notation(),
            self.cluster.m_notation(),
            self.slice.m_notation(),
            self.time.m_notation(),
            self.packet.m_notation()
        )
    }
}
