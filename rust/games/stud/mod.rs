//! One exact engine for player-against-dealer stud poker dealt from one deck, parametrised by
//! the game's description: the cards each side is dealt and how many make its hand, whether one
//! dealer card is face up, the ranking, the dealer's qualifier, and the value of every
//! (decision, outcome, category) from the rule file's settlement.
//!
//! For every situation (player hand, and the upcard when there is one) the dealer's completions
//! split into: does not qualify, player higher, equal, dealer higher. They are counted, never
//! enumerated, by the sweep of `showdown`, generalised to hands of different sizes: the dealer
//! hands are inserted in key order into one histogram row per card set `S` of at most the
//! player's card count (one lane per upcard), and the dealer hands disjoint from a player hand
//! `P` that rank below it are `sum over S ⊆ P of (-1)^|S| row[S]` (inclusion–exclusion). The
//! dealer hands that do not qualify form a prefix of the key order: their histogram is kept
//! apart and answers the not-qualifying count. Each situation's best decision is chosen from
//! the exact values and its outcomes are summed by the player's category.
//!
//! Work splits over rayon tasks by upcard lanes (each task keeps only its lanes) or, without an
//! upcard, by ranges of the player hands in key order.

pub(crate) mod histogram;
pub mod ranking;

use std::borrow::Cow;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use crate::cards::DECK_SIZE;
use crate::cpu::{compiled_with, Native};
use crate::enumerate::choose;
use histogram::{subsets, Histogram, Scratch, Subset};
pub use ranking::{combinations, vocabulary, Ranking, MAX_CARDS, MAX_CATEGORIES};

/// Outcomes of a situation's dealer completion.
pub const OUTCOMES: usize = 4;
/// Most cards a player may be dealt: the histogram has a row per subset of the player's cards.
pub const MAX_PLAYER_CARDS: usize = 5;
/// Most decisions (fold and the raise multiples).
pub const MAX_DECISIONS: usize = 8;
/// Largest magnitude of a value numerator: counts times values stay far inside `i64`.
pub const MAX_VALUE: i64 = 1 << 31;

/// A game's deal and ranking.
#[derive(Debug, Clone)]
pub struct Game {
    pub ranking: Arc<Ranking>,
    /// Card ids, ascending; the engine works on their positions.
    pub deck: Vec<u8>,
    pub player_cards: usize,
    pub dealer_cards: usize,
    /// 0 or 1 dealer cards face up when the player decides.
    pub upcards: usize,
    /// The ranks-only key a dealer needs to qualify, or `None`: always qualifies.
    pub qualifier: Option<u32>,
    /// The tables every run of this game builds before its sweep, kept for the next run.
    tables: Arc<Tables>,
}

/// Every `k`-card hand as (key, position mask) in key order, and each one's colex index.
type Hands = (Vec<(u32, u64)>, Vec<u32>);

/// What every run of a game builds before its sweep and that depends on the game alone: the
/// dealer's and the player's hands in key order, and the not-qualifying dealer hands'
/// histogram of all lanes. Built by the first run that needs them and kept with the game, so
/// the next run of the same game (the next shard on a cluster worker that keeps its game)
/// starts its sweep at once: about 0.4 s of a Caribbean Stud shard's 1.8 s on one thread
/// (BENCHMARKS.md). The same values either way: the tables are a function of the game.
#[derive(Default)]
struct Tables {
    dealers: OnceLock<Arc<Hands>>,
    players: OnceLock<Arc<Hands>>,
    not_qualifying: OnceLock<Arc<Histogram>>,
}

impl std::fmt::Debug for Tables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tables")
            .field("dealers", &self.dealers.get().is_some())
            .field("players", &self.players.get().is_some())
            .field("not_qualifying", &self.not_qualifying.get().is_some())
            .finish()
    }
}

impl Game {
    /// Validate a deal; the error names the offending value.
    pub fn new(
        ranking: Arc<Ranking>,
        deck: &[u8],
        player_cards: usize,
        dealer_cards: usize,
        upcards: usize,
        qualifier: Option<u32>,
    ) -> Result<Self, String> {
        let mut sorted = deck.to_vec();
        sorted.sort_unstable();
        if let Some(&c) = sorted.iter().find(|&&c| usize::from(c) >= DECK_SIZE) {
            return Err(format!("deck card {c}: not a card id 0..51"));
        }
        if let Some([c, _]) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("deck card {c} is listed twice"));
        }
        let uses = ranking.uses;
        if player_cards < uses || player_cards > MAX_PLAYER_CARDS {
            return Err(format!(
                "player_cards {player_cards}: expected {uses} (the cards a hand uses) to {MAX_PLAYER_CARDS}"
            ));
        }
        if dealer_cards < uses || dealer_cards > MAX_CARDS {
            return Err(format!(
                "dealer_cards {dealer_cards}: expected {uses} (the cards a hand uses) to {MAX_CARDS}"
            ));
        }
        if upcards > 1 {
            return Err(format!("upcards {upcards}: expected 0 or 1"));
        }
        if player_cards + dealer_cards > sorted.len() {
            return Err(format!(
                "a deck of {} cards cannot deal {player_cards} + {dealer_cards}",
                sorted.len()
            ));
        }
        Ok(Game {
            ranking,
            deck: sorted,
            player_cards,
            dealer_cards,
            upcards,
            qualifier,
            tables: Arc::default(),
        })
    }

    /// Dealer completions of every situation.
    #[must_use]
    pub fn completions(&self) -> u64 {
        let d = self.deck.len();
        choose(
            d - self.player_cards - self.upcards,
            self.dealer_cards - self.upcards,
        )
    }

    /// The player's hands: C(deck, player cards).
    #[must_use]
    pub fn player_hands(&self) -> usize {
        usize::try_from(choose(self.deck.len(), self.player_cards)).expect("hands fit a usize")
    }

    /// Lanes of a situation table: the deck's positions (one upcard) or one.
    #[must_use]
    pub fn lanes(&self) -> usize {
        if self.upcards == 1 {
            self.deck.len()
        } else {
            1
        }
    }

    fn key_of(&self, mask: u64) -> u32 {
        let mut ids = [0u8; MAX_CARDS];
        let mut n = 0;
        let mut m = mask;
        while m != 0 {
            ids[n] = self.deck[m.trailing_zeros() as usize];
            n += 1;
            m &= m - 1;
        }
        self.ranking.best(&ids[..n])
    }

    /// Every `k`-card hand of the deck as (key, position mask), in key order; with `colex`, each
    /// hand's colex index over positions rides along in the order.
    fn hands(&self, k: usize) -> (Vec<(u32, u64)>, Vec<u32>) {
        let masks = combinations(self.deck.len(), k);
        let mut hands: Vec<(u32, u64, u32)> = masks
            .par_iter()
            .enumerate()
            .map(|(i, &m)| (self.key_of(m), m, i as u32))
            .collect();
        hands.par_sort_unstable_by_key(|h| (h.0, h.2));
        let index = hands.iter().map(|h| h.2).collect();
        (hands.into_iter().map(|h| (h.0, h.1)).collect(), index)
    }

    /// `hands(dealer_cards)` and `hands(player_cards)` (one list when the counts are equal),
    /// built once per game (`Tables`).
    fn dealer_and_player_hands(&self) -> (Arc<Hands>, Arc<Hands>) {
        let dealers = self
            .tables
            .dealers
            .get_or_init(|| Arc::new(self.hands(self.dealer_cards)))
            .clone();
        let players = if self.player_cards == self.dealer_cards {
            dealers.clone()
        } else {
            self.tables
                .players
                .get_or_init(|| Arc::new(self.hands(self.player_cards)))
                .clone()
        };
        (dealers, players)
    }
}

/// The outcomes of one (category, decision) over the situations where it was chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Row {
    pub situations: u64,
    pub indifferent: u64,
    pub not_qualifying: u64,
    pub won: u64,
    pub tied: u64,
    pub lost: u64,
    pub equal_ranks: u64,
    pub won_on_suit: u64,
}

impl Row {
    fn merge(&mut self, o: &Row) {
        self.situations += o.situations;
        self.indifferent += o.indifferent;
        self.not_qualifying += o.not_qualifying;
        self.won += o.won;
        self.tied += o.tied;
        self.lost += o.lost;
        self.equal_ranks += o.equal_ranks;
        self.won_on_suit += o.won_on_suit;
    }
}

/// `values[d][o][c]`: the numerator of decision `d`'s result under outcome `o` with the
/// player's hand in category `c` (0 lowest).
pub type Values = Vec<[[i64; MAX_CATEGORIES]; OUTCOMES]>;

/// A situation's counts as `Run::counts` holds them: not qualifying, won, tied, equal ranks,
/// won on suit (the fields of `COUNT_FIELDS`).
pub type SituationCounts = [u32; 5];

/// The names of `SituationCounts`' fields, in order.
pub const COUNT_FIELDS: [&str; 5] = [
    "not_qualifying",
    "won",
    "tied",
    "equal_ranks",
    "won_on_suit",
];

