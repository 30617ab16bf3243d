//! Seeded round logs of statute play: every round dealt from a shuffled deck, each seat's bets
//! drawn from the game's menus, the optimal decision taken from the strategy table, every spot
//! settled by the settlement table (the per-round cap and the progressive's prizes and meter
//! included), and the round written as CSV rows or one JSON Lines record.
//!
//! The game is given as data by the caller (`Game`): the key table, the strategy, the
//! settlement table per spot, outcome and category, the cap and the progressive; this module
//! knows no statute. Clean rounds, void rounds (everything returned) and rounds dealt with
//! several meter prizes are simulated here; logs with planted settlement errors are the
//! Python simulator's. Amounts are integers of 1/10,000 (the log's four decimal places); a
//! computed amount that is not a whole number of them is an error, not a rounding.
//!
//! A block of rounds is written as text and, compressed, as one gzip member per chunk of
//! rounds, the chunks compressed on every core; the bytes depend on the seed and the rounds
//! only.

use rayon::prelude::*;

use crate::cards;
use crate::lookup::colex_of_unsorted;
use crate::shuffler::simlog::{gzip_member, json_string};
use crate::shuffler::simulate::Rng;

/// The log's amounts: integers of 1/`SCALE` currency units.
pub const SCALE: i64 = 10_000;
/// Outcomes of a spot settled against the dealer, in the settlement table's order.
const FOLD: usize = 0;
const NOT_QUALIFYING: usize = 1;
const WIN: usize = 2;
const LOSS: usize = 3;
const TIE: usize = 4;
pub const OUTCOMES: usize = 5;
const CATEGORY_SHIFT: u32 = 22;
/// Rounds per gzip member.
pub const ROUNDS_PER_MEMBER: usize = 4096;

/// One spot settled against the dealer: net result per unit staked, `nums[outcome *
/// categories + category] / den`.
#[derive(Clone, Debug)]
pub struct Spot {
    pub nums: Vec<i64>,
    pub den: i64,
}

/// A progressive prize: fixed (units) or a share of the meter, whichever is larger.
#[derive(Clone, Copy, Debug)]
pub struct Prize {
    pub fixed: i64,
    pub share_num: i64,
    pub share_den: i64,
}

/// The progressive bet and its meter (Caribbean Stud's Art. 10 as the rule file reads it).
#[derive(Clone, Debug)]
#[allow(clippy::struct_excessive_bools)] // each is one of the rule file's readings
pub struct Meter {
    pub bet: i64,
    pub start: i64,
    pub seed: i64,
    pub contribution: (i64, i64),
    /// Contributions added before the round's prizes are paid (else after).
    pub before_prizes: bool,
    /// Prizes paid in descending seat order (else ascending).
    pub descending: bool,
    /// A straight flush's share is of the meter before the round's prizes (else of what the
    /// prizes paid before it left).
    pub straight_flush_on_meter_before: bool,
    pub pays_royal: bool,
    pub pays_straight_flush: bool,
    pub unit: i64,
    /// Each category's prize, `None` where it pays none.
    pub prizes: Vec<Option<Prize>>,
    pub royal: usize,
    pub straight_flush: usize,
    /// The royal flushes and the other straight flushes as card masks (multi-prize deals).
    pub royals: Vec<u64>,
    pub straight_flushes: Vec<u64>,
    /// Deals of several meter prizes: each a list of "is a royal".
    pub multi_deals: Vec<Vec<bool>>,
    /// Rounds in a million dealt with several meter prizes.
    pub multi_ppm: u64,
}

/// A game as the caller's rule file makes it.
#[derive(Clone, Debug)]
pub struct Game {
    pub hand_size: usize,
    /// Seats with players: 1..=players.
    pub players: usize,
    pub threshold: u32,
    /// Strength keys by colex index.
    pub keys: Vec<u32>,
    /// Q Poker: follow by colex index. Caribbean Stud: raise bits by colex index, bit `u` for
    /// upcard `u`.
    pub follow: Vec<bool>,
    pub raise_bits: Vec<u64>,
    pub caribbean: bool,
    /// Q Poker: pair plus, play. Caribbean Stud: ante, raise.
    pub spots: [Spot; 2],
    /// The bet menus, in units: Q Poker pair plus and play; Caribbean Stud ante (second
    /// unused).
    pub menus: [Vec<i64>; 2],
    pub raise_multiple: (i64, i64),
    pub maximum_payout: i64,
    pub capped: Vec<bool>,
    pub meter: Option<Meter>,
    /// Void rounds in a million.
    pub void_ppm: u64,
    pub table_id: String,
    pub json_lines: bool,
    /// Seconds since the Unix epoch of round 0; round `r` is `start + step * r`.
    pub start: i64,
    pub step: i64,
}

