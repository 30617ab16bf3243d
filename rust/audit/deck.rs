//! Deck kinds and the deck checker: an order is accepted only if it is exactly one complete deck.

use crate::cards;
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
    /// `check_complete`.
    #[inline]
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
                if i + 1 < b.len() && b.get(i + 2).map_or(true, |&c| SEPARATOR[c as usize]) {
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
/// same cards for this layout).
#[inline]
fn fixed_width_deck(b: &[u8]) -> Option<([u8; cards::DECK_SIZE], bool)> {
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
