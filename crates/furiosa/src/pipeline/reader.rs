//! A serde `Deserializer` over a parsed TOML value that knows where it is: every error names
//! the key it happened at and the `[[stage]]` it happened in, an unknown key is refused with
//! the known ones listed (taken from the `Deserialize` derive, never repeated by hand), and an
//! enum written as a table is tagged by its `op` key (`op = "cast"`, then the variant's fields).
//!
//! Numbers are read as the target asks: an integer-valued float is an integer, an integer is a
//! float, and a text field takes an integer as its decimal text (`time = 1`).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, Visitor};
use toml::Value;

/// What went wrong, before the reader knows where (see [`ReadError`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Problem {
    /// A key the table does not take.
    UnknownKey {
        /// The key.
        key: String,
        /// The keys it takes, in declaration order.
        known: Vec<&'static str>,
    },
    /// A required key is absent.
    Missing(&'static str),
    /// A name that is not one of the enum's.
    UnknownName {
        /// The name.
        name: String,
        /// The enum's names.
        known: &'static [&'static str],
    },
    /// A value of the wrong kind or out of range, or a check of the target type.
    Invalid(String),
}

/// A reading error with its place: the key (innermost) and the stage (1-based) and its op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ReadError {
    pub(super) problem: Problem,
    pub(super) key: Option<String>,
    pub(super) stage: Option<usize>,
    pub(super) op: Option<String>,
}

impl ReadError {
    fn new(problem: Problem) -> ReadError {
        ReadError {
            problem,
            key: None,
            stage: None,
            op: None,
        }
    }

    fn at_key(mut self, key: &str) -> ReadError {
        if self.key.is_none() && !matches!(self.problem, Problem::UnknownKey { .. }) {
            self.key = Some(key.to_string());
        }
        self
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.problem)
    }
}

impl std::error::Error for ReadError {}

impl de::Error for ReadError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        ReadError::new(Problem::Invalid(msg.to_string()))
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        ReadError::new(Problem::UnknownName {
            name: variant.to_string(),
            known: expected,
        })
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        ReadError::new(Problem::UnknownKey {
            key: field.to_string(),
            known: expected.to_vec(),
        })
    }

    fn missing_field(field: &'static str) -> Self {
        ReadError::new(Problem::Missing(field))
    }
}

/// Reads `T` from the TOML value `value`.
pub(super) fn read<'de, T: de::Deserialize<'de>>(value: Value) -> Result<T, ReadError> {
    T::deserialize(Reader(value))
}

/// The deserializer of one TOML value.
struct Reader(Value);

impl Reader {
    fn kind(&self) -> de::Unexpected<'_> {
        match &self.0 {
            Value::String(s) => de::Unexpected::Str(s),
            Value::Integer(i) => de::Unexpected::Signed(*i),
            Value::Float(x) => de::Unexpected::Float(*x),
            Value::Boolean(b) => de::Unexpected::Bool(*b),
            Value::Datetime(_) => de::Unexpected::Other("a date"),
            Value::Array(_) => de::Unexpected::Seq,
            Value::Table(_) => de::Unexpected::Map,
        }
    }

    fn wrong(&self, expected: &dyn de::Expected) -> ReadError {
        de::Error::invalid_type(self.kind(), expected)
    }

    fn integer<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.0 {
            Value::Integer(i) => visitor.visit_i64(i),
            Value::Float(x) if x.fract() == 0.0 && x.abs() < 9.0e18 => visitor.visit_i64(x as i64),
            _ => Err(self.wrong(&visitor)),
        }
    }

    fn float<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.0 {
            Value::Integer(i) => visitor.visit_f64(i as f64),
            Value::Float(x) => visitor.visit_f64(x),
            _ => Err(self.wrong(&visitor)),
        }
    }
}

