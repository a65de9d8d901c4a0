//! Compile-time values and types.

use std::fmt;

use super::int::IntType;

/// A router port as layouts name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dir {
    /// `NORTH`
    North,
    /// `EAST`
    East,
    /// `SOUTH`
    South,
    /// `WEST`
    West,
    /// `RAMP`: the PE's own compute engine.
    Ramp,
}

impl Dir {
    /// The direction a layout names `name`, if any.
    pub fn from_name(name: &str) -> Option<Dir> {
        Some(match name {
            "NORTH" => Dir::North,
            "EAST" => Dir::East,
            "SOUTH" => Dir::South,
            "WEST" => Dir::West,
            "RAMP" => Dir::Ramp,
            _ => return None,
        })
    }

    /// The CSL spelling.
    pub const fn name(self) -> &'static str {
        match self {
            Dir::North => "NORTH",
            Dir::East => "EAST",
            Dir::South => "SOUTH",
            Dir::West => "WEST",
            Dir::Ramp => "RAMP",
        }
    }
}

/// A compile-time type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `bool`
    Bool,
    /// A sized integer or `comptime_int`.
    Int(IntType),
    /// `f16`
    F16,
    /// `f32`
    F32,
    /// `comptime_float`
    ComptimeFloat,
    /// `comptime_struct`
    ComptimeStruct,
    /// `type`
    Type,
    /// `void`
    Void,
    /// `color`
    Color,
    /// `data_task_id`
    DataTaskId,
    /// `local_task_id`
    LocalTaskId,
    /// `control_task_id`
    ControlTaskId,
    /// `input_queue`
    InputQueue,
    /// `output_queue`
    OutputQueue,
    /// `microthread_id`
    MicrothreadId,
    /// A DSD type (`mem1d_dsd`, `fabin_dsd`, ...) by name.
    Dsd(&'static str),
    /// `[N]T`, `[M, N]T`.
    Array {
        /// The lengths.
        dims: Vec<u64>,
        /// The element type.
        elem: Box<Type>,
    },
    /// `*T`, `*const T`.
    Ptr {
        /// Read-only pointee.
        is_const: bool,
        /// The pointee type.
        elem: Box<Type>,
    },
    /// `[*]T`, `[*]const T`.
    ManyPtr {
        /// Read-only elements.
        is_const: bool,
        /// The element type.
        elem: Box<Type>,
    },
    /// `[]T`, `[]const T`.
    Slice {
        /// Read-only elements.
        is_const: bool,
        /// The element type.
        elem: Box<Type>,
    },
    /// `fn(A, B) R`.
    Fn {
        /// The parameter types.
        params: Vec<Type>,
        /// The return type.
        ret: Box<Type>,
    },
}

/// The DSD type names.
pub const DSD_TYPES: [&str; 6] = [
    "mem1d_dsd",
    "mem4d_dsd",
    "fabin_dsd",
    "fabout_dsd",
    "fifo_dsd",
    "circular_dsd",
];

impl Type {
    /// The builtin type a name denotes, if any.
    pub fn from_name(name: &str) -> Option<Type> {
        Some(match name {
            "bool" => Type::Bool,
            "f16" => Type::F16,
            "f32" => Type::F32,
            "comptime_float" => Type::ComptimeFloat,
            "comptime_struct" => Type::ComptimeStruct,
            "type" => Type::Type,
            "void" => Type::Void,
            "color" => Type::Color,
            "data_task_id" => Type::DataTaskId,
            "local_task_id" => Type::LocalTaskId,
            "control_task_id" => Type::ControlTaskId,
            "input_queue" => Type::InputQueue,
            "output_queue" => Type::OutputQueue,
            "microthread_id" => Type::MicrothreadId,
            _ => {
                if let Some(t) = IntType::from_name(name) {
                    return Some(Type::Int(t));
                }
                return DSD_TYPES
                    .iter()
                    .find(|&&d| d == name)
                    .map(|&d| Type::Dsd(d));
            }
        })
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let konst = |c: bool| if c { "const " } else { "" };
        match self {
            Type::Bool => f.write_str("bool"),
            Type::Int(t) => write!(f, "{t}"),
            Type::F16 => f.write_str("f16"),
            Type::F32 => f.write_str("f32"),
            Type::ComptimeFloat => f.write_str("comptime_float"),
            Type::ComptimeStruct => f.write_str("comptime_struct"),
            Type::Type => f.write_str("type"),
            Type::Void => f.write_str("void"),
            Type::Color => f.write_str("color"),
            Type::DataTaskId => f.write_str("data_task_id"),
            Type::LocalTaskId => f.write_str("local_task_id"),
            Type::ControlTaskId => f.write_str("control_task_id"),
            Type::InputQueue => f.write_str("input_queue"),
            Type::OutputQueue => f.write_str("output_queue"),
            Type::MicrothreadId => f.write_str("microthread_id"),
            Type::Dsd(name) => f.write_str(name),
            Type::Array { dims, elem } => {
                let dims: Vec<String> = dims.iter().map(u64::to_string).collect();
                write!(f, "[{}]{elem}", dims.join(", "))
            }
            Type::Ptr { is_const, elem } => write!(f, "*{}{elem}", konst(*is_const)),
            Type::ManyPtr { is_const, elem } => write!(f, "[*]{}{elem}", konst(*is_const)),
            Type::Slice { is_const, elem } => write!(f, "[]{}{elem}", konst(*is_const)),
            Type::Fn { params, ret } => {
                let params: Vec<String> = params.iter().map(Type::to_string).collect();
                write!(f, "fn({}) {ret}", params.join(", "))
            }
        }
    }
}