struct Seat {
    number: usize,
    cards: Vec<u8>,
    category: usize,
    decision: &'static str,
    bets: [i64; 3],
    paid: [i64; 3],
}

/// One dealt and settled round, ready to be written.
struct Round {
    number: u64,
    dealer: Vec<u8>,
    before: i64,
    after: i64,
    void: bool,
    seats: Vec<Seat>,
}

/// The simulator: a game, its generator, the meter and the next round's number.
pub struct RoundSimulator {
    game: Game,
    seed: u64,
    meter: i64,
    next: u64,
}

fn exact(num: i128, den: i128, what: &str) -> Result<i64, String> {
    if den == 0 || num % den != 0 {
        return Err(format!(
            "{what} is not a whole number of 1/{SCALE} units ({num}/{den})"
        ));
    }
    i64::try_from(num / den).map_err(|_| format!("{what} is out of range"))
}

/// `YYYY-MM-DDTHH:MM:SSZ` of seconds since the Unix epoch (proleptic Gregorian, UTC).
#[must_use]
pub fn timestamp(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    let rest = seconds.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The seed of round `number`'s generator: the simulator's seed and the number mixed by
/// splitmix64's finaliser, so neighbouring rounds draw unrelated streams.
fn round_seed(seed: u64, number: u64) -> u64 {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    mix(seed ^ mix(number.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
}

impl RoundSimulator {
    /// # Errors
    /// When the game's tables do not fit its hand size.
    pub fn new(game: Game, seed: u64) -> Result<RoundSimulator, String> {
        let hands = crate::enumerate::choose(52, game.hand_size) as usize;
        if game.keys.len() != hands {
            return Err(format!(
                "key table of {} hands, expected {hands}",
                game.keys.len()
            ));
        }
        let strategy = if game.caribbean {
            game.raise_bits.len()
        } else {
            game.follow.len()
        };
        if strategy != hands {
            return Err(format!("strategy of {strategy} hands, expected {hands}"));
        }
        let cats = game.capped.len();
        if game
            .spots
            .iter()
            .any(|s| s.nums.len() != OUTCOMES * cats || s.den <= 0)
        {
            return Err("settlement table does not match the categories".into());
        }
        if game.players == 0 || (game.players + 1) * game.hand_size > 52 {
            return Err(format!("{} players do not fit one deck", game.players));
        }
        let meter = game.meter.as_ref().map_or(0, |m| m.start);
        Ok(RoundSimulator {
            game,
            seed,
            meter,
            next: 1,
        })
    }

    /// Rounds written so far.
    #[must_use]
    pub fn done(&self) -> u64 {
        self.next - 1
    }

    /// The next `rounds` rounds as log text (the CSV header first in the first block of a
    /// CSV log), gzip-compressed at `gzip` level as one member per `ROUNDS_PER_MEMBER`
    /// rounds when asked.
    ///
    /// # Errors
    /// An amount that is not a whole number of log units.
    pub fn block(&mut self, rounds: usize, gzip: Option<u32>) -> Result<Vec<u8>, String> {
        let header = (self.next == 1 && !self.game.json_lines).then(|| self.header());
        // Dealt and settled a round per task (each round its own generator), the meter
        // settled in order, then written and compressed a chunk per core.
        let first = self.next;
        let last = first + rounds as u64;
        self.next = last;
        let mut dealt: Vec<Round> = (first..last)
            .into_par_iter()
            .map(|number| self.round(number))
            .collect::<Result<_, _>>()?;
        if let Some(meter) = &self.game.meter {
            for round in &mut dealt {
                round.before = self.meter;
                if !round.void {
                    self.meter = progressive(meter, self.meter, &mut round.seats)?;
                }
                round.after = self.meter;
            }
        }
        let game = &self.game;
        let header = header.unwrap_or_default();
        let parts: Vec<Vec<u8>> = dealt
            .par_chunks(ROUNDS_PER_MEMBER)
            .enumerate()
            .map(|(k, chunk)| {
                let mut text = Vec::with_capacity(chunk.len() * 480 + header.len());
                if k == 0 {
                    text.extend_from_slice(header.as_bytes());
                }
                for round in chunk {
                    write_round(game, round, &mut text);
                }
                match gzip {
                    Some(level) => gzip_member(&text, level),
                    None => text,
                }
            })
            .collect();
        if parts.is_empty() && !header.is_empty() {
            let text = header.into_bytes();
            return Ok(gzip.map_or_else(|| text.clone(), |level| gzip_member(&text, level)));
        }
        Ok(parts.concat())
    }

    fn header(&self) -> String {
        let spots = SPOT_NAMES[usize::from(self.game.caribbean)];
        let mut columns: Vec<String> = crate::rounds::ROUND_FIELDS
            .iter()
            .chain(crate::rounds::SEAT_FIELDS.iter())
            .map(|s| (*s).to_string())
            .collect();
        columns.extend(spots.iter().map(|s| format!("{s}_bet")));
        columns.extend(spots.iter().map(|s| format!("{s}_paid")));
        columns.join(",") + "\n"
    }

    fn key(&self, hand: &[u8]) -> u32 {
        let index = colex_of_unsorted(hand).expect("a dealt hand is distinct cards");
        self.game.keys[index]
    }

    fn shuffled(rng: &mut Rng, count: usize) -> Vec<u8> {
        let mut deck: Vec<u8> = (0..52).collect();
        for i in 0..count {
            let j = i + rng.below((52 - i) as u64) as usize;
            deck.swap(i, j);
        }
        deck
    }

    fn seat_numbers(&self, rng: &mut Rng, count: usize) -> Vec<usize> {
        let mut seats: Vec<usize> = (1..=self.game.players).collect();
        for i in 0..count {
            let j = i + rng.below((seats.len() - i) as u64) as usize;
            seats.swap(i, j);
        }
        let mut chosen = seats[..count].to_vec();
        chosen.sort_unstable();
        chosen
    }

    /// (dealer, hands, rows dealt meter hands).
    fn deal(
        &self,
        rng: &mut Rng,
        players: usize,
        multi: bool,
    ) -> (Vec<u8>, Vec<Vec<u8>>, Vec<usize>) {
        let size = self.game.hand_size;
        if !multi {
            let deck = Self::shuffled(rng, size * (players + 1));
            let hands = (0..players)
                .map(|i| deck[size * (i + 1)..size * (i + 2)].to_vec())
                .collect();
            return (deck[..size].to_vec(), hands, Vec::new());
        }
        let meter = self
            .game
            .meter
            .as_ref()
            .expect("multi-prize deals need the meter");
        let deal = meter.multi_deals[rng.below(meter.multi_deals.len() as u64) as usize].clone();
        let (royals, flushes) = (meter.royals.clone(), meter.straight_flushes.clone());
        let (used, mut chosen) = loop {
            let mut used = 0u64;
            let mut chosen = Vec::new();
            for &royal in &deal {
                let pool = if royal { &royals } else { &flushes };
                let mask = pool[rng.below(pool.len() as u64) as usize];
                if mask & used != 0 {
                    break;
                }
                used |= mask;
                chosen.push(
                    (0..52u8)
                        .filter(|c| mask >> c & 1 == 1)
                        .collect::<Vec<u8>>(),
                );
            }
            if chosen.len() == deal.len() {
                break (used, chosen);
            }
        };
        let players = players.max(chosen.len());
        let deck = Self::shuffled(rng, 52);
        let rest: Vec<u8> = deck.into_iter().filter(|&c| used >> c & 1 == 0).collect();
        let mut rows: Vec<usize> = (0..players).collect();
        for i in 0..chosen.len() {
            let j = i + rng.below((players - i) as u64) as usize;
            rows.swap(i, j);
        }
        let mut rows = rows[..chosen.len()].to_vec();
        rows.sort_unstable();
        let mut others = rest[size..].chunks_exact(size);
        let mut hands = Vec::with_capacity(players);
        for i in 0..players {
            if rows.contains(&i) {
                let mut hand = chosen.remove(0);
                for k in 0..hand.len() {
                    let j = k + rng.below((hand.len() - k) as u64) as usize;
                    hand.swap(k, j);
                }
                hands.push(hand);
            } else {
                hands.push(
                    others
                        .next()
                        .expect("a deck holds the other hands")
                        .to_vec(),
                );
            }
        }
        (rest[..size].to_vec(), hands, rows)
    }

    /// Round `number`, dealt and settled from its own generator (seeded by the simulator's
    /// seed and the number, so rounds are made in any order, on any core); the meter is
    /// settled after, in order.
    fn round(&self, number: u64) -> Result<Round, String> {
        let mut rng = Rng::new(round_seed(self.seed, number));
        let rng = &mut rng;
        let draw = rng.below(1_000_000);
        let void = draw < self.game.void_ppm;
        let multi = !void
            && self
                .game
                .meter
                .as_ref()
                .is_some_and(|m| draw < self.game.void_ppm + m.multi_ppm);
        let players = 1 + rng.below(self.game.players as u64) as usize;
        let (dealer, hands, forced) = self.deal(rng, players, multi);
        let numbers = self.seat_numbers(rng, hands.len());
        let dealer_key = self.key(&dealer);
        let upcard = dealer[0];
        let mut seats = Vec::with_capacity(hands.len());
        for (row, hand) in hands.into_iter().enumerate() {
            let seat = self.seat(
                rng,
                numbers[row],
                hand,
                forced.contains(&row),
                dealer_key,
                upcard,
                void,
            )?;
            seats.push(seat);
        }
        Ok(Round {
            number,
            dealer,
            before: 0,
            after: 0,
            void,
            seats,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn seat(
        &self,
        rng: &mut Rng,
        number: usize,
        cards: Vec<u8>,
        forced: bool,
        dealer_key: u32,
        upcard: u8,
        void: bool,
    ) -> Result<Seat, String> {
        let game = &self.game;
        let index = colex_of_unsorted(&cards).expect("a dealt hand is distinct cards");
        let key = game.keys[index];
        let mut bets = [0i64; 3];
        if game.caribbean {
            bets[0] = game.menus[0][rng.below(game.menus[0].len() as u64) as usize];
            let meter_bet = game.meter.as_ref().map_or(0, |m| m.bet);
            bets[2] = if rng.below(2) == 0 || forced {
                meter_bet
            } else {
                0
            };
        } else {
            bets[0] = game.menus[0][rng.below(game.menus[0].len() as u64) as usize];
            bets[1] = game.menus[1][rng.below(game.menus[1].len() as u64) as usize];
        }
        let stake = usize::from(!game.caribbean); // play (Q Poker) or ante (Caribbean Stud)
        let mut decision = "";
        if bets[stake] != 0 {
            let follows = if game.caribbean {
                game.raise_bits[index] >> upcard & 1 == 1
            } else {
                game.follow[index]
            };
            decision = match (game.caribbean, follows) {
                (true, true) => "raise",
                (false, true) => "follow",
                _ => "fold",
            };
        }
        if decision == "raise" {
            let (num, den) = game.raise_multiple;
            bets[1] = exact(
                i128::from(bets[0]) * i128::from(num),
                i128::from(den),
                "the raise",
            )?;
        }
        let mut paid = [0i64; 3];
        let category = (key >> CATEGORY_SHIFT) as usize;
        if !void {
            let outcome = if decision == "fold" {
                FOLD
            } else if dealer_key < game.threshold {
                NOT_QUALIFYING
            } else if key > dealer_key {
                WIN
            } else if key < dealer_key {
                LOSS
            } else {
                TIE
            };
            let cats = game.capped.len();
            for (j, spot) in game.spots.iter().enumerate() {
                let side_bet = !game.caribbean && j == 0;
                if bets[j] == 0 || (!side_bet && decision.is_empty()) {
                    continue;
                }
                let num = spot.nums[outcome * cats + category];
                let mut value = exact(
                    i128::from(bets[j]) * i128::from(num),
                    i128::from(spot.den),
                    "a payout",
                )?;
                if game.caribbean
                    && j == 1
                    && outcome == WIN
                    && game.maximum_payout > 0
                    && game.capped[category]
                {
                    value = value.min(game.maximum_payout);
                }
                paid[j] = value;
            }
        }
        Ok(Seat {
            number,
            cards,
            category,
            decision,
            bets,
            paid,
        })
    }
}

/// The round's progressive: contributions, prizes in the statute's order, the meter after.
fn progressive(meter: &Meter, current: i64, seats: &mut [Seat]) -> Result<i64, String> {
    let bets: i64 = seats.iter().map(|s| s.bets[2]).sum();
    let (cn, cd) = meter.contribution;
    let contributed = exact(
        i128::from(cn) * i128::from(bets),
        i128::from(cd),
        "a contribution",
    )?;
    let mut m = current + if meter.before_prizes { contributed } else { 0 };
    let base = m;
    let mut order: Vec<usize> = (0..seats.len())
        .filter(|&i| seats[i].bets[2] != 0)
        .collect();
    order.sort_by_key(|&i| seats[i].number);
    if meter.descending {
        order.reverse();
    }
    let categories: Vec<usize> = order.iter().map(|&i| seats[i].category).collect();
    let down = |units: i128, num: i64, den: i64| -> i128 {
        let unit = i128::from(meter.unit);
        (units.max(0) * i128::from(num)).div_euclid(i128::from(den) * unit) * unit
    };
    let mut prizes = vec![0i64; seats.len()];
    let mut emptied = false;
    let mut royals = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        let category = categories[k];
        if category == meter.royal {
            royals.push(i);
            continue;
        }
        let Some(prize) = meter.prizes[category] else {
            continue;
        };
        let on = if category == meter.straight_flush && meter.straight_flush_on_meter_before {
            base
        } else {
            m
        };
        let share = down(i128::from(on), prize.share_num, prize.share_den);
        let amount =
            i64::try_from(share.max(i128::from(prize.fixed))).map_err(|_| "prize out of range")?;
        if category == meter.straight_flush && meter.pays_straight_flush {
            m -= amount;
            emptied |= m <= 0;
        }
        prizes[i] = amount;
    }
    if !royals.is_empty() {
        let prize = meter.prizes[meter.royal].ok_or("the royal flush pays no prize")?;
        let unit = i128::from(meter.unit);
        let share = (i128::from(m).max(0) * i128::from(prize.share_num))
            .div_euclid(i128::from(prize.share_den) * royals.len() as i128 * unit)
            * unit;
        let amount =
            i64::try_from(share.max(i128::from(prize.fixed))).map_err(|_| "prize out of range")?;
        if meter.pays_royal {
            m -= amount * i64::try_from(royals.len()).expect("seats fit i64");
            emptied |= m <= 0 || prize.share_num == prize.share_den;
        }
        for &i in &royals {
            prizes[i] = amount;
        }
    }
    let mut after = if emptied { meter.seed } else { m };
    if !meter.before_prizes {
        after += contributed;
    }
    for (i, seat) in seats.iter_mut().enumerate() {
        if seat.bets[2] != 0 {
            seat.paid[2] = prizes[i] - seat.bets[2];
        }
    }
    Ok(after)
}

/// The decimal digits of `value` appended to `out`.
fn push_int(out: &mut Vec<u8>, value: u64) {
    let mut buf = [0u8; 20];
    let mut at = buf.len();
    let mut v = value;
    loop {
        at -= 1;
        buf[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[at..]);
}

/// An amount in 1/SCALE units appended as the shortest exact decimal (as the reader's
/// `amount_text` in Python writes it).
fn push_amount(out: &mut Vec<u8>, units: i64) {
    if units < 0 {
        out.push(b'-');
    }
    let scale = SCALE.unsigned_abs();
    let (whole, mut frac) = (units.unsigned_abs() / scale, units.unsigned_abs() % scale);
    push_int(out, whole);
    if frac != 0 {
        out.push(b'.');
        let mut digits = 4;
        while frac % 10 == 0 {
            frac /= 10;
            digits -= 1;
        }
        let start = out.len();
        push_int(out, frac);
        let written = out.len() - start;
        for _ in written..digits {
            out.insert(start, b'0');
        }
    }
}

/// Card codes separated by spaces (`As Kd Qh`), as `cards::code` writes each.
fn push_cards(out: &mut Vec<u8>, hand: &[u8]) {
    for (i, &card) in hand.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        out.push(cards::RANK_CHARS[usize::from(cards::rank(card))] as u8);
        out.push(cards::SUIT_CHARS[usize::from(cards::suit(card))] as u8);
    }
}

const SPOT_NAMES: [&[&str]; 2] = [&["pair_plus", "play"], &["ante", "raise", "progressive"]];

/// A round's own fields in `ROUND_FIELDS` order, each as the log writes it (events: "void"
/// or none; Q Poker has no upcard or meter).
fn round_fields(game: &Game, round: &Round) -> [Vec<u8>; 8] {
    let mut fields: [Vec<u8>; 8] = Default::default();
    fields[0].extend_from_slice(game.table_id.as_bytes());
    push_int(&mut fields[1], round.number);
    let stamp = timestamp(game.start + game.step * round.number.cast_signed());
    fields[2].extend_from_slice(stamp.as_bytes());
    push_cards(&mut fields[3], &round.dealer);
    if game.caribbean {
        push_cards(&mut fields[4], &round.dealer[..1]);
        push_amount(&mut fields[5], round.before);
        push_amount(&mut fields[6], round.after);
    }
    if round.void {
        fields[7].extend_from_slice(b"void");
    }
    fields
}

/// One round as log text: a CSV row per seat, or one JSON Lines record.
fn write_round(game: &Game, round: &Round, out: &mut Vec<u8>) {
    let fields = round_fields(game, round);
    let names = SPOT_NAMES[usize::from(game.caribbean)];
    if game.json_lines {
        out.push(b'{');
        for (name, value) in crate::rounds::ROUND_FIELDS.iter().zip(&fields) {
            out.push(b'"');
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\": ");
            match *name {
                "table_id" => out.extend_from_slice(json_string(&game.table_id).as_bytes()),
                "events" if value.is_empty() => out.extend_from_slice(b"[]"),
                "events" => {
                    out.extend_from_slice(b"[\"");
                    out.extend_from_slice(value);
                    out.extend_from_slice(b"\"]");
                }
                _ => {
                    out.push(b'"');
                    out.extend_from_slice(value);
                    out.push(b'"');
                }
            }
            out.extend_from_slice(b", ");
        }
        out.extend_from_slice(b"\"seats\": [");
        for (k, seat) in round.seats.iter().enumerate() {
            if k > 0 {
                out.extend_from_slice(b", ");
            }
            out.extend_from_slice(b"{\"seat\": ");
            push_int(out, seat.number as u64);
            out.extend_from_slice(b", \"cards\": \"");
            push_cards(out, &seat.cards);
            out.extend_from_slice(b"\", \"decision\": \"");
            out.extend_from_slice(seat.decision.as_bytes());
            for (label, values) in [
                (&b"\", \"bets\": {"[..], &seat.bets),
                (&b"}, \"paid\": {"[..], &seat.paid),
            ] {
                out.extend_from_slice(label);
                for (j, name) in names.iter().enumerate() {
                    if j > 0 {
                        out.extend_from_slice(b", ");
                    }
                    out.push(b'"');
                    out.extend_from_slice(name.as_bytes());
                    out.extend_from_slice(b"\": \"");
                    push_amount(out, values[j]);
                    out.push(b'"');
                }
            }
            out.extend_from_slice(b"}}");
        }
        out.extend_from_slice(b"]}\n");
        return;
    }
    let head = fields.join(&b","[..]);
    for seat in &round.seats {
        out.extend_from_slice(&head);
        out.push(b',');
        push_int(out, seat.number as u64);
        out.push(b',');
        push_cards(out, &seat.cards);
        out.push(b',');
        out.extend_from_slice(seat.decision.as_bytes());
        for v in seat.bets[..names.len()]
            .iter()
            .chain(&seat.paid[..names.len()])
        {
            out.push(b',');
            push_amount(out, *v);
        }
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_the_shortest_exact_decimals() {
        for (units, text) in [
            (0, "0"),
            (10_000, "1"),
            (7_000, "0.7"),
            (2_000_007_000, "200000.7"),
            (-1, "-0.0001"),
            (123_400, "12.34"),
            (-250_000, "-25"),
            (1_050, "0.105"),
        ] {
            let mut out = Vec::new();
            push_amount(&mut out, units);
            assert_eq!(String::from_utf8(out).unwrap(), text);
        }
    }

    #[test]
    fn cards_are_written_as_their_codes() {
        let mut out = Vec::new();
        let hand: Vec<u8> = (0..52).collect();
        push_cards(&mut out, &hand);
        let want: Vec<String> = hand.iter().map(|&c| cards::code(c)).collect();
        assert_eq!(String::from_utf8(out).unwrap(), want.join(" "));
    }

    #[test]
    fn timestamps_are_utc_calendar_times() {
        // 2026-03-01T00:00:00Z is 1,772,323,200 s after the epoch.
        assert_eq!(timestamp(1_772_323_200 + 45), "2026-03-01T00:00:45Z");
        assert_eq!(timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(timestamp(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(timestamp(1_772_323_200 - 1), "2026-02-28T23:59:59Z");
    }
}
