//! Complete hands (Art. 4): every way to read a tile multiset as sets and a pair, Thirteen
//! Orphans (Art. 6), and hands with declared melds (exposed chows, pungs and kongs, concealed
//! kongs; Art. 5).
//!
//! Scoring can depend on the decomposition (111 222 333 is three pungs or three chows), so
//! [`decompositions`] returns all of them, each exactly once. [`signature`] condenses one
//! decomposition into the tile-only facts the fan rules of Art. 6 read; the rules themselves
//! (which fact is worth what, under which seat and round wind) live in the Python rules engine.

use std::fmt;

use super::tiles::{self, TileError, TileSet, TILE_TYPES};

/// What kind of set (Art. 4: three identical tiles, or three consecutive tiles of one suit;
/// Art. 5(5): a kong of four identical tiles counts as one set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SetKind {
    Chow,
    Pung,
    Kong,
}

/// One set: its kind, its lowest tile, and whether it was declared (exposed) on the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Meld {
    pub kind: SetKind,
    pub tile: u8,
    pub exposed: bool,
}

impl Meld {
    /// The tiles of this set.
    #[must_use]
    pub fn tiles(&self) -> Vec<u8> {
        match self.kind {
            SetKind::Chow => vec![self.tile, self.tile + 1, self.tile + 2],
            SetKind::Pung => vec![self.tile; 3],
            SetKind::Kong => vec![self.tile; 4],
        }
    }

    /// Check that the set exists (a chow needs three consecutive tiles of one suit).
    pub fn check(&self, set: TileSet) -> Result<(), HandError> {
        if !set.contains(self.tile) {
            return Err(HandError::Tile(TileError::NotInSet {
                tile: self.tile,
                set,
            }));
        }
        if self.kind == SetKind::Chow && !chow_starts(self.tile) {
            return Err(HandError::BadChow(self.tile));
        }
        Ok(())
    }
}

/// Whether a chow can start at this tile (a suited 1..=7).
#[inline]
#[must_use]
pub const fn chow_starts(tile: u8) -> bool {
    tile < 27 && tile % 9 <= 6
}

/// One reading of a complete hand: the pair and the sets (concealed sets first, in tile order,
/// then the declared melds as given).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Decomposition {
    pub pair: u8,
    pub sets: Vec<Meld>,
}

/// Why a hand is not a valid hand to score.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandError {
    Tile(TileError),
    /// Concealed tiles + declared melds do not make the hand size of the game.
    WrongSize {
        concealed: usize,
        melds: usize,
        expected: usize,
    },
    BadChow(u8),
    TooManyMelds {
        melds: usize,
        sets: usize,
    },
}

impl From<TileError> for HandError {
    fn from(err: TileError) -> Self {
        HandError::Tile(err)
    }
}

impl fmt::Display for HandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandError::Tile(err) => err.fmt(f),
            HandError::WrongSize {
                concealed,
                melds,
                expected,
            } => write!(
                f,
                "a winning hand with {melds} declared meld(s) needs {expected} concealed tiles \
                 (sets of 3 and a pair, Art. 4), got {concealed}"
            ),
            HandError::BadChow(t) => write!(
                f,
                "no chow starts at {}: a chow is three consecutive tiles of one suit",
                tiles::code(*t)
            ),
            HandError::TooManyMelds { melds, sets } => {
                write!(
                    f,
                    "{melds} declared melds, but a winning hand has only {sets} sets"
                )
            }
        }
    }
}

impl std::error::Error for HandError {}

/// Every decomposition of `counts` into exactly `sets` concealed sets (chows or pungs) and one
/// pair, each exactly once. Empty if the multiset is not complete.
#[must_use]
pub fn decompositions(counts: &[u8; TILE_TYPES], sets: usize) -> Vec<Decomposition> {
    readings(counts, sets, true)
        .into_iter()
        .map(|(pair, sets)| Decomposition {
            pair: pair.expect("readings with a pair"),
            sets,
        })
        .collect()
}

/// Every reading of `counts` as exactly `sets` sets, with one pair if `with_pair` (else none).
#[must_use]
pub fn readings(
    counts: &[u8; TILE_TYPES],
    sets: usize,
    with_pair: bool,
) -> Vec<(Option<u8>, Vec<Meld>)> {
    let total: usize = counts.iter().map(|&c| c as usize).sum();
    let mut out = Vec::new();
    if total != 3 * sets + 2 * usize::from(with_pair) {
        return out;
    }
    let mut work = *counts;
    let mut walk = Walk {
        counts: &mut work,
        with_pair,
        current: Vec::with_capacity(sets),
        out: &mut out,
    };
    walk.step(0, None);
    out
}

