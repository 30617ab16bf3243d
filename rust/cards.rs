//! Cards, their codes and the statutes' suit and rank orders.
//!
//! A card is a `u8` id `rank * 4 + suit`, with ranks 0..=12 for 2..=A and suits ordered as
//! both poker statutes order them (Art. 4): diamonds 0 < clubs 1 < hearts 2 < spades 3. So
//! comparing ids compares rank first, then suit, and a hand sorted by id is sorted by rank.

use std::fmt;

pub const DECK_SIZE: usize = 52;
pub const RANK_CHARS: [char; 13] = [
    '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K', 'A',
];
pub const SUIT_CHARS: [char; 4] = ['d', 'c', 'h', 's'];

#[inline]
#[must_use]
pub const fn rank(card: u8) -> u8 {
    card >> 2
}

#[inline]
#[must_use]
pub const fn suit(card: u8) -> u8 {
    card & 3
}

#[inline]
#[must_use]
pub const fn card(rank: u8, suit: u8) -> u8 {
    rank * 4 + suit
}

/// Why a card or a hand could not be read; the message names the offending value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CardError {
    UnknownCard(String),
    OutOfRange(u32),
    Duplicate(u8),
    WrongSize { expected: usize, got: usize },
}

impl fmt::Display for CardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CardError::UnknownCard(code) => write!(
                f,
                "unknown card code {code:?}: expected a rank (A K Q J T/10 9..2) and a suit (s h c d or ♠ ♥ ♣ ♦)"
            ),
            CardError::OutOfRange(id) => write!(f, "card id {id} is out of range 0..51"),
            CardError::Duplicate(c) => write!(f, "duplicate card {}", code(*c)),
            CardError::WrongSize { expected, got } => {
                write!(f, "a hand here has {expected} cards, got {got}")
            }
        }
    }
}

impl std::error::Error for CardError {}

/// The canonical two-character code of a card, e.g. `As`, `Td`.
#[must_use]
pub fn code(card: u8) -> String {
    let mut s = String::with_capacity(2);
    s.push(RANK_CHARS[rank(card) as usize]);
    s.push(SUIT_CHARS[suit(card) as usize]);
    s
}

fn rank_of(text: &str) -> Option<u8> {
    // Byte comparisons, case-insensitive: no allocation per card (this runs once per card of
    // every hand a Python caller passes as text).
    let r = match text.as_bytes() {
        [b @ b'2'..=b'9'] => b - b'2',
        [b't' | b'T'] | [b'1', b'0'] => 8,
        [b'j' | b'J'] => 9,
        [b'q' | b'Q'] => 10,
        [b'k' | b'K'] => 11,
        [b'a' | b'A'] => 12,
        _ => return None,
    };
    Some(r)
}

fn suit_of(c: char) -> Option<u8> {
    let s = match c {
        'd' | 'D' | '♦' => 0,
        'c' | 'C' | '♣' => 1,
        'h' | 'H' | '♥' => 2,
        's' | 'S' | '♠' => 3,
        _ => return None,
    };
    Some(s)
}

/// Parse one card code: a rank (`A K Q J T 10 9 .. 2`, `1` for ace) and a suit letter or
/// symbol, in either order is NOT accepted: rank first, suit last, case-insensitive.
pub fn parse_card(token: &str) -> Result<u8, CardError> {
    let token = token.trim();
    let mut chars = token.chars();
    let last = chars
        .next_back()
        .ok_or_else(|| CardError::UnknownCard(token.to_string()))?;
    let head = chars.as_str();
    match (rank_of(head), suit_of(last)) {
        (Some(r), Some(s)) => Ok(card(r, s)),
        _ => Err(CardError::UnknownCard(token.to_string())),
    }
}

/// Parse a hand: card codes separated by spaces, commas, semicolons or dashes, or written
/// together (`AsKhTd`). Duplicates are an error.
pub fn parse_hand(text: &str) -> Result<Vec<u8>, CardError> {
    let mut cards = Vec::new();
    for token in text.split(|c: char| c.is_whitespace() || c == ',' || c == ';') {
        if token.is_empty() {
            continue;
        }
        split_run(token, &mut cards)?;
    }
    check_distinct(&cards)?;
    Ok(cards)
}

/// Split a run of card codes written together (`AsKh10d`) into cards.
fn split_run(token: &str, out: &mut Vec<u8>) -> Result<(), CardError> {
    let mut start = 0;
    for (i, c) in token.char_indices() {
        if i > start && suit_of(c).is_some() {
            let end = i + c.len_utf8();
            out.push(parse_card(&token[start..end])?);
            start = end;
        }
    }
    if start != token.len() {
        return Err(CardError::UnknownCard(token[start..].to_string()));
    }
    Ok(())
}

/// Check that the cards are valid ids and pairwise distinct.
pub fn check_distinct(cards: &[u8]) -> Result<(), CardError> {
    let mut seen: u64 = 0;
    for &c in cards {
        if c as usize >= DECK_SIZE {
            return Err(CardError::OutOfRange(u32::from(c)));
        }
        if seen & (1 << c) != 0 {
            return Err(CardError::Duplicate(c));
        }
        seen |= 1 << c;
    }
    Ok(())
}

/// Validate a hand of `size` cards and return it sorted by id (rank, then suit).
pub fn sorted_hand<const N: usize>(cards: &[u8]) -> Result<[u8; N], CardError> {
    if cards.len() != N {
        return Err(CardError::WrongSize {
            expected: N,
            got: cards.len(),
        });
    }
    check_distinct(cards)?;
    let mut hand = [0u8; N];
    hand.copy_from_slice(cards);
    hand.sort_unstable();
    Ok(hand)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_order_rank_then_suit() {
        assert_eq!(parse_card("2d").unwrap(), 0);
        assert_eq!(parse_card("As").unwrap(), 51);
        assert!(parse_card("Ks").unwrap() < parse_card("Ad").unwrap());
        assert!(parse_card("Ah").unwrap() < parse_card("As").unwrap());
    }

    #[test]
    fn liberal_spellings_strict_meaning() {
        let a = parse_hand("As Kh Td").unwrap();
        assert_eq!(parse_hand("A♠ K♥ 10♦").unwrap(), a);
        assert_eq!(parse_hand("as,KH,10d").unwrap(), a);
        assert_eq!(parse_hand("AsKh10d").unwrap(), a);
        assert_eq!(code(a[2]), "Td");
    }

    #[test]
    fn bad_input_is_named() {
        assert_eq!(parse_card("1x"), Err(CardError::UnknownCard("1x".into())));
        assert_eq!(parse_hand("As As"), Err(CardError::Duplicate(51)));
        assert!(parse_hand("As Kh Zz")
            .unwrap_err()
            .to_string()
            .contains("Zz"));
        assert!(parse_card("").is_err());
        // Exactly the documented spellings: no "1" for the ace, no outline suit symbols, no
        // hyphen between cards.
        for bad in ["1s", "A♤", "K♡", "Q♢", "J♧", "As-Kh-Td"] {
            assert!(parse_hand(bad).is_err(), "{bad}");
        }
        assert!(matches!(
            sorted_hand::<3>(&[1, 2]),
            Err(CardError::WrongSize { .. })
        ));
    }
}
