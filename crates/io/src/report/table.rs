//! Text tables: columns padded to their widest cell, numbers right-aligned.

/// One row as text: each cell padded to its column's width (`right(column)`: right-aligned),
/// two spaces between columns, no trailing spaces.
pub fn row_text<S: AsRef<str>>(
    cells: &[S],
    widths: &[usize],
    right: impl Fn(usize) -> bool,
) -> String {
    let mut line = String::new();
    for (c, (cell, w)) in cells.iter().zip(widths).enumerate() {
        let cell = cell.as_ref();
        let pad = " ".repeat(w.saturating_sub(cell.chars().count()));
        if right(c) {
            line.push_str(&pad);
            line.push_str(cell);
        } else {
            line.push_str(cell);
            line.push_str(&pad);
        }
        line.push_str("  ");
    }
    line.truncate(line.trim_end().len());
    line
}

/// The widths of the columns of `rows`: each its widest cell.
pub fn widths<const N: usize, S: AsRef<str>>(rows: &[[S; N]]) -> [usize; N] {
    let mut widths = [0; N];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.as_ref().chars().count());
        }
    }
    widths
}

/// The rows of a table as aligned text, one line each; columns from `right_from` on are
/// right-aligned (numbers).
pub fn align<const N: usize>(rows: &[[String; N]], right_from: usize) -> String {
    let widths = widths(rows);
    rows.iter()
        .map(|r| row_text(r, &widths, |c| c >= right_from) + "\n")
        .collect()
}
