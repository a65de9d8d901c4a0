//! Reports of whole-file jobs as text and JSON, shared by the command line and the Python
//! package: a cast's error statistics, a quantisation's error and block statistics, the
//! format table, what a file holds, and the plain text tables they are printed in.

pub mod cast;
pub mod formats;
pub mod info;
pub mod quantize;
pub mod table;
