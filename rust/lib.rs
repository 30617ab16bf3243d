//! tablecert's exact core: statute hand orderings, exhaustive enumeration and the hot loops of
//! every analysis. Nothing outside `bindings/` knows about Python.

pub mod cards;
pub mod compact;
pub mod cpu;
pub mod enumerate;
pub mod games;
pub mod logs;
pub mod lookup;
pub mod mahjong;
pub mod nist;
pub mod order_check;
pub mod rank3;
pub mod rank4;
pub mod rank5;
pub mod ranking;
pub mod rounds;
pub mod shuffler;

#[cfg(feature = "python")]
mod bindings;