/// Depth-first over tile types: at the lowest tile left, choose how many of its copies go to
/// the pair (0 or 1 pair), to a pung (0 or 1) and the rest to chows starting there. Deciding a
/// tile's whole use at once makes each decomposition appear exactly once.
struct Walk<'a> {
    counts: &'a mut [u8; TILE_TYPES],
    with_pair: bool,
    current: Vec<Meld>,
    out: &'a mut Vec<(Option<u8>, Vec<Meld>)>,
}

impl Walk<'_> {
    fn step(&mut self, from: usize, pair: Option<u8>) {
        let Some(t) = (from..TILE_TYPES).find(|&t| self.counts[t] > 0) else {
            if pair.is_some() == self.with_pair {
                self.out.push((pair, self.current.clone()));
            }
            return;
        };
        let c = self.counts[t];
        for use_pair in [false, true] {
            if use_pair && (!self.with_pair || pair.is_some() || c < 2) {
                continue;
            }
            for use_pung in [false, true] {
                let used = 2 * u8::from(use_pair) + 3 * u8::from(use_pung);
                if used > c {
                    continue;
                }
                let chows = c - used;
                if chows > 0
                    && !(chow_starts(t as u8)
                        && self.counts[t + 1] >= chows
                        && self.counts[t + 2] >= chows)
                {
                    continue;
                }
                self.take(t, chows, use_pung, use_pair, pair);
            }
        }
    }

    fn take(&mut self, t: usize, chows: u8, pung: bool, use_pair: bool, pair: Option<u8>) {
        let c = self.counts[t];
        let depth = self.current.len();
        self.counts[t] = 0;
        if chows > 0 {
            self.counts[t + 1] -= chows;
            self.counts[t + 2] -= chows;
        }
        let meld = |kind| Meld {
            kind,
            tile: t as u8,
            exposed: false,
        };
        if pung {
            self.current.push(meld(SetKind::Pung));
        }
        for _ in 0..chows {
            self.current.push(meld(SetKind::Chow));
        }
        self.step(t + 1, if use_pair { Some(t as u8) } else { pair });
        self.current.truncate(depth);
        self.counts[t] = c;
        if chows > 0 {
            self.counts[t + 1] += chows;
            self.counts[t + 2] += chows;
        }
    }
}

/// The thirteen orphans: 1 and 9 of each suit, each wind and each dragon.
pub const ORPHANS: [u8; 13] = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33];

/// Thirteen Orphans (十三么, Art. 6 (甲)(3)): one of each orphan plus one more of them.
#[must_use]
pub fn is_thirteen_orphans(counts: &[u8; TILE_TYPES]) -> bool {
    let total: u32 = counts.iter().map(|&c| u32::from(c)).sum();
    total == 14
        && ORPHANS.iter().all(|&t| counts[t as usize] >= 1)
        && ORPHANS
            .iter()
            .map(|&t| u32::from(counts[t as usize]))
            .sum::<u32>()
            == 14
}

/// A hand to score: concealed tiles (including the winning tile) and declared melds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hand {
    pub concealed: [u8; TILE_TYPES],
    pub melds: Vec<Meld>,
}

impl Hand {
    /// Build and check a hand of `set`'s game: at most four of each tile over concealed tiles
    /// and melds, and exactly enough concealed tiles for the remaining sets and the pair.
    pub fn new(concealed: &[u8], melds: Vec<Meld>, set: TileSet) -> Result<Hand, HandError> {
        let sets = sets_in_win(set);
        for m in &melds {
            m.check(set)?;
        }
        if melds.len() > sets {
            return Err(HandError::TooManyMelds {
                melds: melds.len(),
                sets,
            });
        }
        let expected = 3 * (sets - melds.len()) + 2;
        if concealed.len() != expected {
            return Err(HandError::WrongSize {
                concealed: concealed.len(),
                melds: melds.len(),
                expected,
            });
        }
        let all: Vec<u8> = concealed
            .iter()
            .copied()
            .chain(melds.iter().flat_map(Meld::tiles))
            .collect();
        tiles::counts(&all, set)?;
        Ok(Hand {
            concealed: tiles::counts(concealed, set)?,
            melds,
        })
    }

    /// Every decomposition, with the declared melds appended to each.
    #[must_use]
    pub fn decompositions(&self, set: TileSet) -> Vec<Decomposition> {
        let mut out = decompositions(&self.concealed, sets_in_win(set) - self.melds.len());
        for d in &mut out {
            d.sets.extend(self.melds.iter().copied());
        }
        out
    }

