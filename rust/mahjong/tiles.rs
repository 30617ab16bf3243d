//! Mahjong tiles, their codes, and the two statute tile sets (Art. 2(2)).
//!
//! A tile type is a `u8` id: characters 1-9 are 0..=8, dots 1-9 are 9..=17, bamboo 1-9 are
//! 18..=26, the winds East, South, West, North 27..=30, the dragons red (中), green (發) and
//! white (白) 31..=33. Canonical codes: `1m`..`9m`, `1p`..`9p`, `1s`..`9s`, `E S W N`,
//! `Rd Gd Wd`. Parsing is liberal in spelling (Chinese names, other common letters) and strict
//! in meaning.

use std::fmt;

pub const TILE_TYPES: usize = 34;
pub const COPIES: u8 = 4;
pub const EAST: u8 = 27;
pub const RED_DRAGON: u8 = 31;
pub const GREEN_DRAGON: u8 = 32;
pub const WHITE_DRAGON: u8 = 33;

/// The statute's two tile sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileSet {
    /// (甲) traditional: 136 tiles, four of each of 34 types.
    Traditional,
    /// (乙) simple: 112 tiles, the three suits and the green dragon (發), four of each.
    Simple,
}

impl TileSet {
    /// The tile types of this set, in id order.
    #[must_use]
    pub fn types(self) -> Vec<u8> {
        match self {
            TileSet::Traditional => (0..TILE_TYPES as u8).collect(),
            TileSet::Simple => (0..27).chain(std::iter::once(GREEN_DRAGON)).collect(),
        }
    }

    #[must_use]
    pub fn contains(self, tile: u8) -> bool {
        match self {
            TileSet::Traditional => (tile as usize) < TILE_TYPES,
            TileSet::Simple => tile < 27 || tile == GREEN_DRAGON,
        }
    }

    /// Number of physical tiles.
    #[must_use]
    pub fn size(self) -> usize {
        self.types().len() * COPIES as usize
    }
}

/// The suit of a suited tile (0 characters, 1 dots, 2 bamboo), or `None` for honours.
#[inline]
#[must_use]
pub const fn suit(tile: u8) -> Option<u8> {
    if tile < 27 {
        Some(tile / 9)
    } else {
        None
    }
}

/// The number 1..=9 of a suited tile.
#[inline]
#[must_use]
pub const fn number(tile: u8) -> Option<u8> {
    if tile < 27 {
        Some(tile % 9 + 1)
    } else {
        None
    }
}

#[inline]
#[must_use]
pub const fn is_honour(tile: u8) -> bool {
    tile >= 27
}

#[inline]
#[must_use]
pub const fn is_terminal(tile: u8) -> bool {
    tile < 27 && (tile.is_multiple_of(9) || tile % 9 == 8)
}

#[inline]
#[must_use]
pub const fn is_dragon(tile: u8) -> bool {
    tile >= RED_DRAGON && tile <= WHITE_DRAGON
}

#[inline]
#[must_use]
pub const fn is_wind(tile: u8) -> bool {
    tile >= EAST && tile < RED_DRAGON
}

/// Why a tile or a set of tiles could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TileError {
    UnknownTile(String),
    OutOfRange(u32),
    NotInSet { tile: u8, set: TileSet },
    TooMany { tile: u8, count: usize },
}

impl fmt::Display for TileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TileError::UnknownTile(code) => write!(
                f,
                "unknown tile code {code:?}: expected 1m..9m, 1p..9p, 1s..9s, E S W N, Rd Gd Wd \
                 (or 一萬, 五筒, 九索, 東, 中, 發, 白 ...)"
            ),
            TileError::OutOfRange(id) => write!(f, "tile id {id} is out of range 0..33"),
            TileError::NotInSet { tile, set } => {
                write!(f, "tile {} is not in the {set:?} tile set", code(*tile))
            }
            TileError::TooMany { tile, count } => {
                write!(
                    f,
                    "{count} copies of {}: a set has only 4 of each tile",
                    code(*tile)
                )
            }
        }
    }
}

impl std::error::Error for TileError {}

const HONOUR_CODES: [&str; 7] = ["E", "S", "W", "N", "Rd", "Gd", "Wd"];

/// The canonical code of a tile type.
#[must_use]
pub fn code(tile: u8) -> String {
    match (number(tile), suit(tile)) {
        (Some(n), Some(s)) => format!("{n}{}", ['m', 'p', 's'][s as usize]),
        _ => HONOUR_CODES
            .get((tile as usize).wrapping_sub(27))
            .map_or_else(|| format!("?{tile}"), |c| (*c).to_string()),
    }
}