/// Most (player hand, lane) cells a run keeps every situation's counts for (20 bytes each).
pub const MAX_COUNTED: usize = 1 << 24;

/// What a run returns beyond its rows.
#[derive(Debug, Clone, Default)]
pub struct Want {
    /// Every situation's decision (`Run::decisions`).
    pub decisions: bool,
    /// Every player hand's lanes where a raise is chosen (`Run::raise_masks`).
    pub masks: bool,
    /// Every situation's counts (`Run::counts`; at most `MAX_COUNTED` cells).
    pub counts: bool,
    /// Values under which each category's smallest margin of raising over folding is kept
    /// (`Run::min_margins`): the proof that a payout change moves no decision.
    pub floor: Option<Values>,
}

/// The analysis: rows by category then decision, and optionally every situation's decision.
#[derive(Debug, Clone)]
pub struct Run {
    pub completions: u64,
    pub situations: u64,
    pub rows: Vec<Vec<Row>>,
    /// One byte per (player hand in colex order, lane): the decision, 255 where the upcard is
    /// in the hand.
    pub decisions: Option<Vec<u8>>,
    /// Per player hand in colex order, bit `l` set where some raise is chosen in lane `l`.
    pub raise_masks: Option<Vec<u64>>,
    /// Per (player hand in colex order, lane): the situation's counts (zero where the upcard
    /// is in the hand).
    pub counts: Option<Vec<SituationCounts>>,
    /// Per category: the smallest, over its situations, of the best raise's value under
    /// `Want::floor` less the fold's (`i64::MAX` without a floor or a situation).
    pub min_margins: Vec<i64>,
}

/// The ranks-only part of a key (the suit field cleared).
#[inline]
const fn ranks_only(key: u32) -> u32 {
    key & !3
}

/// One task's share: its lanes and its player hands (positions in the key order), and the
/// direction of its sweep (`Sweep::down`).
struct Part {
    lanes: Range<usize>,
    players: Range<usize>,
    reports: bool,
    down: bool,
}

struct Shared<'a> {
    game: &'a Game,
    values: &'a Values,
    dealers: &'a [(u32, u64)],
    players: &'a [(u32, u64)],
    colex: &'a [u32],
    /// Dealer hands that do not qualify: the first `not_qualifying` of `dealers`.
    not_qualifying: usize,
    suit_decides: bool,
    /// The player's and the dealer's hands are one list (same card count): index for index.
    same_hands: bool,
    /// The not-qualifying histogram of all lanes, when tasks split the player hands.
    not_qualifying_all: Option<Arc<Histogram>>,
    /// `values` as the worth of each decision over the fold's, by category then decision
    /// (`Relative`).
    relative: Vec<Relative>,
    /// The same of `Want::floor`.
    floor_relative: Option<Vec<Relative>>,
    completions: i64,
    /// The native features' proof, for the settling's compilation that uses them.
    native: Option<Native>,
    want: &'a Want,
    progress: Option<&'a AtomicU64>,
}

/// A situation's dealer completions by outcome, and the equal-rank counts.
#[derive(Clone, Copy, Default)]
struct Counts {
    not_qualifying: i32,
    won: i32,
    tied: i32,
    equal_ranks: i32,
    won_on_suit: i32,
}

/// One player hand's queries, lane by lane: the dealer hands (disjoint from it, holding the
/// lane's upcard) that do not qualify, that rank below its ranks, below or equal to them, and
/// below its full key when suits decide. A hand that does not qualify gives its
/// not-qualifying count for all three: every qualifying dealer hand ranks above it.
#[derive(Clone, Copy)]
struct HandCounts<'a> {
    not_qualifying: &'a [i32],
    below: &'a [i32],
    through: &'a [i32],
    full: Option<&'a [i32]>,
}

impl HandCounts<'_> {
    /// One lane's outcomes.
    #[inline]
    fn lane(&self, l: usize) -> Counts {
        let [not_qualifying, won, tied, equal_ranks, won_on_suit] = outcomes(
            self.not_qualifying[l],
            self.below[l],
            self.through[l],
            self.full.map(|full| full[l]),
        );
        Counts {
            not_qualifying,
            won,
            tied,
            equal_ranks,
            won_on_suit,
        }
    }
}

/// Not qualifying, won, tied, equal ranks and won on suit, from the counts of dealer hands
/// that do not qualify, rank below, below or equal to, and (when suits decide) below the full
/// key of a player hand: one lane's (`i32`) or a sum of lanes (`i64`). The one-raise settling
/// loop writes the same formulas lane-parallel (`settle_one_raise_portable`): a generic form
/// there stops it vectorizing.
#[inline]
fn outcomes<T: Copy + Default + std::ops::Sub<Output = T>>(
    not_qualifying: T,
    below: T,
    through: T,
    full: Option<T>,
) -> [T; 5] {
    match full {
        // No dealer hand has the player's full key (see `Sweep::group`): none ties.
        Some(full) => [
            not_qualifying,
            full - not_qualifying,
            T::default(),
            through - below,
            full - below,
        ],
        None => [
            not_qualifying,
            below - not_qualifying,
            through - below,
            through - below,
            T::default(),
        ],
    }
}

/// Analyse every situation with `threads` tasks (0: all cores).
#[must_use]
///
/// # Panics
/// If the counts are wanted for more than `MAX_COUNTED` cells or the floor values have
/// another number of decisions than `values` (the bindings refuse both first).
pub fn analyze(
    game: &Game,
    values: &Values,
    want: &Want,
    threads: usize,
    progress: Option<&AtomicU64>,
    shard: (usize, usize),
) -> Run {
    analyze_directed(game, values, want, threads, progress, shard, sweeps_down)
}