    /// Thirteen Orphans needs all fourteen tiles concealed.
    #[must_use]
    pub fn is_thirteen_orphans(&self, set: TileSet) -> bool {
        set == TileSet::Traditional && self.melds.is_empty() && is_thirteen_orphans(&self.concealed)
    }
}

/// Sets in a winning hand: four in the traditional game, one in the simple game (Art. 4).
#[must_use]
pub const fn sets_in_win(set: TileSet) -> usize {
    match set {
        TileSet::Traditional => 4,
        TileSet::Simple => 1,
    }
}

/// Bits of a decomposition [`signature`]: the tile-only facts the fan rules read.
pub mod sig {
    /// Bits 0..=2: which suits occur (characters, dots, bamboo).
    pub const SUITS: u32 = 0b111;
    pub const HONOURS: u32 = 1 << 3;
    /// Every tile is a 1, a 9 or an honour.
    pub const TERMINALS_HONOURS_ONLY: u32 = 1 << 4;
    pub const ALL_PUNGS: u32 = 1 << 5;
    pub const ALL_CHOWS: u32 = 1 << 6;
    pub const THIRTEEN_ORPHANS: u32 = 1 << 7;
    /// No declared meld is exposed (concealed kongs keep a hand concealed).
    pub const CONCEALED: u32 = 1 << 8;
    /// Bits 9..=15: pungs or kongs of E S W N Rd Gd Wd.
    pub const HONOUR_PUNG_SHIFT: u32 = 9;
    /// Bits 16..=21: the pair's tile (34 for Thirteen Orphans, which has no sets).
    pub const PAIR_SHIFT: u32 = 16;
    pub const PAIR_MASK: u32 = 0x3f;
    /// Every set and the pair holds a 1, a 9 or an honour (the broad reading of 混么).
    pub const OUTSIDE: u32 = 1 << 22;
}

/// The facts of part of a hand, before they are combined: bits that hold if they hold for
/// some part (`any`) and bits that hold only if they hold for every part (`all`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PartialSignature {
    pub any: u32,
    pub all: u32,
}

/// The [`sig`] bits that must hold for every part of a hand.
const ALL_BITS: u32 =
    sig::TERMINALS_HONOURS_ONLY | sig::ALL_PUNGS | sig::ALL_CHOWS | sig::CONCEALED | sig::OUTSIDE;

impl PartialSignature {
    /// The facts of no tiles at all.
    pub const EMPTY: PartialSignature = PartialSignature {
        any: 0,
        all: ALL_BITS,
    };

    /// The facts of some sets and perhaps the pair.
    #[must_use]
    pub fn of(pair: Option<u8>, sets: &[Meld]) -> PartialSignature {
        let mut any = 0u32;
        let mut all = ALL_BITS;
        let mut tile_facts = |t: u8| {
            match tiles::suit(t) {
                Some(suit) => any |= 1 << suit,
                None => any |= sig::HONOURS,
            }
            if !(tiles::is_terminal(t) || tiles::is_honour(t)) {
                all &= !sig::TERMINALS_HONOURS_ONLY;
            }
        };
        if let Some(p) = pair {
            tile_facts(p);
        }
        for m in sets {
            tile_facts(m.tile);
            if m.kind == SetKind::Chow {
                tile_facts(m.tile + 2);
            }
        }
        if let Some(p) = pair {
            any |= u32::from(p) << sig::PAIR_SHIFT;
            if !outside(p) {
                all &= !sig::OUTSIDE;
            }
        }
        for m in sets {
            let last = if m.kind == SetKind::Chow {
                m.tile + 2
            } else {
                m.tile
            };
            if !(outside(m.tile) || outside(last)) {
                all &= !sig::OUTSIDE;
            }
            if m.exposed {
                all &= !sig::CONCEALED;
            }
            if m.kind == SetKind::Chow {
                all &= !sig::ALL_PUNGS;
            } else {
                all &= !sig::ALL_CHOWS;
                if tiles::is_honour(m.tile) {
                    any |= 1 << (sig::HONOUR_PUNG_SHIFT + u32::from(m.tile - 27));
                }
            }
        }
        PartialSignature { any, all }
    }

    /// The facts of two parts together.
    #[inline]
    #[must_use]
    pub fn join(self, other: PartialSignature) -> PartialSignature {
        PartialSignature {
            any: self.any | other.any,
            all: self.all & other.all,
        }
    }

    /// The signature of a whole hand made of the parts joined so far.
    #[inline]
    #[must_use]
    pub fn finish(self) -> u32 {
        self.any | self.all
    }
}

