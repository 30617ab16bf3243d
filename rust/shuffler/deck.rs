//! Deck kinds and the deck checker: an order is accepted only if it is exactly one complete deck.

use crate::cards;
use crate::cpu::Avx2;
use crate::mahjong::tiles::{self, TileSet};

/// What a shuffler shuffles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeckKind {
    /// 52 distinct cards (both poker games).
    Cards52,
    /// A mahjong wall: four of each tile type of the set.
    Mahjong(TileSet),
}

impl DeckKind {
    #[must_use]
    pub fn from_name(name: &str) -> Option<DeckKind> {
        match name {
            "cards52" => Some(DeckKind::Cards52),
            "mahjong136" => Some(DeckKind::Mahjong(TileSet::Traditional)),
            "mahjong112" => Some(DeckKind::Mahjong(TileSet::Simple)),
            _ => None,
        }
    }

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            DeckKind::Cards52 => "cards52",
            DeckKind::Mahjong(TileSet::Traditional) => "mahjong136",
            DeckKind::Mahjong(TileSet::Simple) => "mahjong112",
        }
    }

    /// Number of physical items in one deck or wall.
    #[must_use]
    pub fn size(self) -> usize {
        match self {
            DeckKind::Cards52 => cards::DECK_SIZE,
            DeckKind::Mahjong(set) => set.size(),
        }
    }

    /// Number of distinguishable symbols (card ids, or tile types of the set).
    #[must_use]
    pub fn symbols(self) -> usize {
        match self {
            DeckKind::Cards52 => cards::DECK_SIZE,
            DeckKind::Mahjong(set) => set.types().len(),
        }
    }

    /// Copies of each symbol in one deck.
    #[must_use]
    pub fn copies(self) -> usize {
        match self {
            DeckKind::Cards52 => 1,
            DeckKind::Mahjong(_) => tiles::COPIES as usize,
        }
    }

    /// Whether every item is distinct, so an order is a permutation.
    #[must_use]
    pub fn distinct(self) -> bool {
        self.copies() == 1
    }

    /// The code of a symbol index.
    #[must_use]
    pub fn code(self, symbol: u8) -> String {
        match self {
            DeckKind::Cards52 => cards::code(symbol),
            DeckKind::Mahjong(set) => tiles::code(set.types()[symbol as usize]),
        }
    }

    /// The symbol of physical item `item` (0..size) in a sorted deck.
    #[must_use]
    pub fn symbol_of_item(self, item: usize) -> u8 {
        (item / self.copies()) as u8
    }

    fn parse_token(self, token: &str, out: &mut Vec<u8>) -> Result<(), String> {
        match self {
            DeckKind::Cards52 => {
                if let Some(c) = fast_card(token.as_bytes()) {
                    out.push(c);
                    Ok(())
                } else {
                    // Unicode suits or codes written together ("AsKh"): the card core's parser.
                    let run = cards::parse_hand(token).map_err(|e| e.to_string())?;
                    out.extend(run);
                    Ok(())
                }
            }
            DeckKind::Mahjong(set) => {
                let t = tiles::parse_tile(token).map_err(|e| e.to_string())?;
                match set.types().iter().position(|&x| x == t) {
                    Some(i) => {
                        out.push(i as u8);
                        Ok(())
                    }
                    None => Err(tiles::TileError::NotInSet { tile: t, set }.to_string()),
                }
            }
        }
    }

    /// Parse an order written as codes separated by spaces, commas or semicolons.
    pub fn parse_text(self, text: &str, out: &mut Vec<u8>) -> Result<(), String> {
        self.parse_text_checked(text, out).map(|_| ())
    }

    /// `parse_text`, saying whether the order is already known to be one complete deck (the
    /// usual layout of a 52-card deck is checked as it is read); `false` leaves the check to
    /// `check_complete`. Always inlined: the log reader compiles its parse with the CPU's
    /// instructions (`Parsed::read_native`), and this is most of it.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub fn parse_text_checked(self, text: &str, out: &mut Vec<u8>) -> Result<bool, String> {
        out.clear();
        if self == DeckKind::Cards52 {
            if let Some((deck, complete)) = fixed_width_deck(text.as_bytes()) {
                out.extend_from_slice(&deck);
                return Ok(complete);
            }
        }
        self.parse_text_general(text, out).map(|()| false)
    }

    /// Any layout: the codes one by one.
    fn parse_text_general(self, text: &str, out: &mut Vec<u8>) -> Result<(), String> {
        if self == DeckKind::Cards52 && text.is_ascii() {
            // The same separators as below, byte by byte (ASCII has no other whitespace).
            let b = text.as_bytes();
            let mut i = 0;
            while i < b.len() {
                if SEPARATOR[b[i] as usize] {
                    i += 1;
                    continue;
                }
                // The common case first: a two-byte code and a separator (or the end).
                if i + 1 < b.len() && b.get(i + 2).is_none_or(|&c| SEPARATOR[c as usize]) {
                    let (rank, suit) = (RANK[b[i] as usize], SUIT[b[i + 1] as usize]);
                    if rank | suit != NONE {
                        out.push(cards::card(rank, suit));
                        i += 2;
                        continue;
                    }
                }
                let start = i;
                while i < b.len() && !SEPARATOR[b[i] as usize] {
                    i += 1;
                }
                match fast_card(&b[start..i]) {
                    Some(c) => out.push(c),
                    None => self.parse_token(&text[start..i], out)?,
                }
            }
            return Ok(());
        }
        for token in text.split(|c: char| c.is_whitespace() || c == ',' || c == ';') {
            if !token.is_empty() {
                self.parse_token(token, out)?;
            }
        }
        Ok(())
    }

    /// Parse an order given as a list of codes (each may itself hold several).
    pub fn parse_list<'a>(
        self,
        items: impl Iterator<Item = &'a str>,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        out.clear();
        let mut buf = Vec::new();
        for item in items {
            // The usual JSON Lines item, a two-byte 52-card code, by one table load (the
            // general path gives the same card: `parse_list_agrees_with_parse_text`).
            if let (DeckKind::Cards52, &[a, b]) = (self, item.as_bytes()) {
                let c = CODE[usize::from(u16::from_le_bytes([a, b]))];
                if c != NONE {
                    out.push(c);
                    continue;
                }
            }
            self.parse_text(item, &mut buf)?;
            out.extend_from_slice(&buf);
        }
        Ok(())
    }

    /// The deck checker: exactly `copies` of every symbol and `size` items. The error lists
    /// duplicated and missing symbols by code.
    pub fn check_complete(self, order: &[u8]) -> Result<(), String> {
        if self == DeckKind::Cards52 && order.len() == cards::DECK_SIZE {
            let seen = order.iter().fold(0u64, |m, &c| m | (1u64 << (c & 63)));
            if seen == (1u64 << cards::DECK_SIZE) - 1 {
                return Ok(());
            }
        }
        let mut count = vec![0usize; self.symbols()];
        for &s in order {
            count[s as usize] += 1;
        }
        let want = self.copies();
        if order.len() == self.size() && count.iter().all(|&c| c == want) {
            return Ok(());
        }
        let mut parts = vec![format!("{} items, expected {}", order.len(), self.size())];
        let dup: Vec<String> = (0..count.len())
            .filter(|&s| count[s] > want)
            .map(|s| format!("{}x{}", self.code(s as u8), count[s]))
            .collect();
        if !dup.is_empty() {
            parts.push(format!("duplicated {}", dup.join(" ")));
        }
        let missing: Vec<String> = (0..count.len())
            .filter(|&s| count[s] < want)
            .map(|s| {
                if want == 1 {
                    self.code(s as u8)
                } else {
                    format!("{}x{}", self.code(s as u8), want - count[s])
                }
            })
            .collect();
        if !missing.is_empty() {
            parts.push(format!("missing {}", missing.join(" ")));
        }
        Err(parts.join("; "))
    }
}