/// [`analyze`] with the tasks' sweep directions chosen by `down` (tests force either).
fn analyze_directed(
    game: &Game,
    values: &Values,
    want: &Want,
    threads: usize,
    progress: Option<&AtomicU64>,
    shard: (usize, usize),
    down: fn(&Shared<'_>, &Range<usize>) -> bool,
) -> Run {
    assert!(
        shard.0 < shard.1,
        "shard {shard:?}: expected (k, n) with k < n"
    );
    let (dealer_hands, player_hands) = game.dealer_and_player_hands();
    let dealers = &dealer_hands.0[..];
    if want.counts {
        let cells = game.player_hands() * game.lanes();
        assert!(
            cells <= MAX_COUNTED,
            "{cells} situations' counts: at most {MAX_COUNTED}"
        );
    }
    let (players, colex) = (&player_hands.0[..], &player_hands.1[..]);
    let not_qualifying = game
        .qualifier
        .map_or(0, |q| dealers.partition_point(|&(k, _)| ranks_only(k) < q));
    let mut shared = Shared {
        game,
        values,
        dealers,
        players,
        colex,
        not_qualifying,
        suit_decides: game.ranking.tie_breaks.suit_decides,
        same_hands: game.player_cards == game.dealer_cards,
        not_qualifying_all: None,
        relative: relative(values, game.completions().cast_signed()),
        floor_relative: want.floor.as_ref().map(|f| {
            assert_eq!(f.len(), values.len(), "floor values of every decision");
            relative(f, game.completions().cast_signed())
        }),
        completions: game.completions().cast_signed(),
        native: Native::detect(),
        want,
        progress,
    };
    let threads = if threads == 0 {
        rayon::current_num_threads()
    } else {
        threads
    };
    let n_players = shared.players.len();
    // Split by ranges of player hands of about equal query work (every task queries all lanes
    // of its own hands, and inserts the dealer hands below them); but when the dealer hands
    // outnumber the player's, inserting them again in every task costs more than it saves,
    // and tasks split the upcard lanes (each inserts every hand, only into its lanes): 5
    // against 6 cards with one upcard, 13.2 s by lanes, 15.2 s by hands (BENCHMARKS.md).
    let by_lanes = game.upcards == 1 && shared.dealers.len() > n_players;
    let qualifies = |k: u32| game.qualifier.is_none_or(|q| ranks_only(k) >= q);
    let weights = Weights {
        first_qualifying: shared.players.partition_point(|&(k, _)| !qualifies(k)),
    };
    // The shard's share of the whole, then its share cut for this process's threads.
    let whole = Part {
        lanes: 0..game.lanes(),
        players: 0..n_players,
        reports: true,
        down: false,
    };
    let (k, n) = shard;
    let mine = cut(&whole, by_lanes, weights, n).swap_remove(k);
    let parts: Vec<Part> = cut(&mine, by_lanes, weights, threads)
        .into_iter()
        .filter(|p| !p.lanes.is_empty() && !p.players.is_empty())
        .map(|p| Part {
            down: !by_lanes && down(&shared, &p.players),
            ..p
        })
        .collect();
    if parts.iter().all(|p| p.lanes == (0..game.lanes())) && shared.not_qualifying > 0 {
        let all = game
            .tables
            .not_qualifying
            .get_or_init(|| Arc::new(not_qualifying_histogram(&shared, 0..game.lanes(), threads)));
        shared.not_qualifying_all = Some(all.clone());
    }
    let shared = shared;
    let results: Vec<(PartRun, Range<usize>)> = parts
        .into_par_iter()
        .map(|p| {
            let run = sweep(&shared, &p);
            (run, p.lanes)
        })
        .collect();
    merge(game, values.len(), shared.colex.len(), want, results)
}

/// A decision's worth in a situation over the fold's, as `[a, b, c, k]`: with `n`
/// completions split into `nq` not qualifying, `won`, `tied` and the rest lost,
/// `nq * a + won * b + tied * c + k` is `sum over o of count_o * (v[o] - fold[o])` (the lost
/// ones folded into the constant: `a = (v0 - v3) - (f0 - f3)`, ..., `k = n * (v3 - f3)`). Three
/// products a situation instead of eight, and the comparison between decisions is the same
/// (every value moves by the fold's): the fold's own is zero.
type Relative = [i64; OUTCOMES];

/// `values[d][o][c]` relative to the fold, as `relative[c * decisions + d]`.
fn relative(values: &Values, completions: i64) -> Vec<Relative> {
    let fold = &values[0];
    (0..MAX_CATEGORIES)
        .flat_map(|c| {
            values.iter().map(move |v| {
                let over = |o: usize| (v[o][c] - v[3][c]) - (fold[o][c] - fold[3][c]);
                [
                    over(0),
                    over(1),
                    over(2),
                    completions * (v[3][c] - fold[3][c]),
                ]
            })
        })
        .collect()
}

/// A decision's worth over the fold's in a situation with these counts.
#[inline]
fn worth(r: &Relative, nq: i64, won: i64, tied: i64) -> i64 {
    nq * r[0] + won * r[1] + tied * r[2] + r[3]
}

/// The tasks' rows added up and their decision tables put together.
fn merge(
    game: &Game,
    decisions_count: usize,
    hands: usize,
    want: &Want,
    results: Vec<(PartRun, Range<usize>)>,
) -> Run {
    let mut rows = vec![vec![Row::default(); decisions_count]; game.ranking.categories()];
    let mut min_margins = vec![i64::MAX; game.ranking.categories()];
    let lanes = game.lanes();
    let mut decisions = want.decisions.then(|| vec![u8::MAX; hands * lanes]);
    // The first part's masks (a whole table of hands) are the sum's start.
    let mut masks: Option<Vec<u64>> = None;
    let mut counts = want
        .counts
        .then(|| vec![SituationCounts::default(); hands * lanes]);
    for (mut part, part_lanes) in results {
        for (a, b) in rows.iter_mut().zip(&part.rows) {
            for (x, y) in a.iter_mut().zip(b) {
                x.merge(y);
            }
        }
        for (a, &b) in min_margins.iter_mut().zip(&part.min_margins) {
            *a = (*a).min(b);
        }
        let width = part_lanes.len();
        match (masks.as_mut(), part.masks.take()) {
            (Some(all), Some(m)) => all.iter_mut().zip(&m).for_each(|(a, b)| *a |= b),
            (None, m) => masks = m,
            (Some(_), None) => {}
        }
        if let (Some(all), Some(t)) = (decisions.as_mut(), &part.decisions) {
            for h in 0..hands {
                for l in 0..width {
                    let d = t[h * width + l];
                    if d != u8::MAX {
                        all[h * lanes + part_lanes.start + l] = d;
                    }
                }
            }
        }
        // A part's cells outside its own situations are zero: parts add up.
        if let (Some(all), Some(t)) = (counts.as_mut(), &part.counts) {
            for h in 0..hands {
                for l in 0..width {
                    let (a, b) = (
                        &mut all[h * lanes + part_lanes.start + l],
                        &t[h * width + l],
                    );
                    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                }
            }
        }
    }
    if want.masks && masks.is_none() {
        masks = Some(vec![0u64; hands]);
    }
    let situations = rows.iter().flatten().map(|r| r.situations).sum();
    Run {
        completions: game.completions(),
        situations,
        rows,
        decisions,
        raise_masks: masks,
        counts,
        min_margins,
    }
}

/// The histogram of the dealer hands that do not qualify, for `lanes`, built by `threads`
/// tasks.
fn not_qualifying_histogram(s: &Shared<'_>, lanes: Range<usize>, threads: usize) -> Histogram {
    let g = s.game;
    let upcard = g.upcards == 1;
    let empty = || {
        Histogram::new(
            g.deck.len(),
            g.dealer_cards,
            g.player_cards,
            lanes.clone(),
            upcard,
        )
    };
    let hands = &s.dealers[..s.not_qualifying];
    split(hands.len(), threads)
        .into_par_iter()
        .map(|range| {
            let mut h = empty();
            let mut scratch = [Subset::default(); 1 << MAX_CARDS];
            for &(_, m) in &hands[range] {
                h.insert(m, &mut scratch);
            }
            h
        })
        .reduce_with(|mut a, b| {
            a.add(&b);
            a
        })
        .unwrap_or_else(empty)
}

/// Whether a task of these player hands sweeps down the key order: when fewer dealer hands
/// rank above its last hand than qualify and rank below its first qualifying one. Either way
/// it first inserts those dealer hands, which it does not query between (its catch-up): a
/// part at the top of the order, the last shard or thread, then inserts only its own range.
fn sweeps_down(s: &Shared<'_>, players: &Range<usize>) -> bool {
    let (up, down) = catch_up(s.game.qualifier, s.dealers, s.players, players);
    down < up
}

/// The dealer hands a task of these player hands inserts before its first query: up the key
/// order, and down it (none when it has no qualifying hand).
fn catch_up(
    qualifier: Option<u32>,
    dealers: &[(u32, u64)],
    all_players: &[(u32, u64)],
    players: &Range<usize>,
) -> (usize, usize) {
    let qualifies = |k: u32| qualifier.is_none_or(|q| ranks_only(k) >= q);
    let first =
        players.start + all_players[players.clone()].partition_point(|&(k, _)| !qualifies(k));
    if first >= players.end {
        // Only the not-qualifying histogram is asked: no sweep to catch up.
        return (0, 0);
    }
    let ranks = |i: usize| ranks_only(all_players[i].0);
    let (low, high) = (ranks(first), ranks(players.end - 1));
    let not_qualifying = dealers.partition_point(|&(k, _)| !qualifies(k));
    let up = dealers.partition_point(|&(k, _)| ranks_only(k) < low) - not_qualifying;
    let down = dealers.len() - dealers.partition_point(|&(k, _)| ranks_only(k) <= high);
    (up, down)
}

/// `0..n` in `parts` contiguous ranges of about equal size (fewer when `n` is small).
fn split(n: usize, parts: usize) -> Vec<Range<usize>> {
    let parts = parts.clamp(1, n.max(1));
    (0..parts)
        .map(|i| n * i / parts..n * (i + 1) / parts)
        .collect()
}

/// One task's sweep state: the not-qualifying histogram, the main one (from the first
/// qualifying player hand on), the next dealer hand to insert, and query buffers.
///
/// Up the key order the main histogram holds the dealer hands below the hands being visited;
/// down it (`down`), those above them, and every count below is the complement: of the
/// `disjoint` dealer hands that hold a lane's upcard and none of a player hand's cards, the
/// ones not counted.
struct Sweep<'s> {
    s: &'s Shared<'s>,
    lanes: Range<usize>,
    nq: Cow<'s, Histogram>,
    main: Option<Histogram>,
    /// Up: the next dealer hand to insert; down: the last one inserted.
    next: usize,
    down: bool,
    disjoint: i32,
    scratch: Scratch,
    query: Vec<i32>,
    /// The group's counts asked before its last insertion: below its ranks (up) or through
    /// them (down), hand after hand.
    kept: Vec<i32>,
    below_full: Vec<i32>,
    nq_counts: Vec<i32>,
    subs: Vec<Subset>,
}

impl<'s> Sweep<'s> {
    fn new(s: &'s Shared<'s>, part: &Part) -> Self {
        let width = part.lanes.len();
        let scratch = [Subset::default(); 1 << MAX_CARDS];
        let nq = match &s.not_qualifying_all {
            Some(h) if part.lanes == (0..s.game.lanes()) => Cow::Borrowed(h.as_ref()),
            _ => Cow::Owned(not_qualifying_histogram(s, part.lanes.clone(), 1)),
        };
        let g = s.game;
        let disjoint = if g.upcards == 1 {
            choose(g.deck.len() - g.player_cards - 1, g.dealer_cards - 1)
        } else {
            choose(g.deck.len() - g.player_cards, g.dealer_cards)
        };
        Sweep {
            s,
            lanes: part.lanes.clone(),
            nq,
            main: None,
            next: if part.down {
                s.dealers.len()
            } else {
                s.not_qualifying
            },
            down: part.down,
            disjoint: i32::try_from(disjoint).expect("counts fit an i32"),
            scratch,
            query: vec![0; width],
            kept: Vec::new(),
            below_full: Vec::new(),
            nq_counts: Vec::new(),
            subs: Vec::new(),
        }
    }