/// A compile-time value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// An integer of a sized type or `comptime_int`.
    Int {
        /// The value.
        value: i128,
        /// Its type.
        ty: IntType,
    },
    /// A float: `comptime_float` (kept as an f64) or an `f32` value.
    Float {
        /// The value.
        value: f64,
        /// `F32` or `ComptimeFloat`.
        ty: Type,
    },
    /// `true` / `false`.
    Bool(bool),
    /// A string.
    Str(String),
    /// A type.
    Type(Type),
    /// `@get_color(n)`.
    Color(u8),
    /// `@get_data_task_id(...)`: the color or queue number it is bound to.
    DataTaskId(u8),
    /// `@get_local_task_id(n)`.
    LocalTaskId(u8),
    /// `@get_control_task_id(n)`.
    ControlTaskId(u8),
    /// `@get_input_queue(n)`.
    InputQueue(u8),
    /// `@get_output_queue(n)`.
    OutputQueue(u8),
    /// `@get_ut_id(n)`: a WSE-3 microthread id.
    MicrothreadId(u8),
    /// A router port.
    Dir(Dir),
    /// An anonymous struct (`.{ .a = 1 }`, a `comptime_struct`), fields in order.
    Struct(Vec<(String, Value)>),
    /// An anonymous list (`.{ a, b }`) or array value.
    List(Vec<Value>),
    /// `.name`.
    EnumLit(String),
    /// An imported module.
    Module(ModuleRef),
    /// A function of the file, by name.
    Function(String),
    /// `@range(T, ...)`: the values it yields.
    Range {
        /// First value.
        start: i128,
        /// Bound (exclusive).
        end: i128,
        /// Step (non-zero).
        step: i128,
        /// Element type.
        ty: IntType,
    },
    /// `void`.
    Void,
    /// `undefined`.
    Undefined,
}

/// What `@import_module` gave.
#[derive(Clone, Debug, PartialEq)]
pub struct ModuleRef {
    /// The path as written (`<memcpy/get_params>`).
    pub path: String,
    /// The parameters it was imported with.
    pub params: Vec<(String, Value)>,
}

impl Value {
    /// The value's type as error messages name it.
    pub fn type_name(&self) -> String {
        match self {
            Value::Int { ty, .. } => ty.to_string(),
            Value::Float { ty, .. } => ty.to_string(),
            Value::Bool(_) => "bool".into(),
            Value::Str(_) => "string".into(),
            Value::Type(_) => "type".into(),
            Value::Color(_) => "color".into(),
            Value::DataTaskId(_) => "data_task_id".into(),
            Value::LocalTaskId(_) => "local_task_id".into(),
            Value::ControlTaskId(_) => "control_task_id".into(),
            Value::InputQueue(_) => "input_queue".into(),
            Value::OutputQueue(_) => "output_queue".into(),
            Value::MicrothreadId(_) => "microthread_id".into(),
            Value::Dir(_) => "direction".into(),
            Value::Struct(_) => "comptime_struct".into(),
            Value::List(_) => "list".into(),
            Value::EnumLit(_) => "enum literal".into(),
            Value::Module(_) => "module".into(),
            Value::Function(_) => "function".into(),
            Value::Range { .. } => "range".into(),
            Value::Void => "void".into(),
            Value::Undefined => "undefined".into(),
        }
    }

    /// A `comptime_int`.
    pub fn comptime_int(value: i128) -> Value {
        Value::Int {
            value,
            ty: IntType::Comptime,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int { value, .. } => write!(f, "{value}"),
            Value::Float { value, .. } => write!(f, "{value:?}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Type(t) => write!(f, "{t}"),
            Value::Color(c) => write!(f, "color {c}"),
            Value::DataTaskId(c) => write!(f, "data task {c}"),
            Value::LocalTaskId(c) => write!(f, "local task {c}"),
            Value::ControlTaskId(c) => write!(f, "control task {c}"),
            Value::InputQueue(q) => write!(f, "input queue {q}"),
            Value::OutputQueue(q) => write!(f, "output queue {q}"),
            Value::MicrothreadId(u) => write!(f, "microthread {u}"),
            Value::Dir(d) => f.write_str(d.name()),
            Value::Struct(fields) => {
                f.write_str(".{")?;
                for (i, (name, v)) in fields.iter().enumerate() {
                    let sep = if i > 0 { "," } else { "" };
                    write!(f, "{sep} .{name} = {v}")?;
                }
                f.write_str(" }")
            }
            Value::List(items) => {
                f.write_str(".{")?;
                for (i, v) in items.iter().enumerate() {
                    let sep = if i > 0 { "," } else { "" };
                    write!(f, "{sep} {v}")?;
                }
                f.write_str(" }")
            }
            Value::EnumLit(name) => write!(f, ".{name}"),
            Value::Module(m) => write!(f, "module {}", m.path),
            Value::Function(name) => write!(f, "fn {name}"),
            Value::Range {
                start, end, step, ..
            } => write!(f, "range {start}..{end} by {step}"),
            Value::Void => f.write_str("void"),
            Value::Undefined => f.write_str("undefined"),
        }
    }
}
