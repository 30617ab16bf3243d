//! Bindings for the seeded round-log simulator (`rounds::simulate`): the game's tables in, log
//! blocks out, the GIL released while a block is made.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::errors::CoreError;
use crate::rounds::simulate::{self, Game, Meter, Prize, Spot};

/// The progressive bet of a simulated table, as the rule file reads it (amounts in 1/10,000
/// units; shares and the contribution as numerator and denominator).
#[pyclass(frozen, module = "tablecert._core")]
#[derive(Clone)]
pub struct RoundMeter(Meter);

#[pymethods]
impl RoundMeter {
    #[new]
    #[pyo3(signature = (
        *, bet, start, seed, contribution, before_prizes, descending,
        straight_flush_on_meter_before, pays_royal, pays_straight_flush, unit, prizes, royal,
        straight_flush, royals, straight_flushes, multi_deals, multi_ppm,
    ))]
    #[allow(clippy::too_many_arguments, clippy::fn_params_excessive_bools)]
    fn new(
        bet: i64,
        start: i64,
        seed: i64,
        contribution: (i64, i64),
        before_prizes: bool,
        descending: bool,
        straight_flush_on_meter_before: bool,
        pays_royal: bool,
        pays_straight_flush: bool,
        unit: i64,
        prizes: Vec<Option<(i64, i64, i64)>>,
        royal: usize,
        straight_flush: usize,
        royals: Vec<u64>,
        straight_flushes: Vec<u64>,
        multi_deals: Vec<Vec<bool>>,
        multi_ppm: u64,
    ) -> PyResult<Self> {
        if contribution.1 <= 0 || unit <= 0 || royals.is_empty() || straight_flushes.is_empty() {
            return Err(
                CoreError::Rules("meter: bad contribution, unit or meter hands".into()).into(),
            );
        }
        let prizes = prizes
            .into_iter()
            .map(|p| {
                p.map(|(fixed, share_num, share_den)| Prize {
                    fixed,
                    share_num,
                    share_den: share_den.max(1),
                })
            })
            .collect();
        Ok(RoundMeter(Meter {
            bet,
            start,
            seed,
            contribution,
            before_prizes,
            descending,
            straight_flush_on_meter_before,
            pays_royal,
            pays_straight_flush,
            unit,
            prizes,
            royal,
            straight_flush,
            royals,
            straight_flushes,
            multi_deals,
            multi_ppm,
        }))
    }
}

/// A seeded simulator of one table's round log.
#[pyclass(module = "tablecert._core")]
pub struct RoundSimulator(simulate::RoundSimulator);

#[pymethods]
impl RoundSimulator {
    #[new]
    #[pyo3(signature = (
        *, hand_size, players, threshold, keys, strategy, caribbean, spots, menus,
        raise_multiple, maximum_payout, capped, meter, void_ppm, table_id, json_lines, start,
        step, seed,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        hand_size: usize,
        players: usize,
        threshold: u32,
        keys: &[u8],
        strategy: &[u8],
        caribbean: bool,
        spots: [(Vec<i64>, i64); 2],
        menus: [Vec<i64>; 2],
        raise_multiple: (i64, i64),
        maximum_payout: i64,
        capped: Vec<bool>,
        meter: Option<RoundMeter>,
        void_ppm: u64,
        table_id: String,
        json_lines: bool,
        start: i64,
        step: i64,
        seed: u64,
    ) -> PyResult<Self> {
        if !keys.len().is_multiple_of(4) || (caribbean && !strategy.len().is_multiple_of(8)) {
            return Err(CoreError::Rules("key table or strategy of partial entries".into()).into());
        }
        if raise_multiple.1 <= 0 || menus[0].is_empty() || (!caribbean && menus[1].is_empty()) {
            return Err(CoreError::Rules("empty bet menu or bad raise multiple".into()).into());
        }
        let keys = keys
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let (follow, raise_bits) = if caribbean {
            let bits = strategy
                .chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().expect("eight bytes")))
                .collect();
            (Vec::new(), bits)
        } else {
            (strategy.iter().map(|&b| b != 0).collect(), Vec::new())
        };
        let [(n0, d0), (n1, d1)] = spots;
        let game = Game {
            hand_size,
            players,
            threshold,
            keys,
            follow,
            raise_bits,
            caribbean,
            spots: [Spot { nums: n0, den: d0 }, Spot { nums: n1, den: d1 }],
            menus,
            raise_multiple,
            maximum_payout,
            capped,
            meter: meter.map(|m| m.0),
            void_ppm,
            table_id,
            json_lines,
            start,
            step,
        };
        Ok(RoundSimulator(
            simulate::RoundSimulator::new(game, seed).map_err(CoreError::Rules)?,
        ))
    }

    /// The next `rounds` rounds as log bytes (gzip members at `gzip` level when given).
    #[pyo3(signature = (rounds, gzip = None))]
    fn block<'py>(
        &mut self,
        py: Python<'py>,
        rounds: usize,
        gzip: Option<u32>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        if gzip.is_some_and(|level| level > 9) {
            return Err(CoreError::Rules("gzip level: expected 0 to 9".into()).into());
        }
        let simulator = &mut self.0;
        let bytes = py
            .allow_threads(|| simulator.block(rounds, gzip))
            .map_err(CoreError::Rules)?;
        Ok(PyBytes::new_bound(py, &bytes))
    }

    /// Rounds written so far.
    #[getter]
    fn done(&self) -> u64 {
        self.0.done()
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RoundMeter>()?;
    m.add_class::<RoundSimulator>()?;
    Ok(())
}
