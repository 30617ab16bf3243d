//! Mahjong under the Macau statute (order 135/91/M): tiles and tile sets of both games.

pub mod tiles;