/// Tables of the fast path: separators (ASCII whitespace, comma, semicolon), and the rank and
/// suit of each code letter (`NONE` for others, with its high bit set so that `rank | suit`
/// shows either one missing).
const NONE: u8 = 0xFF;
const SEPARATOR: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = b'\t';
    while c <= b'\r' {
        t[c as usize] = true;
        c += 1;
    }
    t[b' ' as usize] = true;
    t[b',' as usize] = true;
    t[b';' as usize] = true;
    t
};
const RANK: [u8; 256] = {
    let mut t = [NONE; 256];
    let mut r = 0;
    while r < 8 {
        t[(b'2' + r) as usize] = r;
        r += 1;
    }
    let letters = [b'T', b'J', b'Q', b'K', b'A'];
    let mut k = 0;
    while k < letters.len() {
        t[letters[k] as usize] = 8 + k as u8;
        t[letters[k].to_ascii_lowercase() as usize] = 8 + k as u8;
        k += 1;
    }
    t
};
const SUIT: [u8; 256] = {
    let mut t = [NONE; 256];
    let letters = [b'd', b'c', b'h', b's'];
    let mut k = 0;
    while k < letters.len() {
        t[letters[k] as usize] = k as u8;
        t[letters[k].to_ascii_uppercase() as usize] = k as u8;
        k += 1;
    }
    t
};

