//! Mahjong under the Macau statute (order 135/91/M): tiles and tile sets of both games,
//! complete-hand decomposition, exhaustive enumeration of complete hands, and the wall and deal.

pub mod decompose;
pub mod enumerate;
pub mod tiles;
