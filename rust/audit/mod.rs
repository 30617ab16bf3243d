//! Automatic-table audits: reading round logs.

pub mod rounds;