/// The usual layout of a whole deck, `DECK_SIZE` two-byte codes each followed by one
/// separator but the last, read without branches on the data, with whether its cards are the
/// whole deck (each once); `None` for anything else (read by the general path, which gives the
/// same cards for this layout). On an x86-64 CPU with AVX2, read with 256-bit vectors
/// (`avx2::fixed_width_deck`, the same answer for every text; a quarter to a third of the
/// instructions).
#[inline]
fn fixed_width_deck(b: &[u8]) -> Option<([u8; cards::DECK_SIZE], bool)> {
    #[cfg(target_arch = "x86_64")]
    if Avx2::detect().is_some() {
        let b = b.try_into().ok()?;
        // SAFETY: an `Avx2` is made only on a CPU that has AVX2 (`Avx2::detect`).
        return unsafe { avx2::fixed_width_deck(b) };
    }
    fixed_width_deck_scalar(b)
}

/// `fixed_width_deck` one code at a time: the portable path, and the oracle of the vector one.
/// Not inlined on x86-64, where it is the fallback: inlined, it made `parse_text_checked` too
/// large for the log reader's parse to inline it.
#[cfg_attr(target_arch = "x86_64", inline(never))]
#[cfg_attr(not(target_arch = "x86_64"), inline)]
fn fixed_width_deck_scalar(b: &[u8]) -> Option<([u8; cards::DECK_SIZE], bool)> {
    if b.len() != 3 * cards::DECK_SIZE - 1 {
        return None;
    }
    // Each code with the separator after it (a space after the last one).
    let mut padded = [b' '; 3 * cards::DECK_SIZE];
    padded[..b.len()].copy_from_slice(b);
    let mut deck = [0u8; cards::DECK_SIZE];
    let mut missing = 0u8;
    let mut separated = true;
    let mut seen = 0u64;
    for (code, card) in padded.chunks_exact(3).zip(&mut deck) {
        let c = CODE[usize::from(u16::from_le_bytes([code[0], code[1]]))];
        missing |= c;
        separated &= SEPARATOR[code[2] as usize];
        *card = c;
        seen |= 1u64 << (c & 63);
    }
    (missing & 0x80 == 0 && separated).then_some((deck, seen == (1u64 << cards::DECK_SIZE) - 1))
}

/// The card of each two-byte code (`RANK` of the first byte, `SUIT` of the second), indexed by
/// the two bytes read as one little-endian 16-bit number; `NONE` where either is not a code.
/// One load per card instead of two and a combination.
static CODE: [u8; 1 << 16] = {
    let mut t = [NONE; 1 << 16];
    let mut i = 0;
    while i < 1 << 16 {
        let (rank, suit) = (RANK[i & 0xFF], SUIT[i >> 8]);
        if rank != NONE && suit != NONE {
            t[i] = cards::card(rank, suit);
        }
        i += 1;
    }
    t
};

/// The common two- or three-byte ASCII card codes (`As`, `10d`, `TD`) without allocating.
#[inline]
fn fast_card(b: &[u8]) -> Option<u8> {
    let (rank, suit) = match b {
        [r, s] => (
            match r.to_ascii_uppercase() {
                c @ b'2'..=b'9' => c - b'2',
                b'T' => 8,
                b'J' => 9,
                b'Q' => 10,
                b'K' => 11,
                b'A' => 12,
                _ => return None,
            },
            *s,
        ),
        [b'1', b'0', s] => (8, *s),
        _ => return None,
    };
    let suit = match suit.to_ascii_lowercase() {
        b'd' => 0,
        b'c' => 1,
        b'h' => 2,
        b's' => 3,
        _ => return None,
    };
    Some(cards::card(rank, suit))
}

