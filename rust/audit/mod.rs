//! Shuffler and automatic-table audits: reading captured device logs, checking every deck for
//! completeness, accumulating the battery's tallies in one streaming pass, and simulating fair
//! and faulty shufflers for power and calibration studies.

pub mod deck;
pub mod log;
pub mod rounds;
pub mod simlog;
pub mod simulate;
pub mod tally;