    /// Insert the dealer hands up to (not including) the first whose key `stop` accepts.
    /// `known`: the first dealer index whose sub-sets are in `subs` (the player hands of the
    /// group being visited, when the player's and the dealer's hands are the same list).
    fn insert_until(&mut self, stop: impl Fn(u32) -> bool, known: Option<(usize, &[Subset])>) {
        while self.next < self.s.dealers.len() && !stop(self.s.dealers[self.next].0) {
            self.insert_dealer(self.next, known);
            self.next += 1;
        }
    }

    /// Down the key order: insert the dealer hands down to (not including) the first whose key
    /// `stop` accepts. `known` as in [`Sweep::insert_until`].
    fn insert_down_until(&mut self, stop: impl Fn(u32) -> bool, known: Option<(usize, &[Subset])>) {
        while self.next > 0 && !stop(self.s.dealers[self.next - 1].0) {
            self.next -= 1;
            self.insert_dealer(self.next, known);
        }
    }

    /// Insert dealer hand `i` into the main histogram, from its sub-sets in `known` when they
    /// are there.
    fn insert_dealer(&mut self, i: usize, known: Option<(usize, &[Subset])>) {
        let stride = 1 << self.s.game.player_cards;
        let mask = self.s.dealers[i].1;
        let h = self
            .main
            .as_mut()
            .expect("the main histogram is made first");
        match known {
            Some((first, subs)) if i >= first && (i - first + 1) * stride <= subs.len() => {
                let g = i - first;
                h.insert_subsets(mask, &subs[g * stride..(g + 1) * stride]);
            }
            _ => h.insert(mask, &mut self.scratch),
        }
    }

    /// The main histogram's count below a player hand, lane by lane, into `out`: its query up
    /// the key order, the complement of its query down it.
    fn below(&self, subs: &[Subset], out: &mut [i32]) {
        let h = self
            .main
            .as_ref()
            .expect("the main histogram is made first");
        h.query(subs, out);
        if self.down {
            for x in &mut *out {
                *x = self.disjoint - *x;
            }
        }
    }