/// The fixed-width deck read with 256-bit vectors. Two passes over the 155 bytes:
///
/// - **the check**, on the text as it lies (five 32-byte loads, the last overlapping): each
///   byte's class by two 16-entry look-ups, one by its low and one by its high four bits, whose
///   AND has a bit for each of eight rectangles (high-nibble set x low-nibble set) that together
///   are exactly the bytes `RANK`, `SUIT` and `SEPARATOR` accept; a byte passes if it has a class
///   bit of its position in the cell (rank, suit or separator byte);
/// - **the cards**: the rank bytes of 16 cells gathered into the low 16 bytes of a vector and
///   their suit bytes into the high 16 (a shuffle of each 16-byte half of those loads, copied
///   to both halves of a vector), then 4 x rank and suit by the same two-look-up scheme (lane by
///   lane tables: ranks in the low lane, suits in the high one), right for every byte the check
///   passed; the card is the sum of the two lanes.
///
/// Completeness: the OR of `1 << card` over the 52 cards, four 64-bit lanes at a time, as the
/// scalar read computes it. `the_vector_deck_read_is_the_scalar_one` checks every byte value
/// at every place of the text against the scalar read.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi8, _mm256_and_si256, _mm256_broadcastsi128_si256,
        _mm256_castsi256_si128, _mm256_cmpeq_epi8, _mm256_cvtepu8_epi64, _mm256_extracti128_si256,
        _mm256_loadu_si256, _mm256_min_epu8, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_set1_epi64x, _mm256_set1_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8,
        _mm256_sllv_epi64, _mm256_srli_epi16, _mm_add_epi8, _mm_and_si128, _mm_cvtsi128_si32,
        _mm_cvtsi128_si64, _mm_loadu_si128, _mm_or_si128, _mm_set1_epi8, _mm_srli_si128,
        _mm_storeu_si128, _mm_unpackhi_epi64,
    };

    use crate::cards::DECK_SIZE;

    /// The text's length: each code and a separator, but none after the last code.
    pub const LEN: usize = 3 * DECK_SIZE - 1;

    /// A 16-entry table in both 128-bit lanes (`vpshufb` looks up lane by lane).
    const fn both_lanes(t: [u8; 16]) -> [u8; 32] {
        lanes(t, t)
    }

    const fn lanes(low: [u8; 16], high: [u8; 16]) -> [u8; 32] {
        let mut v = [0u8; 32];
        let mut i = 0;
        while i < 16 {
            v[i] = low[i];
            v[16 + i] = high[i];
            i += 1;
        }
        v
    }

    /// The classes, one bit each: 0 digit ranks (high nibble 3, low 2-9), 1 `A J K` (4 or 6;
    /// 1, A, B), 2 `Q T` (5 or 7; 1, 4), 3 suits `d c h` (4 or 6; 4, 3, 8), 4 suit `s` (5 or 7;
    /// 3), 5 separators `\t`..`\r` (0; 9-D), 6 space and comma (2; 0, C), 7 semicolon (3; B).
    /// A byte with its high bit set has no class (`vpshufb` gives 0 for such an index).
    const CLASS_BY_LOW: [u8; 16] = [
        0x40, 0x06, 0x01, 0x19, 0x0D, 0x01, 0x01, 0x01, 0x09, 0x21, 0x22, 0xA2, 0x60, 0x20, 0, 0,
    ];
    const CLASS_BY_HIGH: [u8; 16] = [
        0x20, 0, 0x40, 0x81, 0x0A, 0x14, 0x0A, 0x14, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    /// The classes a byte may have by its place in its cell: rank, suit, separator.
    const CLASSES_AT: [u8; 3] = [0x07, 0x18, 0xE0];

    /// The loads of the check: every byte, the last load overlapping the one before.
    const CHECK_AT: [usize; 5] = [0, 32, 64, 96, LEN - 32];

    /// The classes each byte of the load at `at` may have.
    const fn classes_at(at: usize) -> [u8; 32] {
        let mut v = [0u8; 32];
        let mut i = 0;
        while i < 32 {
            v[i] = CLASSES_AT[(at + i) % 3];
            i += 1;
        }
        v
    }
    const CLASSES: [[u8; 32]; 5] = [
        classes_at(CHECK_AT[0]),
        classes_at(CHECK_AT[1]),
        classes_at(CHECK_AT[2]),
        classes_at(CHECK_AT[3]),
        classes_at(CHECK_AT[4]),
    ];

    /// 4 x rank (low lane) and suit (high lane) of a code letter as the sum of a look-up by its
    /// low and one by its high four bits (right for every letter `RANK` / `SUIT` accept; the
    /// others are refused by the check). Ranks: 2-9 -> 0-7 (high nibble 3), T 8, J 9, Q 10,
    /// K 11, A 12; suits: d 0, c 1, h 2, s 3.
    const VALUE_BY_LOW: [u8; 32] = lanes(
        [0, 16, 0, 4, 8, 12, 16, 20, 24, 28, 4, 12, 0, 0, 0, 0],
        [0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0],
    );
    const VALUE_BY_HIGH: [u8; 32] = lanes(
        [0, 0, 0, 0, 32, 24, 32, 24, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0],
    );

    /// The 16-byte blocks the cards are gathered from, each the half of a load of the check:
    /// 16 cells are 48 bytes, three blocks, but bytes 128-143 lie across the halves of the
    /// last (overlapping) load; the last four cells are in its high half.
    const BLOCKS: [(usize, usize); 11] = [
        (0, 0),
        (0, 16),
        (0, 32),
        (1, 48),
        (1, 64),
        (1, 80),
        (2, 96),
        (2, 112),
        (2, LEN - 32),
        (2, LEN - 16),
        (3, LEN - 16),
    ];
    /// The shuffle of the block at `at` into the 16 cells of `part`: their rank bytes to the
    /// low lane, their suit bytes to the high lane (byte `i` of a lane for cell `16 part + i`),
    /// zeros for bytes outside the block.
    const fn gather(part: usize, at: usize) -> [u8; 32] {
        let mut v = [0x80u8; 32];
        let mut i = 0;
        while i < 16 && 16 * part + i < DECK_SIZE {
            let rank = 3 * (16 * part + i);
            let mut lane = 0;
            while lane < 2 {
                if at <= rank + lane && rank + lane < at + 16 {
                    v[16 * lane + i] = (rank + lane - at) as u8;
                }
                lane += 1;
            }
            i += 1;
        }
        v
    }
    const GATHER: [[u8; 32]; BLOCKS.len()] = {
        let mut t = [[0u8; 32]; BLOCKS.len()];
        let mut k = 0;
        while k < BLOCKS.len() {
            t[k] = gather(BLOCKS[k].0, BLOCKS[k].1);
            k += 1;
        }
        t
    };

    // Every load lies inside the text.
    const _: () = {
        let mut i = 0;
        while i < CHECK_AT.len() {
            assert!(CHECK_AT[i] + 32 <= LEN);
            i += 1;
        }
        let mut k = 0;
        while k < BLOCKS.len() {
            assert!(BLOCKS[k].1 + 16 <= LEN);
            k += 1;
        }
    };

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn vector(t: &[u8; 32]) -> __m256i {
        _mm256_loadu_si256(t.as_ptr().cast())
    }

    /// `super::fixed_width_deck_scalar` of a text of `LEN` bytes (the same answer for each).
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn fixed_width_deck(b: &[u8; LEN]) -> Option<([u8; DECK_SIZE], bool)> {
        let low_nibble = _mm256_set1_epi8(0x0F);
        // The check: the lowest of the bytes' allowed classes is 0 where a byte has none.
        let mut classed = _mm256_set1_epi8(-1);
        for (&at, allowed) in CHECK_AT.iter().zip(&CLASSES) {
            // In bounds: `at + 32 <= LEN` (`CHECK_AT`).
            let x = _mm256_loadu_si256(b.as_ptr().add(at).cast());
            let high = _mm256_and_si256(_mm256_srli_epi16(x, 4), low_nibble);
            let class = _mm256_and_si256(
                _mm256_shuffle_epi8(vector(&both_lanes(CLASS_BY_LOW)), x),
                _mm256_shuffle_epi8(vector(&both_lanes(CLASS_BY_HIGH)), high),
            );
            classed = _mm256_min_epu8(classed, _mm256_and_si256(class, vector(allowed)));
        }
        if _mm256_movemask_epi8(_mm256_cmpeq_epi8(classed, _mm256_setzero_si256())) != 0 {
            return None;
        }
        // The cards, 16 at a time (4 in the last vector).
        let mut deck = [0u8; DECK_SIZE];
        let mut codes = [_mm256_setzero_si256(); 4];
        for (&(part, at), gather) in BLOCKS.iter().zip(&GATHER) {
            // In bounds: `at + 16 <= LEN` (`BLOCKS`).
            let block = _mm256_broadcastsi128_si256(_mm_loadu_si128(b.as_ptr().add(at).cast()));
            codes[part] = _mm256_or_si256(codes[part], _mm256_shuffle_epi8(block, vector(gather)));
        }
        let mut seen = _mm256_setzero_si256();
        let one = _mm256_set1_epi64x(1);
        for (part, &codes) in codes.iter().enumerate() {
            let high = _mm256_and_si256(_mm256_srli_epi16(codes, 4), low_nibble);
            let values = _mm256_add_epi8(
                _mm256_shuffle_epi8(vector(&VALUE_BY_LOW), codes),
                _mm256_shuffle_epi8(vector(&VALUE_BY_HIGH), high),
            );
            let cards = _mm_add_epi8(
                _mm256_castsi256_si128(values),
                _mm256_extracti128_si256(values, 1),
            );
            // Whether each card is there once: the OR of 1 << card, four cards at a time
            // (each card is below 52 here; masked, the shift needs no check of its range).
            let masked = _mm_and_si128(cards, _mm_set1_epi8(63));
            let fours = [
                masked,
                _mm_srli_si128(masked, 4),
                _mm_srli_si128(masked, 8),
                _mm_srli_si128(masked, 12),
            ];
            for &four in &fours[..(DECK_SIZE - 16 * part).min(16) / 4] {
                let bits = _mm256_sllv_epi64(one, _mm256_cvtepu8_epi64(four));
                seen = _mm256_or_si256(seen, bits);
            }
            if 16 * part + 16 <= DECK_SIZE {
                _mm_storeu_si128(deck.as_mut_ptr().add(16 * part).cast(), cards);
            } else {
                deck[16 * part..].copy_from_slice(&_mm_cvtsi128_si32(cards).to_le_bytes());
            }
        }
        let seen = _mm_or_si128(
            _mm256_castsi256_si128(seen),
            _mm256_extracti128_si256(seen, 1),
        );
        let seen = _mm_cvtsi128_si64(_mm_or_si128(seen, _mm_unpackhi_epi64(seen, seen))) as u64;
        Some((deck, seen == (1u64 << DECK_SIZE) - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_width_decks_read_as_token_by_token() {
        let slow = |text: &str| -> Result<Vec<u8>, String> {
            let mut out = Vec::new();
            for token in text.split(|c: char| c.is_whitespace() || c == ',' || c == ';') {
                if !token.is_empty() {
                    DeckKind::Cards52.parse_token(token, &mut out)?;
                }
            }
            Ok(out)
        };
        let codes: Vec<String> = (0..52u8).rev().map(cards::code).collect();
        let mut texts = vec![codes.join(" "), codes.join(","), codes.join(";")];
        texts.push(codes.join("\t").to_ascii_lowercase());
        texts.push(codes.join(" ").replacen("As", "A$", 1));
        texts.push(codes.join(" ").replacen("Kd", "1d", 1));
        texts.push(codes.join(" ").replacen(' ', "x", 1));
        texts.push(codes.join(" ").replacen(' ', "  ", 1)[1..].to_string());
        texts.push(codes[..51].join(" ") + " As");
        for text in &texts {
            assert_eq!(text.len(), 155, "{text}");
            let mut out = Vec::new();
            let got = DeckKind::Cards52.parse_text(text, &mut out).map(|()| out);
            assert_eq!(got, slow(text), "{text}");
        }
        assert_eq!(
            fixed_width_deck(texts[0].as_bytes()).map(|d| d.1),
            Some(true)
        );
        assert!(fixed_width_deck(texts[4].as_bytes()).is_none());
        // A duplicated card in the usual layout: read, and known not to be complete.
        assert_eq!(
            fixed_width_deck(texts[8].as_bytes()).map(|d| d.1),
            Some(false)
        );
    }

    /// Every kind of separator the fixed-width layout accepts.
    #[cfg(target_arch = "x86_64")]
    const SEPARATORS: &[u8] = b"\t\n\x0b\x0c\r ,;";

    /// A 155-byte text of `deck` in the usual layout: rank and suit letters each in a random
    /// case, separators drawn from `separators`.
    #[cfg(target_arch = "x86_64")]
    fn deck_text(
        deck: &[u8],
        separators: &[u8],
        rng: &mut crate::shuffler::simulate::Rng,
    ) -> Vec<u8> {
        let mut text = Vec::new();
        for (i, &c) in deck.iter().enumerate() {
            for letter in cards::code(c).bytes() {
                text.push(if rng.chance(1, 2) {
                    letter.to_ascii_lowercase()
                } else {
                    letter
                });
            }
            if i + 1 < deck.len() {
                text.push(separators[rng.below(separators.len() as u64) as usize]);
            }
        }
        text
    }

    /// The vector read of `text` (155 bytes), checked against the scalar one; the answer.
    #[cfg(target_arch = "x86_64")]
    fn both_reads(text: &[u8]) -> Option<([u8; cards::DECK_SIZE], bool)> {
        let want = fixed_width_deck_scalar(text);
        // SAFETY: the callers run this only where the CPU has AVX2.
        let got = unsafe { avx2::fixed_width_deck(text.try_into().unwrap()) };
        assert_eq!(got, want, "{:?}", String::from_utf8_lossy(text));
        want
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_vector_deck_read_is_the_scalar_one() {
        if Avx2::detect().is_none() {
            eprintln!("no AVX2 on this CPU: the vector deck read is not run");
            return;
        }
        let mut rng = crate::shuffler::simulate::Rng::new(16);
        let sorted: Vec<u8> = (0..52).collect();
        let mut bases = vec![
            deck_text(&sorted, b" ", &mut rng),
            deck_text(&sorted, b"\t", &mut rng).to_ascii_lowercase(),
        ];
        for separators in [&b","[..], b";", SEPARATORS, SEPARATORS] {
            let mut deck = sorted.clone();
            for i in (1..deck.len()).rev() {
                deck.swap(i, rng.below(i as u64 + 1) as usize);
            }
            bases.push(deck_text(&deck, separators, &mut rng));
        }
        // Every byte value at every place of each text: the answers the scalar tables give
        // (18 rank and 8 suit letters, 8 separators; another rank or suit duplicates a card).
        for base in &bases {
            let (deck, complete) = both_reads(base).expect("the usual layout");
            assert!(complete);
            for at in 0..base.len() {
                let mut text = base.clone();
                let (mut read, mut whole) = (0, 0);
                for byte in 0..=255u8 {
                    text[at] = byte;
                    if let Some((_, complete)) = both_reads(&text) {
                        read += 1;
                        whole += usize::from(complete);
                    }
                }
                let letter_case = if base[at].is_ascii_alphabetic() { 2 } else { 1 };
                let expected = match at % 3 {
                    0 => (18, letter_case),
                    1 => (8, letter_case),
                    _ => (8, 8),
                };
                assert_eq!((read, whole), expected, "byte {at} of {deck:?}");
            }
            // Every valid code in every cell: that card, a duplicate unless it is the cell's.
            for cell in 0..52 {
                let mut text = base.clone();
                for rank in b"23456789TJQKAtjqka" {
                    for suit in b"dchsDCHS" {
                        text[3 * cell] = *rank;
                        text[3 * cell + 1] = *suit;
                        let card = cards::card(RANK[*rank as usize], SUIT[*suit as usize]);
                        let (read, complete) = both_reads(&text).unwrap();
                        assert_eq!(read[cell], card);
                        assert_eq!(complete, card == deck[cell]);
                    }
                }
            }
        }
        // Shuffled decks, and the same with a few bytes changed (mostly to code letters and
        // separators, so that many are still read, as duplicates).
        let alphabet = b"23456789TJQKAtjqkadchsDCHS \t\n\x0b\x0c\r,;01xX\x00\xff";
        let (mut read, mut whole) = (0, 0);
        for _ in 0..5000 {
            let mut deck = sorted.clone();
            for i in (1..deck.len()).rev() {
                deck.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let mut text = deck_text(&deck, SEPARATORS, &mut rng);
            assert_eq!(
                both_reads(&text),
                Some((deck.clone().try_into().unwrap(), true))
            );
            for _ in 0..=rng.below(3) {
                let at = rng.below(text.len() as u64) as usize;
                text[at] = alphabet[rng.below(alphabet.len() as u64) as usize];
            }
            if let Some((_, complete)) = both_reads(&text) {
                read += 1;
                whole += usize::from(complete);
            }
        }
        // Both outcomes, and the refusals, are exercised.
        assert!(
            read > 500 && whole > 100 && read - whole > 100 && read < 4500,
            "{read} {whole}"
        );
    }

    #[test]
    fn fast_path_agrees_with_card_core() {
        for c in 0..52u8 {
            let code = cards::code(c);
            assert_eq!(fast_card(code.as_bytes()), Some(c));
            assert_eq!(fast_card(code.to_ascii_lowercase().as_bytes()), Some(c));
        }
        assert_eq!(fast_card(b"10h"), cards::parse_card("Th").ok());
        assert_eq!(fast_card(b"1h"), None);
    }

    #[test]
    fn the_tables_read_two_byte_codes_as_fast_card_does() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let (r, s) = (RANK[a as usize], SUIT[b as usize]);
                let table = (r | s != NONE).then(|| cards::card(r, s));
                assert_eq!(table, fast_card(&[a, b]), "{a} {b}");
                // The two-byte table of the fixed-width path agrees.
                let code = CODE[usize::from(u16::from_le_bytes([a, b]))];
                assert_eq!((code != NONE).then_some(code), table, "{a} {b}");
            }
        }
    }

    #[test]
    fn ascii_separators_are_the_generic_ones() {
        let d = DeckKind::Cards52;
        let (mut fast, mut generic) = (Vec::new(), Vec::new());
        for text in [
            "As\u{b}Kh\u{c}2d\r3c;4h,,5s\t 6d",
            "AsKh 2d",
            "As Kx",
            " , ;",
            "1s 2d",
        ] {
            let a = d.parse_text(text, &mut fast);
            // The same text with one non-ASCII space takes the generic path.
            let b = d.parse_text(&format!("{text}\u{a0}"), &mut generic);
            assert_eq!(a, b, "{text:?}");
            assert_eq!(fast, generic, "{text:?}");
        }
        d.parse_text("As\u{b}Kh\u{c}2d\r3c;4h,,5s\t 6d", &mut fast)
            .unwrap();
        assert_eq!(fast.len(), 7);
    }

    #[test]
    fn parse_list_agrees_with_parse_text() {
        // Every two-byte item (the table's fast path) and a few longer ones, alone and in a
        // list: the same cards, or the same error, as the text parse of each item.
        let mut items: Vec<String> = (0..=0xFFFF_u32)
            .filter_map(|i| String::from_utf8(vec![(i & 0xFF) as u8, (i >> 8) as u8]).ok())
            .collect();
        items.extend(["10d", "AS", "a s", "", "Xx", "\u{1F0A1}"].map(String::from));
        let kind = DeckKind::Cards52;
        for item in &items {
            let (mut listed, mut text) = (Vec::new(), Vec::new());
            let got = kind.parse_list(std::iter::once(item.as_str()), &mut listed);
            let want = kind.parse_text(item, &mut text);
            assert_eq!(got.map(|()| listed), want.map(|()| text), "{item:?}");
        }
        let (mut listed, mut text) = (Vec::new(), Vec::new());
        kind.parse_list(["As", "10d", "2c", "Th"].into_iter(), &mut listed)
            .unwrap();
        kind.parse_text("As 10d 2c Th", &mut text).unwrap();
        assert_eq!((listed.len(), &listed), (4, &text));
    }

    #[test]
    fn checker_names_missing_and_duplicated() {
        let d = DeckKind::Cards52;
        let mut order: Vec<u8> = (0..52).collect();
        assert!(d.check_complete(&order).is_ok());
        order[5] = 51;
        let err = d.check_complete(&order).unwrap_err();
        assert!(err.contains("duplicated Asx2"), "{err}");
        assert!(err.contains("missing 3c"), "{err}");
        order.pop();
        assert!(d
            .check_complete(&order)
            .unwrap_err()
            .starts_with("51 items"));
        let m = DeckKind::Mahjong(TileSet::Simple);
        let wall: Vec<u8> = (0..112).map(|i| m.symbol_of_item(i)).collect();
        assert!(m.check_complete(&wall).is_ok());
        let mut out = Vec::new();
        assert!(m.parse_text("1m Rd", &mut out).unwrap_err().contains("Rd"));
        m.parse_text("1m,發 9s", &mut out).unwrap();
        assert_eq!(out, vec![0, 27, 26]);
    }
}