/// Refuses a key of `table` that is not in `known`.
fn check_keys(table: &toml::Table, known: &[&'static str]) -> Result<(), ReadError> {
    match table.keys().find(|k| !known.contains(&k.as_str())) {
        Some(key) => Err(ReadError::new(Problem::UnknownKey {
            key: key.clone(),
            known: known.to_vec(),
        })),
        None => Ok(()),
    }
}

impl<'de> Deserializer<'de> for Reader {
    type Error = ReadError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.0 {
            Value::String(s) => visitor.visit_string(s),
            Value::Integer(i) => visitor.visit_i64(i),
            Value::Float(x) => visitor.visit_f64(x),
            Value::Boolean(b) => visitor.visit_bool(b),
            Value::Datetime(d) => visitor.visit_string(d.to_string()),
            Value::Array(items) => visitor.visit_seq(Items {
                items: items.into_iter(),
                index: 0,
            }),
            Value::Table(table) => visitor.visit_map(Entries::new(table)),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.0 {
            Value::String(s) => visitor.visit_string(s),
            Value::Integer(i) => visitor.visit_string(i.to_string()),
            _ => Err(self.wrong(&visitor)),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        self.deserialize_string(visitor)
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        self.integer(visitor)
    }

    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        self.integer(visitor)
    }

    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        self.integer(visitor)
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        self.integer(visitor)
    }

    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        self.integer(visitor)
    }

    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        self.integer(visitor)
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        self.integer(visitor)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        self.integer(visitor)
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        self.float(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        self.float(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        visitor.visit_some(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.0 {
            Value::Array(_) => self.deserialize_any(visitor),
            _ => Err(self.wrong(&visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        match self.0 {
            Value::Table(table) => {
                check_keys(&table, fields)?;
                visitor.visit_map(Entries::new(table))
            }
            _ => Err(self.wrong(&visitor)),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        match self.0 {
            Value::String(name) => visitor.visit_enum(name.into_deserializer()),
            Value::Table(mut table) => {
                let op = match table.remove("op") {
                    Some(Value::String(op)) => op,
                    Some(other) => {
                        return Err(Reader(other).wrong(&"a string").at_key("op"));
                    }
                    None => return Err(ReadError::new(Problem::Missing("op"))),
                };
                visitor
                    .visit_enum(Tagged {
                        op: op.clone(),
                        table,
                    })
                    .map_err(|mut e| {
                        if e.key.as_deref() != Some("op") && e.op.is_none() {
                            e.op = Some(op);
                        }
                        e
                    })
            }
            _ => Err(self.wrong(&visitor)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i128 u128 char bytes byte_buf unit unit_struct newtype_struct tuple tuple_struct
        map identifier
    }
}

/// The items of an array; an error inside item `i` happened in stage `i + 1`.
struct Items {
    items: std::vec::IntoIter<Value>,
    index: usize,
}

impl<'de> de::SeqAccess<'de> for Items {
    type Error = ReadError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, ReadError> {
        let Some(item) = self.items.next() else {
            return Ok(None);
        };
        self.index += 1;
        let index = self.index;
        seed.deserialize(Reader(item)).map(Some).map_err(|mut e| {
            if e.stage.is_none() {
                e.stage = Some(index);
                // Inside a stage, the key is the stage's own.
                if e.key.as_deref() == Some("stage") {
                    e.key = None;
                }
            }
            e
        })
    }
}

/// The entries of a table; an error in a value is placed at its key.
struct Entries {
    entries: toml::map::IntoIter,
    value: Option<(String, Value)>,
}

impl Entries {
    fn new(table: toml::Table) -> Entries {
        Entries {
            entries: table.into_iter(),
            value: None,
        }
    }
}

impl<'de> de::MapAccess<'de> for Entries {
    type Error = ReadError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, ReadError> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        let k = seed.deserialize(key.as_str().into_deserializer())?;
        self.value = Some((key, value));
        Ok(Some(k))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, ReadError> {
        let Some((key, value)) = self.value.take() else {
            return Err(de::Error::custom("a value without its key"));
        };
        seed.deserialize(Reader(value))
            .map_err(|e| if e.stage.is_some() { e } else { e.at_key(&key) })
    }
}

/// A table tagged by its `op` key: the variant, then its fields.
struct Tagged {
    op: String,
    table: toml::Table,
}

impl<'de> de::EnumAccess<'de> for Tagged {
    type Error = ReadError;
    type Variant = Fields;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Fields), ReadError> {
        let variant = seed
            .deserialize(self.op.as_str().into_deserializer())
            .map_err(|e: ReadError| e.at_key("op"))?;
        Ok((variant, Fields(self.table)))
    }
}

/// The fields of a tagged table (its `op` key removed).
struct Fields(toml::Table);

impl<'de> de::VariantAccess<'de> for Fields {
    type Error = ReadError;

    fn unit_variant(self) -> Result<(), ReadError> {
        check_keys(&self.0, &["op"])
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, ReadError> {
        seed.deserialize(Reader(Value::Table(self.0)))
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        Err(Reader(Value::Table(self.0)).wrong(&visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        let known: Vec<&'static str> = std::iter::once("op")
            .chain(fields.iter().copied())
            .collect();
        check_keys(&self.0, &known)?;
        visitor.visit_map(Entries::new(self.0))
    }
}