    /// The counts of each player hand of a group with equal ranks, lane by lane, handed to
    /// `settle` with the hand's place in the group as soon as they are known.
    fn group(
        &mut self,
        group: &[(u32, u64)],
        first: usize,
        mut settle: impl FnMut(usize, &HandCounts<'_>),
    ) {
        let width = self.lanes.len();
        // Each player hand's sub-sets, once for all its queries.
        let stride = 1 << self.s.game.player_cards;
        self.subs.clear();
        for &(_, m) in group {
            let n = subsets(m, self.s.game.player_cards, &mut self.scratch);
            debug_assert_eq!(n, stride);
            self.subs.extend_from_slice(&self.scratch[..n]);
        }
        let subs = std::mem::take(&mut self.subs);
        let of = |g: usize| &subs[g * stride..(g + 1) * stride];
        let ranks = ranks_only(group[0].0);
        let qualifies = self.s.game.qualifier.is_none_or(|q| ranks >= q);
        if !qualifies {
            // Every qualifying dealer hand ranks above: only the not-qualifying count varies.
            for g in 0..group.len() {
                self.nq.query(of(g), &mut self.query);
                let q = &self.query[..];
                settle(
                    g,
                    &HandCounts {
                        not_qualifying: q,
                        below: q,
                        through: q,
                        full: None,
                    },
                );
            }
            self.subs = subs;
            return;
        }
        if self.main.is_none() {
            self.main = Some(if self.down {
                let g = self.s.game;
                let upcard = g.upcards == 1;
                let lanes = self.lanes.clone();
                Histogram::new(g.deck.len(), g.dealer_cards, g.player_cards, lanes, upcard)
            } else {
                self.nq.as_ref().clone()
            });
        }
        // The group's own hands are the dealer hands that follow when both are one list.
        let known = self.s.same_hands.then_some((first, subs.as_slice()));
        let n = group.len();
        let mut query = std::mem::take(&mut self.query);
        // Up: below the group's ranks, then (when suits decide) each hand's full key, then
        // through its ranks. Down: through them, the full keys from the highest, below them.
        if self.down {
            self.insert_down_until(|k| ranks_only(k) <= ranks, None);
        } else {
            self.insert_until(|k| ranks_only(k) >= ranks, None);
        }
        self.kept.clear();
        for g in 0..n {
            self.below(of(g), &mut query);
            self.kept.extend_from_slice(&query);
        }
        // When suits decide: below in the full key, walking the group along its suit order. No
        // dealer hand disjoint from the player's has the same full key: every suit step is the
        // suit of one card of the hand's best cards (the highest, the pair's, the kicker's,
        // the flush's), so equal keys hold that same card; the categories without a suit step
        // (trips, quads, full house) cannot repeat their ranks in one deck. So none ties.
        let mut full = std::mem::take(&mut self.below_full);
        full.clear();
        if self.s.suit_decides {
            full.resize(n * width, 0);
            for i in 0..n {
                let g = if self.down { n - 1 - i } else { i };
                let key = group[g].0;
                if self.down {
                    self.insert_down_until(|k| k < key, known);
                } else {
                    self.insert_until(|k| k >= key, known);
                }
                self.below(of(g), &mut full[g * width..(g + 1) * width]);
            }
        }
        if self.down {
            self.insert_down_until(|k| ranks_only(k) < ranks, known);
        } else {
            self.insert_until(|k| ranks_only(k) > ranks, known);
        }
        let mut nq = std::mem::take(&mut self.nq_counts);
        nq.resize(width, 0);
        for g in 0..n {
            self.below(of(g), &mut query);
            self.nq.query(of(g), &mut nq);
            let lanes = g * width..(g + 1) * width;
            let kept = &self.kept[lanes.clone()];
            let (below, through) = if self.down {
                (&query[..], kept)
            } else {
                (kept, &query[..])
            };
            settle(
                g,
                &HandCounts {
                    not_qualifying: &nq,
                    below,
                    through,
                    full: self.s.suit_decides.then(|| &full[lanes]),
                },
            );
        }
        self.query = query;
        self.below_full = full;
        self.nq_counts = nq;
        self.subs = subs;
    }
}

/// What one task found: its rows, and what `Want` asks of its situations.
struct PartRun {
    rows: Vec<Vec<Row>>,
    decisions: Option<Vec<u8>>,
    masks: Option<Vec<u64>>,
    counts: Option<Vec<SituationCounts>>,
    min_margins: Vec<i64>,
}

/// The player hands' shares of query work, in key order: 3 a hand that qualifies (it queries
/// the main histogram two or three times, and the not-qualifying one), 1 one that does not
/// (one query). The qualifying hands are the top of the order, from `first_qualifying`.
/// Measured per hand, one thread, the whole Caribbean sweep: 1.22 µs a qualifying hand, 0.415
/// µs one that does not (BENCHMARKS.md); 3:1 cuts two shards into halves within 1%.
#[derive(Clone, Copy)]
struct Weights {
    first_qualifying: usize,
}

impl Weights {
    /// The weight of hands `0..i`.
    fn below(self, i: usize) -> u64 {
        (i + 2 * i.saturating_sub(self.first_qualifying)) as u64
    }
}

/// A part cut into `n` parts: by its lanes, or by its player hands into ranges of about equal
/// weight. Always `n` parts (some empty when there are fewer lanes or hands); deterministic,
/// so every process cuts a shard the same way.
fn cut(part: &Part, by_lanes: bool, weights: Weights, n: usize) -> Vec<Part> {
    let n = n.max(1);
    if by_lanes {
        let lanes = &part.lanes;
        return (0..n)
            .map(|i| Part {
                lanes: lanes.start + lanes.len() * i / n..lanes.start + lanes.len() * (i + 1) / n,
                players: part.players.clone(),
                reports: part.reports && i == 0,
                down: false,
            })
            .collect();
    }
    let range = part.players.clone();
    let base = weights.below(range.start);
    let total = weights.below(range.end) - base;
    let n64 = n as u64;
    // Part `p` ends after the first hand whose running weight reaches `total * p / n`.
    let ends = (1..n64).map(|p| {
        let (mut lo, mut hi) = (range.start, range.end);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if (weights.below(mid + 1) - base) * n64 >= total * p {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        (lo + 1).min(range.end)
    });
    let mut parts = Vec::with_capacity(n);
    let mut start = range.start;
    for end in ends {
        parts.push(start..end);
        start = end;
    }
    parts.push(start..range.end);
    parts
        .into_iter()
        .map(|players| Part {
            lanes: part.lanes.clone(),
            players,
            reports: part.reports,
            down: false,
        })
        .collect()
}

/// The next group of equal ranks of the hands `rest` (not empty), taken off its bottom (up the
/// key order) or its top (down).
fn next_group(players: &[(u32, u64)], rest: &mut Range<usize>, down: bool) -> Range<usize> {
    let ranks = |i: usize| ranks_only(players[i].0);
    if down {
        let (end, mut i) = (rest.end, rest.end - 1);
        while i > rest.start && ranks(i - 1) == ranks(end - 1) {
            i -= 1;
        }
        rest.end = i;
        i..end
    } else {
        let (i, mut end) = (rest.start, rest.start + 1);
        while end < rest.end && ranks(end) == ranks(i) {
            end += 1;
        }
        rest.start = end;
        i..end
    }
}

/// One task: its lanes' histograms swept up or down the key order over its player hands.
fn sweep(s: &Shared<'_>, part: &Part) -> PartRun {
    let width = part.lanes.len();
    let categories = s.game.ranking.categories();
    let mut rows = vec![vec![Row::default(); s.values.len()]; categories];
    let mut min_margins = vec![i64::MAX; categories];
    let mut table = s
        .want
        .decisions
        .then(|| vec![u8::MAX; s.colex.len() * width]);
    let mut masks = s.want.masks.then(|| vec![0u64; s.colex.len()]);
    let mut cells = s
        .want
        .counts
        .then(|| vec![SituationCounts::default(); s.colex.len() * width]);
    let mut state = Sweep::new(s, part);
    // The hands not visited yet.
    let mut rest = part.players.clone();
    while !rest.is_empty() {
        let Range { start: i, end } = next_group(s.players, &mut rest, part.down);
        let group = &s.players[i..end];
        let decisions = s.values.len();
        let upcard = s.game.upcards == 1;
        state.group(group, i, |g, counts| {
            let (key, m) = group[g];
            let category = usize::from(crate::ranking::category(key));
            let values = &s.relative[category * decisions..(category + 1) * decisions];
            let rows = &mut rows[category];
            let hand = s.colex[i + g] as usize;
            // The lanes of the hand's own cards are no situation.
            let own = if upcard { m >> part.lanes.start } else { 0 };
            let floor = s
                .floor_relative
                .as_ref()
                .map(|f| &f[category * decisions + 1..(category + 1) * decisions]);
            let (raised, margin) = if decisions == 2 && table.is_none() && cells.is_none() {
                let floor = floor.map(|f| &f[0]);
                settle_one_raise(
                    s.native,
                    s.completions,
                    &values[1],
                    floor,
                    counts,
                    own,
                    rows,
                )
            } else {
                let mut margin = i64::MAX;
                let mut raised = 0u64;
                for l in (0..width).filter(|l| own >> l & 1 == 0) {
                    let c = counts.lane(l);
                    let d = decide(s.completions, values, &c, rows);
                    if let Some(t) = table.as_mut() {
                        t[hand * width + l] = d;
                    }
                    raised |= u64::from(d != 0) << l;
                    if let Some(t) = cells.as_mut() {
                        t[hand * width + l] = [
                            c.not_qualifying,
                            c.won,
                            c.tied,
                            c.equal_ranks,
                            c.won_on_suit,
                        ]
                        .map(i32::cast_unsigned);
                    }
                    if let Some(f) = floor {
                        margin = margin.min(raise_margin(f, &c));
                    }
                }
                (raised, margin)
            };
            if let Some(m) = masks.as_mut() {
                m[hand] |= raised << part.lanes.start;
            }
            let m = &mut min_margins[category];
            *m = (*m).min(margin);
        });
        if part.reports {
            if let Some(p) = s.progress {
                p.fetch_add(group.len() as u64, Ordering::Relaxed);
            }
        }
    }
    PartRun {
        rows,
        decisions: table,
        masks,
        counts: cells,
        min_margins,
    }
}

/// Outcomes added up over situations.
#[derive(Clone, Copy, Default)]
struct Sums {
    not_qualifying: i64,
    won: i64,
    tied: i64,
    equal_ranks: i64,
    won_on_suit: i64,
}

impl Sums {
    /// Every lane of `width` but those of `own`, from the queries' lane sums.
    #[allow(clippy::inline_always)] // inlined into `settle_one_raise_native`
    #[inline(always)]
    fn of_lanes(c: &HandCounts<'_>, width: usize, own: u64) -> Self {
        let sum = |x: &[i32]| {
            let mut all: i64 = x[..width].iter().map(|&v| i64::from(v)).sum();
            let mut bits = own & (u64::MAX >> (64 - width));
            while bits != 0 {
                all -= i64::from(x[bits.trailing_zeros() as usize]);
                bits &= bits - 1;
            }
            all
        };
        let [not_qualifying, won, tied, equal_ranks, won_on_suit] = outcomes(
            sum(c.not_qualifying),
            sum(c.below),
            sum(c.through),
            c.full.map(sum),
        );
        Sums {
            not_qualifying,
            won,
            tied,
            equal_ranks,
            won_on_suit,
        }
    }

    /// Add `situations` situations with these outcomes to a row (`total` completions each).
    fn into_row(self, situations: u64, indifferent: u64, total: i64, row: &mut Row) {
        let lost = situations.cast_signed() * total - self.not_qualifying - self.won - self.tied;
        row.situations += situations;
        row.indifferent += indifferent;
        row.not_qualifying += self.not_qualifying.unsigned_abs();
        row.won += self.won.unsigned_abs();
        row.tied += self.tied.unsigned_abs();
        row.lost += lost.unsigned_abs();
        row.equal_ranks += self.equal_ranks.unsigned_abs();
        row.won_on_suit += self.won_on_suit.unsigned_abs();
    }

    fn less(self, o: Sums) -> Sums {
        Sums {
            not_qualifying: self.not_qualifying - o.not_qualifying,
            won: self.won - o.won,
            tied: self.tied - o.tied,
            equal_ranks: self.equal_ranks - o.equal_ranks,
            won_on_suit: self.won_on_suit - o.won_on_suit,
        }
    }
}

/// [`decide`] for every lane of one player hand of a game with one raise (fold or raise):
/// only the raised situations' outcomes are added up one by one, the fold's are the rest of
/// the hand's lane sums. Gives the raise's lanes and the smallest margin under `floor`; the
/// rows get the same integers as `decide` lane by lane.
fn settle_one_raise(
    native: Option<Native>,
    total: i64,
    raise: &Relative,
    floor: Option<&Relative>,
    c: &HandCounts<'_>,
    own: u64,
    rows: &mut [Row],
) -> (u64, i64) {
    #[cfg(target_arch = "x86_64")]
    if native.is_some() {
        // SAFETY: a `Native` is made only on a CPU that has the features (`Native::detect`).
        return unsafe { settle_one_raise_native(total, raise, floor, c, own, rows) };
    }
    settle_one_raise_portable(total, raise, floor, c, own, rows)
}

compiled_with!(
    native,
    fn settle_one_raise_native(
        total: i64,
        raise: &Relative,
        floor: Option<&Relative>,
        c: &HandCounts<'_>,
        own: u64,
        rows: &mut [Row],
    ) -> (u64, i64) = settle_one_raise_portable
);

#[allow(clippy::inline_always)] // compiled again with the native features (`compiled_with!`)
#[inline(always)]
fn settle_one_raise_portable(
    total: i64,
    raise: &Relative,
    floor: Option<&Relative>,
    c: &HandCounts<'_>,
    own: u64,
    rows: &mut [Row],
) -> (u64, i64) {
    // Every slice has one entry per lane of the task.
    let width = c.not_qualifying.len();
    let (nq, below, through) = (
        &c.not_qualifying[..width],
        &c.below[..width],
        &c.through[..width],
    );
    let (won_from, suits) = match c.full {
        Some(full) => (&full[..width], true),
        None => (below, false),
    };
    // Lane-parallel and branch-free (a lane's decision is close to a coin toss from one lane
    // to the next): every lane is computed, the hand's own lanes are masked out.
    let mut valid = [-1i64; 64];
    let mut bits = own & (u64::MAX >> (64 - width));
    while bits != 0 {
        valid[bits.trailing_zeros() as usize] = 0;
        bits &= bits - 1;
    }
    let valid = &valid[..width];
    let mut up = [0i64; 64];
    let up = &mut up[..width];
    let (mut s_nq, mut s_won, mut s_tied, mut s_equal, mut s_suit) = (0i64, 0i64, 0i64, 0, 0);
    let (mut indifferent, mut margin) = (0i64, i64::MAX);
    let f = floor.copied().unwrap_or([0; OUTCOMES]);
    for l in 0..width {
        let q = i64::from(nq[l]);
        let won = i64::from(won_from[l]) - q;
        let equal = i64::from(through[l]) - i64::from(below[l]);
        let tied = if suits { 0 } else { equal };
        let v = worth(raise, q, won, tied);
        let take = -i64::from(v > 0) & valid[l];
        up[l] = take;
        s_nq += q & take;
        s_won += won & take;
        s_tied += tied & take;
        s_equal += equal & take;
        s_suit += (i64::from(won_from[l]) - i64::from(below[l])) & take;
        indifferent += i64::from(v == 0) & valid[l];
        let m = worth(&f, q, won, tied);
        margin = margin.min(if valid[l] == 0 { i64::MAX } else { m });
    }
    let raised = up
        .iter()
        .enumerate()
        .fold(0u64, |r, (l, &t)| r | (t.cast_unsigned() & 1) << l);
    let raised_sums = Sums {
        not_qualifying: s_nq,
        won: s_won,
        tied: s_tied,
        equal_ranks: s_equal,
        won_on_suit: if suits { s_suit } else { 0 },
    };
    let margin = if floor.is_some() { margin } else { i64::MAX };
    let indifferent = indifferent.unsigned_abs();
    let situations = u64::from((!own & (u64::MAX >> (64 - width))).count_ones());
    let up = u64::from(raised.count_ones());
    let all = Sums::of_lanes(c, width, own);
    // Equal values choose the fold (the lowest decision), which is where they are counted.
    all.less(raised_sums)
        .into_row(situations - up, indifferent, total, &mut rows[0]);
    raised_sums.into_row(up, 0, total, &mut rows[1]);
    (raised, margin)
}

/// The best raise's value less the fold's, for one situation, from the raises' worths over
/// the fold (`raises`: `Relative` of decisions 1, 2, ...).
#[inline]
fn raise_margin(raises: &[Relative], c: &Counts) -> i64 {
    let (nq, won, tied) = (
        i64::from(c.not_qualifying),
        i64::from(c.won),
        i64::from(c.tied),
    );
    if let [only] = raises {
        return worth(only, nq, won, tied);
    }
    raises
        .iter()
        .map(|r| worth(r, nq, won, tied))
        .max()
        .unwrap_or(i64::MIN)
}

/// Choose the best decision of one situation (the lowest of equal values) from its
/// category's worths over the fold (`relative[d]`), and add its outcomes to that decision's
/// row.
#[inline]
fn decide(total: i64, relative: &[Relative], c: &Counts, rows: &mut [Row]) -> u8 {
    let (nq, won, tied) = (
        i64::from(c.not_qualifying),
        i64::from(c.won),
        i64::from(c.tied),
    );
    let lost = total - nq - won - tied;
    // The fold is worth 0 over itself.
    let mut best = 0usize;
    let mut best_value = 0;
    let mut tie = false;
    for (d, r) in relative.iter().enumerate().skip(1) {
        let value = worth(r, nq, won, tied);
        if value > best_value {
            best = d;
            best_value = value;
            tie = false;
        } else if value == best_value {
            tie = true;
        }
    }
    let r = &mut rows[best];
    r.situations += 1;
    r.indifferent += u64::from(tie);
    r.not_qualifying += nq.unsigned_abs();
    r.won += won.unsigned_abs();
    r.tied += tied.unsigned_abs();
    r.lost += lost.unsigned_abs();
    r.equal_ranks += u64::from(c.equal_ranks.unsigned_abs());
    r.won_on_suit += u64::from(c.won_on_suit.unsigned_abs());
    best as u8
}

/// How many `cards`-card hands of `deck` fall in each (category, first rank field).
#[must_use]
pub fn category_counts(ranking: &Ranking, deck: &[u8], cards: usize) -> Vec<[u64; 13]> {
    let mut sorted = deck.to_vec();
    sorted.sort_unstable();
    let masks = combinations(sorted.len(), cards);
    masks
        .par_chunks(1 << 14)
        .map(|chunk| {
            let mut out = vec![[0u64; 13]; ranking.categories()];
            let mut ids = [0u8; MAX_CARDS];
            for &mask in chunk {
                let mut n = 0;
                let mut m = mask;
                while m != 0 {
                    ids[n] = sorted[m.trailing_zeros() as usize];
                    n += 1;
                    m &= m - 1;
                }
                let key = ranking.best(&ids[..n]);
                let (cat, fields, _) = crate::ranking::fields(key);
                out[usize::from(cat)][usize::from(fields[0])] += 1;
            }
            out
        })
        .reduce(
            || vec![[0u64; 13]; ranking.categories()],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(&b) {
                    for (p, q) in x.iter_mut().zip(y) {
                        *p += q;
                    }
                }
                a
            },
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranking::TieBreaks;

    /// Fold loses 10 in every outcome; the raise: 0 not qualifying, 20 + the category won, 1
    /// tied, -20 lost: a win's value differs by category, so a category's rows cannot be
    /// mistaken for another's.
    fn category_values() -> Values {
        let fold = [[-10i64; MAX_CATEGORIES]; OUTCOMES];
        let raise = [
            [0i64; MAX_CATEGORIES],
            std::array::from_fn(|c| 20 + i64::from(c as u8)),
            [1; MAX_CATEGORIES],
            [-20; MAX_CATEGORIES],
        ];
        vec![fold, raise]
    }

    fn ranking(uses: usize, tb: TieBreaks) -> Arc<Ranking> {
        let names: Vec<String> = vocabulary(uses)
            .unwrap()
            .iter()
            .rev()
            .map(|s| (*s).to_string())
            .collect();
        Arc::new(Ranking::new(uses, &names, tb).unwrap())
    }

    /// Every situation's outcomes by direct enumeration, summed by category (one decision).
    fn brute(game: &Game) -> Vec<[u64; 6]> {
        let d = game.deck.len();
        let mut out = vec![[0u64; 6]; game.ranking.categories()];
        let qualifies = |k: u32| game.qualifier.is_none_or(|q| ranks_only(k) >= q);
        let suits = game.ranking.tie_breaks.suit_decides;
        for p in combinations(d, game.player_cards) {
            let pk = game.key_of(p);
            let c = usize::from(crate::ranking::category(pk));
            for dm in combinations(d, game.dealer_cards) {
                if dm & p != 0 {
                    continue;
                }
                let dk = game.key_of(dm);
                // one situation per dealer card face up
                let weight = if game.upcards == 1 {
                    u64::from(dm.count_ones())
                } else {
                    1
                };
                let o = &mut out[c];
                if qualifies(dk) {
                    let (a, b) = if suits {
                        (pk, dk)
                    } else {
                        (ranks_only(pk), ranks_only(dk))
                    };
                    let slot = match a.cmp(&b) {
                        std::cmp::Ordering::Greater => 1,
                        std::cmp::Ordering::Equal => 2,
                        std::cmp::Ordering::Less => 3,
                    };
                    o[slot] += weight;
                    if ranks_only(pk) == ranks_only(dk) {
                        o[4] += weight;
                        o[5] += weight * u64::from(suits && pk > dk);
                    }
                } else {
                    o[0] += weight;
                }
            }
        }
        out
    }

    #[test]
    fn sums_match_direct_enumeration_on_small_decks() {
        // 14 cards: four ranks in four suits (A K Q J) minus two, plus two low cards.
        let deck: Vec<u8> = (36..52)
            .filter(|&c| c != 40 && c != 47)
            .chain([0, 5])
            .collect();
        let shapes = [
            (3, 3, 3, 0),
            (3, 3, 3, 1),
            (4, 5, 6, 1),
            (4, 5, 5, 0),
            (5, 5, 5, 1),
        ];
        for (uses, player, dealer, up) in shapes {
            for tb in [TieBreaks::RANK_ONLY, TieBreaks::STATUTE] {
                let r = ranking(uses, tb);
                for qualifier in [None, Some(r.qualifier_key("pair", &[9]).unwrap_or(0))] {
                    let qualifier = qualifier.map(|q| {
                        if uses == 5 {
                            r.qualifier_key("one-pair", &[9]).unwrap()
                        } else {
                            q
                        }
                    });
                    let game = Game::new(r.clone(), &deck, player, dealer, up, qualifier).unwrap();
                    let values = vec![[[1i64; MAX_CATEGORIES]; OUTCOMES]];
                    let run = analyze(&game, &values, &Want::default(), 2, None, (0, 1));
                    let want = brute(&game);
                    for (c, w) in want.iter().enumerate() {
                        let row = &run.rows[c][0];
                        let got = [
                            row.not_qualifying,
                            row.won,
                            row.tied,
                            row.lost,
                            row.equal_ranks,
                            row.won_on_suit,
                        ];
                        assert_eq!(
                            &got, w,
                            "{uses} {player}/{dealer} up {up} {tb:?} q {qualifier:?} cat {c}"
                        );
                    }
                }
            }
        }
    }

    /// A game keeps the tables its first run builds; every later run (any shard) on it is a
    /// run on a new game of the same deal, field for field.
    #[test]
    fn a_game_keeps_its_tables_and_later_runs_are_unchanged() {
        let deck: Vec<u8> = (36..52)
            .filter(|&c| c != 40 && c != 47)
            .chain([0, 5])
            .collect();
        // (uses, player, dealer, upcards): one list of hands, two lists, no upcard.
        for (uses, player, dealer, up) in [(5, 5, 5, 1), (4, 5, 6, 1), (3, 3, 3, 0)] {
            let r = ranking(uses, TieBreaks::STATUTE);
            let names = ["one-pair", "pair"];
            let q = names.iter().find_map(|n| r.qualifier_key(n, &[9]).ok());
            // Fold loses the ante; the raise: +1 not qualifying, +3 won, 0 tied, -3 lost.
            let fold = [[-1i64; MAX_CATEGORIES]; OUTCOMES];
            let raise = [1i64, 3, 0, -3].map(|v| [v; MAX_CATEGORIES]);
            let values = vec![fold, raise];
            let want = Want {
                masks: true,
                floor: Some(values.clone()),
                ..Want::default()
            };
            let kept = Game::new(r.clone(), &deck, player, dealer, up, q).unwrap();
            assert!(kept.tables.dealers.get().is_none());
            for shard in [(0, 1), (0, 2), (1, 2), (0, 1)] {
                let fresh = Game::new(r.clone(), &deck, player, dealer, up, q).unwrap();
                let a = analyze(&kept, &values, &want, 1, None, shard);
                let b = analyze(&fresh, &values, &want, 1, None, shard);
                assert_eq!(a.rows, b.rows, "{player}/{dealer} up {up} {shard:?}");
                assert_eq!(a.raise_masks, b.raise_masks, "{player}/{dealer} {shard:?}");
                let masks = a.raise_masks.as_ref().unwrap();
                assert!(masks.iter().any(|&m| m != 0), "some situation is raised");
                assert_eq!(a.min_margins, b.min_margins, "{player}/{dealer} {shard:?}");
                assert_eq!((a.completions, a.situations), (b.completions, b.situations));
                assert!(kept.tables.dealers.get().is_some());
                assert_eq!(kept.tables.players.get().is_some(), player != dealer);
            }
        }
    }

    /// Q Poker: per hand, the engine's counts against one decision are today's showdown counts.
    #[test]
    fn q_poker_counts_are_todays() {
        let deck: Vec<u8> = (0..52).collect();
        for tb in [TieBreaks::STATUTE, TieBreaks::RANK_ONLY] {
            let r = ranking(3, tb);
            let q = r.qualifier_key("high-card", &[10]).unwrap();
            let game = Game::new(r, &deck, 3, 3, 0, Some(q)).unwrap();
            // fold = 0; play wins by the count of wins: every hand's decision shows its counts
            let today = crate::games::q_poker::hand_counts(
                &tb,
                crate::games::showdown::qualifier_key(&[10]),
            );
            let values = vec![[[0i64; MAX_CATEGORIES]; OUTCOMES]];
            let want = Want {
                counts: true,
                ..Want::default()
            };
            let run = analyze(&game, &values, &want, 2, None, (0, 1));
            // Hand by hand, in colex order: today's columns are the generic counts. (Under
            // rank-only rules today's engine still counts the showdowns the statute's suits
            // would win; the generic one counts only wins that happen, none on suit.)
            let counts = run.counts.as_ref().unwrap();
            assert_eq!(counts.len(), today.len());
            for (i, (h, c)) in today.iter().zip(counts).enumerate() {
                let [nq, won, tied, equal, suit] = *c;
                assert_eq!(
                    (h.not_qualifying, h.beaten, h.equal_ranks),
                    (nq, won - suit, equal),
                    "hand {i} {tb:?}"
                );
                if tb.suit_decides {
                    assert_eq!((h.won_on_suit, tied), (suit, 0), "hand {i}");
                } else {
                    assert_eq!((suit, tied), (0, equal), "hand {i}");
                }
            }
            let (mut nq, mut won, mut equal, mut suit) = (0u64, 0u64, 0u64, 0u64);
            for h in &today {
                nq += u64::from(h.not_qualifying);
                equal += u64::from(h.equal_ranks);
                suit += u64::from(h.won_on_suit);
                won += u64::from(h.beaten);
            }
            let sum = |f: fn(&Row) -> u64| run.rows.iter().map(|r| f(&r[0])).sum::<u64>();
            assert_eq!(sum(|r| r.not_qualifying), nq);
            if tb.suit_decides {
                assert_eq!(sum(|r| r.won), won + suit);
                assert_eq!(sum(|r| r.equal_ranks), equal);
                assert_eq!(sum(|r| r.won_on_suit), suit);
            } else {
                assert_eq!(sum(|r| r.won), won);
                assert_eq!(sum(|r| r.tied), equal);
                assert_eq!(sum(|r| r.equal_ranks), equal);
            }
        }
    }

    /// Caribbean Stud on the full deck: every category's totals are today's engine's.
    #[test]
    #[ignore = "a full analysis: run with --ignored"]
    fn caribbean_is_todays() {
        use crate::games::caribbean;
        let deck: Vec<u8> = (0..52).collect();
        for tb in [TieBreaks::STATUTE, TieBreaks::RANK_ONLY] {
            let pay = caribbean::Payouts {
                fold: -2,
                not_qualifying: 2,
                win: [2, 2, 4, 6, 8, 10, 14, 40, 100, 200].map(|w| w + 2),
                tie: 0,
                loss: -6,
                win_floor: 4,
            };
            let today = caribbean::analyze(&tb, caribbean::qualifier_key(&[12, 11]), &pay, 2, None);
            let r = ranking(5, tb);
            let q = r.qualifier_key("high-card", &[12, 11]).unwrap();
            let game = Game::new(r, &deck, 5, 5, 1, Some(q)).unwrap();
            let mut fold = [[0i64; MAX_CATEGORIES]; OUTCOMES];
            let mut raise = [[0i64; MAX_CATEGORIES]; OUTCOMES];
            for c in 0..MAX_CATEGORIES {
                for by_category in &mut fold {
                    by_category[c] = pay.fold;
                }
                raise[0][c] = pay.not_qualifying;
                raise[1][c] = pay.win[c];
                raise[2][c] = pay.tie;
                raise[3][c] = pay.loss;
            }
            let run = analyze(&game, &vec![fold, raise], &Want::default(), 2, None, (0, 1));
            for (c, t) in today.categories.iter().enumerate() {
                let r = &run.rows[c][1];
                assert_eq!(
                    (
                        r.situations,
                        r.not_qualifying,
                        r.won,
                        r.tied,
                        r.lost,
                        r.equal_ranks,
                        r.won_on_suit
                    ),
                    (
                        t.raised,
                        t.not_qualifying,
                        t.won,
                        t.tied,
                        t.lost,
                        t.equal_ranks,
                        t.won_on_suit
                    ),
                    "category {c} {tb:?}"
                );
                assert_eq!(r.situations + run.rows[c][0].situations, t.situations);
                assert_eq!(run.rows[c][0].situations, t.situations - t.raised);
                assert_eq!(r.indifferent + run.rows[c][0].indifferent, t.indifferent);
            }
        }
    }

    /// The one-raise settling of a hand's lanes at once gives what `decide` and
    /// `raise_margin` give lane by lane: rows, raised lanes, the floor's margin, the hand's
    /// own lanes left out, equal values counted as indifferent folds. Both compilations.
    #[test]
    fn one_raise_settling_is_decide_lane_by_lane() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |below: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % below
        };
        let total = 1000i64;
        let mut checked_ties = 0;
        for trial in 0..400 {
            let width = [1, 7, 8, 47, 52, 64][trial % 6];
            let suits = trial % 2 == 1;
            let mut lanes = |n: usize, lo: i32, span: u64| -> Vec<i32> {
                (0..n).map(|_| lo + next(span) as i32).collect()
            };
            let nq = lanes(width, 0, 300);
            let below: Vec<i32> = nq.iter().map(|&q| q + 200).collect();
            let through: Vec<i32> = below.iter().map(|&b| b + 50).collect();
            let full: Vec<i32> = below.iter().map(|&b| b + 25).collect();
            // Values that make some lanes worth exactly the fold: won * 2 - nq == 400.
            let raise: Relative = [
                -1,
                2,
                i64::from(trial % 3 == 0),
                -400 - 3 * i64::from(suits),
            ];
            let floor: Relative = [0, 1, 0, -300];
            let own = if width == 1 {
                0
            } else {
                next(1 << width.min(63)) & next(u64::MAX)
            };
            let counts = HandCounts {
                not_qualifying: &nq,
                below: &below,
                through: &through,
                full: suits.then_some(&full[..]),
            };
            let relative = [[0; OUTCOMES], raise];
            let mut expected = vec![Row::default(); 2];
            let (mut raised, mut margin) = (0u64, i64::MAX);
            for l in (0..width).filter(|l| own >> l & 1 == 0) {
                let c = counts.lane(l);
                raised |= u64::from(decide(total, &relative, &c, &mut expected)) << l;
                margin = margin.min(raise_margin(&[floor], &c));
            }
            checked_ties += expected[0].indifferent;
            for native in [None, Native::detect()] {
                for with_floor in [Some(&floor), None] {
                    let mut rows = vec![Row::default(); 2];
                    let got = settle_one_raise(
                        native, total, &raise, with_floor, &counts, own, &mut rows,
                    );
                    let want_margin = if with_floor.is_some() {
                        margin
                    } else {
                        i64::MAX
                    };
                    assert_eq!(got, (raised, want_margin), "trial {trial}");
                    assert_eq!(rows, expected, "trial {trial}");
                }
            }
        }
        assert!(checked_ties > 0, "no lane was worth exactly the fold");
    }