fn honour_of(text: &str) -> Option<u8> {
    let t = match text {
        "E" | "e" | "Ew" | "EW" | "东" | "東" | "东风" | "東風" => 27,
        "S" | "s" | "Sw" | "SW" | "南" | "南风" | "南風" => 28,
        "W" | "w" | "Ww" | "WW" | "西" | "西风" | "西風" => 29,
        "N" | "n" | "Nw" | "NW" | "北" | "北风" | "北風" => 30,
        "Rd" | "RD" | "rd" | "C" | "c" | "中" | "红中" | "紅中" => 31,
        "Gd" | "GD" | "gd" | "F" | "f" | "發" | "发" | "发财" | "發財" => 32,
        "Wd" | "WD" | "wd" | "P" | "p" | "B" | "白" | "白板" => 33,
        _ => return None,
    };
    Some(t)
}

fn suit_of(text: &str) -> Option<u8> {
    let s = match text {
        "m" | "M" | "c" | "C" | "万" | "萬" | "万子" | "萬子" => 0,
        "p" | "P" | "d" | "D" | "筒" | "筒子" | "饼" | "餅" => 1,
        "s" | "S" | "b" | "B" | "索" | "索子" | "条" | "條" => 2,
        _ => return None,
    };
    Some(s)
}

fn number_of(c: char) -> Option<u8> {
    let n = match c {
        '1'..='9' => c as u8 - b'0',
        '一' => 1,
        '二' => 2,
        '三' => 3,
        '四' => 4,
        '五' => 5,
        '六' => 6,
        '七' => 7,
        '八' => 8,
        '九' => 9,
        _ => return None,
    };
    Some(n)
}

/// Parse one tile code.
pub fn parse_tile(token: &str) -> Result<u8, TileError> {
    let token = token.trim();
    if let Some(t) = honour_of(token) {
        return Ok(t);
    }
    let mut chars = token.chars();
    if let Some(n) = chars.next().and_then(number_of) {
        if let Some(s) = suit_of(chars.as_str()) {
            return Ok(s * 9 + n - 1);
        }
    }
    Err(TileError::UnknownTile(token.to_string()))
}

/// Parse tiles separated by spaces or commas; the result is in the order given.
pub fn parse_tiles(text: &str) -> Result<Vec<u8>, TileError> {
    text.split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .filter(|t| !t.is_empty())
        .map(parse_tile)
        .collect()
}

/// Count tiles by type, checking that each is in `set` and appears at most four times.
pub fn counts(tiles: &[u8], set: TileSet) -> Result<[u8; TILE_TYPES], TileError> {
    let mut counts = [0u8; TILE_TYPES];
    for &t in tiles {
        if t as usize >= TILE_TYPES {
            return Err(TileError::OutOfRange(u32::from(t)));
        }
        if !set.contains(t) {
            return Err(TileError::NotInSet { tile: t, set });
        }
        counts[t as usize] += 1;
        if counts[t as usize] > COPIES {
            return Err(TileError::TooMany {
                tile: t,
                count: counts[t as usize] as usize,
            });
        }
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for t in 0..TILE_TYPES as u8 {
            assert_eq!(parse_tile(&code(t)).unwrap(), t);
        }
        assert_eq!(code(0), "1m");
        assert_eq!(code(26), "9s");
        assert_eq!(code(GREEN_DRAGON), "Gd");
    }

    #[test]
    fn liberal_spellings() {
        assert_eq!(
            parse_tiles("一萬 五筒 九索 東 中 發 白").unwrap(),
            vec![0, 13, 26, 27, 31, 32, 33]
        );
        assert_eq!(parse_tiles("1c,5d,9b").unwrap(), vec![0, 13, 26]);
    }

    #[test]
    fn tile_sets() {
        assert_eq!(TileSet::Traditional.size(), 136);
        assert_eq!(TileSet::Simple.size(), 112);
        assert!(!TileSet::Simple.contains(RED_DRAGON));
        assert!(TileSet::Simple.contains(GREEN_DRAGON));
    }

    #[test]
    fn bad_tiles_are_named() {
        assert!(parse_tile("0m").unwrap_err().to_string().contains("\"0m\""));
        let five = parse_tiles("1m 1m 1m 1m 1m").unwrap();
        assert_eq!(
            counts(&five, TileSet::Traditional),
            Err(TileError::TooMany { tile: 0, count: 5 })
        );
        assert_eq!(
            counts(&[RED_DRAGON], TileSet::Simple),
            Err(TileError::NotInSet {
                tile: RED_DRAGON,
                set: TileSet::Simple
            })
        );
    }
}
