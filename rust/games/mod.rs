//! Exact game math: every bet's return under optimal play, from exhaustive showdown counts.

pub mod caribbean;
pub mod completions;
pub mod q_poker;
pub mod showdown;
pub mod stud;
