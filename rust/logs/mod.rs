//! Logs as bytes and records, shared by the shuffler and round audits: `stream` reads a file
//! (plain or gzip, regular or FIFO) or a caller's chunks into pieces of whole lines, `json`
//! reads one JSON Lines record strictly. Neither knows what a record means.

pub mod json;
pub mod libdeflate;
pub mod members;
pub mod stream;