    /// A task swept down the key order finds what one swept up finds, field for field, in
    /// every shape the cut by player hands serves (one list of hands or two, an upcard or
    /// none, suits deciding or not, a qualifier or none) and in both settlings; the choice
    /// sends a part at the top of the order down and the whole run up.
    #[test]
    fn sweeping_down_finds_what_sweeping_up_finds() {
        let deck: Vec<u8> = (36..52)
            .filter(|&c| c != 40 && c != 47)
            .chain([0, 5])
            .collect();
        let up: fn(&Shared<'_>, &Range<usize>) -> bool = |_, _| false;
        let down: fn(&Shared<'_>, &Range<usize>) -> bool = |_, _| true;
        let mut checked = 0;
        for (uses, player, dealer, upcards) in [
            (3, 3, 3, 0),
            (3, 3, 3, 1),
            (4, 5, 5, 0),
            (5, 5, 5, 1),
            (3, 4, 3, 1),
        ] {
            for tb in [TieBreaks::RANK_ONLY, TieBreaks::STATUTE] {
                let r = ranking(uses, tb);
                let pair = if uses == 5 { "one-pair" } else { "pair" };
                for q in [None, Some(r.qualifier_key(pair, &[9]).unwrap())] {
                    let game = Game::new(r.clone(), &deck, player, dealer, upcards, q).unwrap();
                    let values = category_values();
                    let all = Want {
                        decisions: true,
                        masks: true,
                        counts: true,
                        floor: Some(values.clone()),
                    };
                    let masks = Want {
                        masks: true,
                        floor: Some(values.clone()),
                        ..Want::default()
                    };
                    for want in [&all, &masks] {
                        for shard in [(0, 1), (1, 3), (2, 3)] {
                            let a = analyze_directed(&game, &values, want, 2, None, shard, up);
                            let b = analyze_directed(&game, &values, want, 2, None, shard, down);
                            let name = format!(
                                "{uses} {player}/{dealer} up {upcards} {tb:?} {q:?} {shard:?}"
                            );
                            assert_eq!(a.rows, b.rows, "{name}");
                            assert_eq!(a.decisions, b.decisions, "{name}");
                            assert_eq!(a.raise_masks, b.raise_masks, "{name}");
                            assert_eq!(a.counts, b.counts, "{name}");
                            assert_eq!(a.min_margins, b.min_margins, "{name}");
                            assert!(a
                                .rows
                                .iter()
                                .flatten()
                                .any(|r| r.situations > 0 && r.won > 0));
                            checked += 1;
                        }
                    }
                    // One list of hands: the top third catches up on nothing down, the whole
                    // run on nothing up.
                    let (dealers, players) = game.dealer_and_player_hands();
                    let n = players.0.len();
                    let top = catch_up(q, &dealers.0, &players.0, &(2 * n / 3..n));
                    let whole = catch_up(q, &dealers.0, &players.0, &(0..n));
                    if player == dealer {
                        assert!(top.0 > 0 && top.1 == 0, "{top:?}");
                        assert_eq!(whole.0, 0);
                    } else {
                        assert!(top.0 > top.1, "{top:?}");
                    }
                }
            }
        }
        assert_eq!(checked, 5 * 2 * 2 * 2 * 3);
    }

    /// The cut by weights is the running sum's walk it replaces, hand for hand: the same
    /// ranges for any part, count of parts and qualifying prefix (empty parts included).
    #[test]
    fn the_cut_is_the_running_sums_walk() {
        let walk = |w: &[u64], range: Range<usize>, n: usize| {
            let total: u64 = w[range.clone()].iter().sum();
            let mut parts = Vec::new();
            let (mut start, mut sum, mut next) = (range.start, 0u64, 1u64);
            for (i, &x) in w[range.clone()].iter().enumerate() {
                sum += x;
                while parts.len() + 1 < n && sum * n as u64 >= total * next {
                    parts.push(start..range.start + i + 1);
                    start = range.start + i + 1;
                    next += 1;
                }
            }
            while parts.len() < n {
                parts.push(start..range.end);
                start = range.end;
            }
            parts
        };
        let hands = 50;
        for first_qualifying in [0, 1, 17, 49, 50] {
            let w: Vec<u64> = (0..hands)
                .map(|i| if i < first_qualifying { 1 } else { 3 })
                .collect();
            for range in [0..50, 0..0, 3..3, 5..20, 16..19, 40..50, 49..50] {
                for n in [1, 2, 3, 7, 8, 60] {
                    let part = Part {
                        lanes: 0..1,
                        players: range.clone(),
                        reports: true,
                        down: false,
                    };
                    let got: Vec<Range<usize>> = cut(&part, false, Weights { first_qualifying }, n)
                        .into_iter()
                        .map(|p| p.players)
                        .collect();
                    assert_eq!(
                        got,
                        walk(&w, range.clone(), n),
                        "{first_qualifying} {range:?} {n}"
                    );
                }
            }
        }
    }

    /// Shards of either cut add up to the whole run, decision for decision.
    #[test]
    fn shards_add_up_to_the_whole() {
        let deck: Vec<u8> = (32..52).collect();
        for (uses, player, dealer, up) in [(4, 5, 6, 1), (3, 3, 3, 1), (3, 3, 3, 0)] {
            let r = ranking(uses, TieBreaks::RANK_ONLY);
            let game = Game::new(r, &deck, player, dealer, up, None).unwrap();
            let values = category_values();
            let mut floor = values.clone();
            floor[1][1] = [20; MAX_CATEGORIES];
            let want = Want {
                decisions: true,
                masks: true,
                counts: true,
                floor: Some(floor.clone()),
            };
            let whole = analyze(&game, &values, &want, 2, None, (0, 1));
            let mut sum = vec![vec![Row::default(); 2]; game.ranking.categories()];
            let mut table = vec![u8::MAX; whole.decisions.as_ref().unwrap().len()];
            let mut counts = vec![SituationCounts::default(); table.len()];
            let mut margins = vec![i64::MAX; game.ranking.categories()];
            for k in 0..3 {
                let part = analyze(&game, &values, &want, 2, None, (k, 3));
                for (a, b) in sum.iter_mut().zip(&part.rows) {
                    for (x, y) in a.iter_mut().zip(b) {
                        x.merge(y);
                    }
                }
                for (t, &d) in table.iter_mut().zip(part.decisions.as_ref().unwrap()) {
                    if d != u8::MAX {
                        *t = d;
                    }
                }
                for (t, c) in counts.iter_mut().zip(part.counts.as_ref().unwrap()) {
                    t.iter_mut().zip(c).for_each(|(x, y)| *x += y);
                }
                for (m, &p) in margins.iter_mut().zip(&part.min_margins) {
                    *m = (*m).min(p);
                }
            }
            let name = format!("{uses} {player}/{dealer} up {up}");
            assert_eq!(sum, whole.rows, "{name}");
            assert_eq!(&table, whole.decisions.as_ref().unwrap(), "{name}");
            assert_eq!(&counts, whole.counts.as_ref().unwrap(), "{name}");
            assert_eq!(margins, whole.min_margins, "{name}");
            // The raise masks are the table's lanes where a raise is chosen.
            let lanes = game.lanes();
            let from_table: Vec<u64> = table
                .chunks_exact(lanes)
                .map(|hand| {
                    (0..lanes)
                        .filter(|&l| hand[l] != 0 && hand[l] != u8::MAX)
                        .fold(0, |m, l| m | 1 << l)
                })
                .collect();
            assert_eq!(whole.raise_masks.as_ref(), Some(&from_table), "{name}");
            assert!(whole.rows.iter().flatten().any(|r| r.situations > 0));
            // Every situation's counts add up to its decision's row, and the smallest margin
            // under the floor is the smallest of the situations' own.
            let mut by_decision = [[0u64; 5]; 2];
            let mut smallest = i64::MAX;
            let total = whole.completions.cast_signed();
            for (&d, c) in table.iter().zip(&counts) {
                if d == u8::MAX {
                    continue;
                }
                for (x, &y) in by_decision[usize::from(d)].iter_mut().zip(c) {
                    *x += u64::from(y);
                }
                let [nq, won, tied] = [c[0], c[1], c[2]].map(i64::from);
                let lost = total - nq - won - tied;
                let value = |v: &[[i64; MAX_CATEGORIES]; OUTCOMES]| {
                    nq * v[0][0] + won * v[1][0] + tied * v[2][0] + lost * v[3][0]
                };
                smallest = smallest.min(value(&floor[1]) - value(&floor[0]));
            }
            for (d, totals) in by_decision.iter().enumerate() {
                let rows: Vec<&Row> = whole.rows.iter().map(|r| &r[d]).collect();
                let field = |f: fn(&Row) -> u64| rows.iter().map(|r| f(r)).sum::<u64>();
                let expected = [
                    field(|r| r.not_qualifying),
                    field(|r| r.won),
                    field(|r| r.tied),
                    field(|r| r.equal_ranks),
                    field(|r| r.won_on_suit),
                ];
                assert_eq!(*totals, expected, "{name}: decision {d}");
            }
            assert_eq!(whole.min_margins.iter().min(), Some(&smallest), "{name}");
        }
    }
}
