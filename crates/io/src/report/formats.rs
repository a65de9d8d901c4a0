//! The table of every number format and its constants, as `npusim formats` prints it.

use npusim_numerics::{FORMATS, Format, Kind};

use super::table::{row_text, widths};

/// A value for the table: integers exactly, powers of two as `2^k` when that is shorter,
/// otherwise the shortest round-trip decimal.
fn number(v: f64) -> String {
    if v == 0.0 {
        return "0".to_string();
    }
    if v.fract() == 0.0 && v.abs() < 1e7 {
        return format!("{v}");
    }
    let (m, e) = (v.abs().log2().round() as i32, v.is_sign_negative());
    if 2f64.powi(m) == v.abs() && m.abs() > 4 {
        return format!("{}2^{m}", if e { "-" } else { "" });
    }
    if (1e-4..1e7).contains(&v.abs()) {
        return format!("{v}");
    }
    format!("{v:e}")
}

/// The largest finite value of an integer format, exactly (f64 cannot hold i64::MAX).
fn int_max(f: Format) -> String {
    let bits = f.bits();
    if f.is_signed() {
        ((1i128 << (bits - 1)) - 1).to_string()
    } else {
        ((1i128 << bits) - 1).to_string()
    }
}

/// The smallest positive value, computed from the exponent for binary formats (`f64`'s
/// 2^-1074 is beyond what `powi` reaches at run time, which gives 0).
fn min_positive(f: Format) -> String {
    match f.kind() {
        Kind::Binary(b) => {
            let k = if b.has_subnormals() {
                b.emin() - b.man_bits as i32
            } else {
                b.emin()
            };
            if k.abs() > 4 {
                format!("2^{k}")
            } else {
                number(2f64.powi(k))
            }
        }
        _ => number(f.min_positive()),
    }
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "-" }
}

/// The rows of the table, header first.
pub fn table() -> Vec<[String; 12]> {
    let mut rows = vec![
        [
            "name",
            "bits",
            "exp",
            "man",
            "bias",
            "max finite",
            "min normal",
            "min positive",
            "Inf",
            "NaN",
            "-0",
            "aliases",
        ]
        .map(str::to_string),
    ];
    for info in &FORMATS {
        let f = info.format;
        let opt = |x: Option<i64>| x.map_or("-".to_string(), |v| v.to_string());
        let (max, min_normal) = if f.is_int() {
            (int_max(f), "-".to_string())
        } else {
            (number(f.max_finite()), number(f.min_normal()))
        };
        rows.push([
            info.name.to_string(),
            info.bits.to_string(),
            opt(f.exp_bits().map(i64::from)),
            opt(f.man_bits().map(i64::from)),
            opt(f.bias().map(i64::from)),
            max,
            min_normal,
            min_positive(f),
            yes(f.has_inf()).to_string(),
            yes(f.has_nan()).to_string(),
            yes(f.has_negative_zero()).to_string(),
            info.aliases.join(" "),
        ]);
    }
    rows
}

/// The table as text: a header, one row per format (with its one-line description under it
/// when `long`), then notes on the columns and the names.
pub fn formats_text(long: bool) -> String {
    let rows = table();
    let widths = widths(&rows);
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        out.push_str(&row_text(row, &widths, |k| (1..=4).contains(&k)));
        out.push('\n');
        if long && i > 0 {
            out.push_str(&format!("    {}\n", FORMATS[i - 1].summary));
        }
    }
    out.push_str("\nexp/man: exponent and mantissa field widths; hif8's widths vary with the value (tapered).\n");
    out.push_str("Names are case-insensitive; np., numpy., ml_dtypes., jnp. and torch. prefixes are accepted.\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_every_format_and_exact_constants() {
        let rows = table();
        assert_eq!(rows.len(), Format::ALL.len() + 1);
        let f16 = rows.iter().find(|r| r[0] == "f16").unwrap();
        assert_eq!(f16[5], "65504");
        assert_eq!(f16[6], "2^-14");
        assert_eq!(f16[7], "2^-24");
        let f64_row = rows.iter().find(|r| r[0] == "f64").unwrap();
        assert_eq!(f64_row[7], "2^-1074");
        let i64_row = rows.iter().find(|r| r[0] == "i64").unwrap();
        assert_eq!(i64_row[5], "9223372036854775807");
        assert_eq!(number(448.0), "448");
        assert_eq!(number(0.015625), "2^-6");
        assert_eq!(number(0.25), "0.25");
    }
}
