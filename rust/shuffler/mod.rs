//! Shuffler and automatic-table audits: reading captured device logs, checking every deck for
//! completeness, accumulating the battery's tallies in one streaming pass, and simulating fair
//! and faulty shufflers for power and calibration studies.

pub mod deck;
pub mod guesser;
pub mod hash;
pub mod log;
pub mod repeats;
pub mod simlog;
pub mod simulate;
pub mod stats;
pub mod tally;