/// A 1, a 9 or an honour.
fn outside(tile: u8) -> bool {
    tiles::is_terminal(tile) || tiles::is_honour(tile)
}

/// Condense one decomposition into a `u32` of [`sig`] bits.
#[must_use]
pub fn signature(pair: u8, sets: &[Meld]) -> u32 {
    PartialSignature::of(Some(pair), sets).finish()
}

/// The signature of a Thirteen Orphans hand: one suits-and-honours, terminals-only, concealed
/// hand with no sets.
#[must_use]
pub fn thirteen_orphans_signature() -> u32 {
    sig::SUITS
        | sig::HONOURS
        | sig::TERMINALS_HONOURS_ONLY
        | sig::THIRTEEN_ORPHANS
        | sig::CONCEALED
        | sig::OUTSIDE
        | (34 << sig::PAIR_SHIFT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts_of(text: &str) -> [u8; TILE_TYPES] {
        tiles::counts(&tiles::parse_tiles(text).unwrap(), TileSet::Traditional).unwrap()
    }

    #[test]
    fn triple_sequences_read_two_ways() {
        let d = decompositions(&counts_of("1m 1m 1m 2m 2m 2m 3m 3m 3m 5p 6p 7p E E"), 4);
        assert_eq!(d.len(), 2);
        assert!(d.iter().all(|x| x.pair == 27));
    }

    #[test]
    fn pure_nine_gates_shape_has_many_readings() {
        // 1112345678999 + 5: pair 11 with 123 456 789 999? No: count each reading once.
        let d = decompositions(&counts_of("1m 1m 1m 2m 3m 4m 5m 5m 6m 7m 8m 9m 9m 9m"), 4);
        let mut seen = d.clone();
        seen.sort_by_key(|x| format!("{x:?}"));
        seen.dedup();
        assert_eq!(seen.len(), d.len());
        assert!(!d.is_empty());
    }

    #[test]
    fn incomplete_hands_have_none() {
        assert!(decompositions(&counts_of("1m 2m 4m 5p 6p 7p E E E S S S W W"), 4).is_empty());
        assert!(decompositions(&counts_of("1m 2m 3m E E"), 4).is_empty());
    }

    #[test]
    fn thirteen_orphans() {
        assert!(is_thirteen_orphans(&counts_of(
            "1m 9m 1p 9p 1s 9s E S W N Rd Gd Wd Wd"
        )));
        assert!(!is_thirteen_orphans(&counts_of(
            "1m 9m 1p 9p 1s 9s E S W N Rd Gd Wd 5m"
        )));
    }

    #[test]
    fn outside_bit_needs_a_terminal_or_honour_in_every_group() {
        let of = |text: &str| {
            let d = decompositions(&counts_of(text), 4);
            assert_eq!(d.len(), 1, "{text}");
            signature(d[0].pair, &d[0].sets) & sig::OUTSIDE
        };
        assert_ne!(of("1m 2m 3m 7p 8p 9p 9s 9s 9s E E E Rd Rd"), 0);
        assert_eq!(of("2m 3m 4m 7p 8p 9p 9s 9s 9s E E E Rd Rd"), 0);
        assert_eq!(of("1m 2m 3m 7p 8p 9p 9s 9s 9s E E E 5s 5s"), 0);
        assert_ne!(thirteen_orphans_signature() & sig::OUTSIDE, 0);
    }

    #[test]
    fn hand_sizes_are_checked() {
        let tiles13 = tiles::parse_tiles("1m 2m 3m 4m 5m 6m 7m 8m 9m E E E S").unwrap();
        let err = Hand::new(&tiles13, vec![], TileSet::Traditional).unwrap_err();
        assert!(err.to_string().contains("needs 14 concealed tiles"));
        let kong = Meld {
            kind: SetKind::Kong,
            tile: 27,
            exposed: true,
        };
        let rest = tiles::parse_tiles("1m 2m 3m 4m 5m 6m 7m 8m 9m S S").unwrap();
        let hand = Hand::new(&rest, vec![kong], TileSet::Traditional).unwrap();
        let d = hand.decompositions(TileSet::Traditional);
        assert_eq!(d.len(), 1);
        let s = signature(d[0].pair, &d[0].sets);
        assert_eq!(s & sig::CONCEALED, 0);
        assert_ne!(s & (1 << sig::HONOUR_PUNG_SHIFT), 0);
        let five = Hand::new(&rest, vec![kong, kong], TileSet::Traditional).unwrap_err();
        assert!(five.to_string().contains("needs 8"), "{five}");
    }
}
